// Runs a Node process from the repository root and collects its exit code and output (CLI end-to-end tests).
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

export const ROOT = path.resolve(__dirname, '../..');

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node <args>` in the repository root (or `cwd`); stdin closed. */
export function runNode(args: string[], env: NodeJS.ProcessEnv = process.env, cwd = ROOT): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Node's arguments for the CLI from source (tsx, resolved from the repository whatever the working folder). */
export const cliSourceArgs = (args: string[]) => ['--import', pathToFileURL(require.resolve('tsx')).href, path.join(ROOT, 'src/cli.ts'), ...args];
/** The CLI from source (tsx), in the repository root or `cwd`. */
export const runCliSource = (args: string[], env?: NodeJS.ProcessEnv, cwd?: string) => runNode(cliSourceArgs(args), env, cwd);
/** The built CLI bundle (dist/cli.js). */
export const runCliBundle = (args: string[], env?: NodeJS.ProcessEnv) => runNode([path.join(ROOT, 'dist/cli.js'), ...args], env);
