// Runs a Node process from the repository root and collects its exit code and output (CLI end-to-end tests).
import { spawn } from 'node:child_process';
import * as path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node <args>` in the repository root; stdin closed. */
export function runNode(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The CLI from source (tsx). */
export const runCliSource = (args: string[], env?: NodeJS.ProcessEnv) => runNode(['--import', 'tsx', path.join(ROOT, 'src/cli.ts'), ...args], env);
/** The built CLI bundle (dist/cli.js). */
export const runCliBundle = (args: string[], env?: NodeJS.ProcessEnv) => runNode([path.join(ROOT, 'dist/cli.js'), ...args], env);
