// Where a folder's own index may live. The default store, <folder>/.docs-rag, comes with the folder: a `.docs-rag` that is
// a symbolic link (or holds one) could send the index's writes anywhere, e.g. over another folder's files. Such a store
// is refused; a store the user names explicitly (--store, storeDir) is theirs to choose and is not checked here.
import * as fs from 'node:fs';
import * as path from 'node:path';

export class StoreLocationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreLocationError';
  }
}

/** Whether `child` is `parent` or lies under it (both absolute, resolved). */
function inside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Throws a StoreLocationError when the folder's default store `storeDir` (<folder>/.docs-rag) is, or contains, a
 * symbolic link (the index never creates one), or resolves outside the folder. A store that does not exist yet passes.
 */
export function checkDefaultStore(folder: string, storeDir: string): void {
  let top: fs.Stats;
  try {
    top = fs.lstatSync(storeDir);
  } catch {
    return;
  }
  const refuse = (what: string) =>
    new StoreLocationError(
      `${storeDir} ${what}: docs-rag does not read or write an index through a link that came with the folder. ` +
        `Remove it, or name the store on purpose with --store DIR`,
    );
  if (top.isSymbolicLink()) {
    let target: string;
    try {
      target = fs.realpathSync(storeDir);
    } catch {
      throw refuse('is a symbolic link to a missing target');
    }
    if (!inside(fs.realpathSync(folder), target)) throw refuse(`is a symbolic link to ${target}, outside the folder`);
    throw refuse(`is a symbolic link (to ${target})`);
  }
  if (!top.isDirectory()) throw new StoreLocationError(`${storeDir} is not a folder: move it away so that the index can be created there`);
  const pending = [storeDir];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isSymbolicLink()) throw refuse(`holds a symbolic link (${path.relative(storeDir, p)})`);
      if (e.isDirectory()) pending.push(p);
    }
  }
}
