// The index child of the crash suites (test/crash/indexChild.ts), run from a frozen copy of the sources and killed with
// SIGKILL at a chosen moment of its progress output.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { copyTree } from './snapshot';

const ROOT = path.resolve(__dirname, '../..');

export interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface IndexChild {
  script: string;
  cwd: string;
}

/** A frozen copy of src/ and test/crash in `dir`, so source edits during a long suite cannot change the chunks between runs. */
export function freezeIndexChild(dir: string): IndexChild {
  copyTree(path.join(ROOT, 'src'), path.join(dir, 'src'));
  copyTree(__dirname, path.join(dir, 'test/crash'));
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
  fs.copyFileSync(path.join(ROOT, 'tsconfig.json'), path.join(dir, 'tsconfig.json'));
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return { script: path.join(dir, 'test/crash/indexChild.ts'), cwd: dir };
}

/**
 * Runs the child with `args`. `kill`: SIGKILL once it has printed `nth` progress lines (of `phase`, or of any phase),
 * after a further random 0..delayMs ms.
 */
export function runIndexChild(child: IndexChild, args: string[], kill?: { nth: number; phase?: string; delayMs: number }): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    const p = spawn(process.execPath, ['--import', 'tsx', child.script, ...args], { cwd: child.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    let events = 0;
    const prefix = kill?.phase ? `phase ${kill.phase} ` : 'phase ';
    p.stdout.on('data', (d: Buffer) => {
      stdout += d;
      events += d.toString().split('\n').filter((l) => l.startsWith(prefix)).length;
      if (kill && !timer && events >= kill.nth) timer = setTimeout(() => p.kill('SIGKILL'), Math.random() * kill.delayMs);
    });
    p.stderr.on('data', (d) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}
