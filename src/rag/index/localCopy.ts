// Whether the reader's copy of a cited file is the one the index was built from. A team's shared index is built from
// the builder's checkout and cited from each member's own: the stored content hash tells a member when the file they
// open differs from the text the answer quotes. Node's fs and crypto only (the extension host uses it too).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { hashFile } from './fileHash';

export type LocalCopy = 'same' | 'differs' | 'missing';

/** How the file at `rel` in `folder` compares with the content hash it was indexed with. */
export async function compareLocalCopy(folder: string, rel: string, fileHash: string): Promise<LocalCopy> {
  const abs = path.join(folder, rel);
  // A stored path is relative and normalised by the indexer; one that would leave the folder is not looked at.
  if (path.isAbsolute(rel) || path.relative(folder, abs).startsWith('..')) return 'missing';
  try {
    if (!(await fs.promises.stat(abs)).isFile()) return 'missing';
    return (await hashFile(abs)) === fileHash ? 'same' : 'differs';
  } catch {
    return 'missing';
  }
}

/** For each distinct cited path (relative to `folder`) with the hash it was indexed with: how the local file compares. */
export async function compareLocalCopies(folder: string, cited: { path: string; fileHash: string }[]): Promise<Map<string, LocalCopy>> {
  const out = new Map<string, LocalCopy>();
  for (const c of cited) if (!out.has(c.path)) out.set(c.path, await compareLocalCopy(folder, c.path, c.fileHash));
  return out;
}
