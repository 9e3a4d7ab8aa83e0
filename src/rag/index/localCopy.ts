// Whether the reader's copy of a cited file is the one the index was built from. A team's shared index is built from
// the builder's checkout and cited from each member's own: the stored content hash tells a member when the file they
// open differs from the text the answer quotes.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { hashFile } from './plan';

export type LocalCopy = 'same' | 'differs' | 'missing';

/** For each distinct cited path (relative to `folder`) with the hash it was indexed with: how the local file compares. */
export async function compareLocalCopies(folder: string, cited: { path: string; fileHash: string }[]): Promise<Map<string, LocalCopy>> {
  const out = new Map<string, LocalCopy>();
  for (const c of cited) {
    if (out.has(c.path)) continue;
    const abs = path.join(folder, c.path);
    // A stored path is relative and normalised by the indexer; one that would leave the folder is not looked at.
    if (path.relative(folder, abs).startsWith('..') || path.isAbsolute(c.path)) {
      out.set(c.path, 'missing');
      continue;
    }
    let size: number;
    try {
      const st = await fs.promises.stat(abs);
      if (!st.isFile()) throw new Error('not a file');
      size = st.size;
    } catch {
      out.set(c.path, 'missing');
      continue;
    }
    out.set(c.path, (await hashFile(abs, size)) === c.fileHash ? 'same' : 'differs');
  }
  return out;
}
