// One runner at a time per repository: runs share test-results/, out/vscode-tests/ and dist/, and a driver serving
// another run's requests would click in the wrong page. The lock file holds the owner's pid; a dead owner's lock is
// taken over, so a crashed run never blocks the next one.
import { openSync, closeSync, writeSync, readFileSync, rmSync, mkdirSync } from 'node:fs';
import path from 'node:path';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Waits until this process holds the lock; returns the release function (also run on exit). */
export async function acquireRunnerLock(file: string, log: (msg: string) => void, timeoutMs = 30 * 60_000): Promise<() => void> {
  mkdirSync(path.dirname(file), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  let announced = false;
  for (;;) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      const release = (): void => {
        try {
          if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file, { force: true });
        } catch {
          /* already gone */
        }
      };
      process.on('exit', release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let owner = NaN;
    try {
      owner = Number(readFileSync(file, 'utf8').trim());
    } catch {
      continue; // released meanwhile
    }
    if (!Number.isInteger(owner) || owner <= 0 || !alive(owner)) {
      rmSync(file, { force: true }); // stale: its owner is gone
      continue;
    }
    if (Date.now() > deadline) throw new Error(`another VS Code test run (pid ${owner}) still holds ${file} after ${timeoutMs / 60_000} min`);
    if (!announced) {
      log(`waiting for another VS Code test run (pid ${owner}) to finish (lock ${file})`);
      announced = true;
    }
    await new Promise((r) => setTimeout(r, 2000));
  }
}
