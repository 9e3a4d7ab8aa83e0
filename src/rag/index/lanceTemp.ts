// A private temp directory for a process that builds LanceDB indexes. LanceDB (0.37) spills into the system temp
// directory while it builds an index and leaves the files there: every IVF training a copy of all vectors, every
// full-text build an empty directory. A machine that reindexes fills its /tmp with them (on a tmpfs that is memory).
// So each process that writes
// an index is started with TMPDIR (TMP, TEMP on Windows) pointing at a directory of its own, which its parent deletes when
// it exits; directories of parents that died first are deleted by the next one.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isAlive } from './writerLock';

const PREFIX = 'docs-rag-lance-';

export interface LanceTempDir {
  /** The child's environment: `base` with its temp-directory variables pointing at the private directory. */
  env: NodeJS.ProcessEnv;
  /** Deletes the directory and what LanceDB left in it (call when the child has exited; idempotent). */
  dispose(): void;
}

/** A new private temp directory under `base`'s temp directory (TMPDIR, else the OS default) for a child process. */
export function lanceTempDir(base: NodeJS.ProcessEnv = process.env): LanceTempDir {
  const parent = (process.platform === 'win32' ? base.TEMP ?? base.TMP : base.TMPDIR) || os.tmpdir();
  sweepOrphans(parent);
  const dir = fs.mkdtempSync(path.join(parent, `${PREFIX}${process.pid}-`));
  return {
    env: { ...base, TMPDIR: dir, TMP: dir, TEMP: dir },
    dispose: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * `env` with its temp-directory variables taken out of private directories (back to the directory they were made in):
 * for a process that outlives the owner of the private directory it would otherwise inherit (the detached background
 * maintenance of `docs-rag index`, whose launcher deletes its child's directory when the child exits).
 */
export function outsideLanceTemp(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const key of ['TMPDIR', 'TMP', 'TEMP']) {
    let dir = out[key];
    while (dir && path.basename(dir).startsWith(PREFIX)) dir = path.dirname(dir);
    if (dir !== undefined) out[key] = dir;
  }
  return out;
}

/** Deletes the private directories whose parent process is gone (killed before it could delete them). */
function sweepOrphans(parent: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^docs-rag-lance-(\d+)-/.exec(name)?.[1]);
    if (!pid || isAlive(pid)) continue;
    try {
      fs.rmSync(path.join(parent, name), { recursive: true, force: true });
    } catch {
      // Another user's, or busy: left alone.
    }
  }
}
