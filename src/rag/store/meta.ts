// The index's metadata file (`meta.json` in the store folder), written atomically (tmp file + fsync + rename).
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { IndexMeta } from './types';

export const META_FILE = 'meta.json';

export function readMeta(dir: string): IndexMeta | null {
  try {
    const raw = fs.readFileSync(path.join(dir, META_FILE), 'utf8');
    const meta = JSON.parse(raw) as IndexMeta;
    if (!meta || typeof meta !== 'object' || !meta.embedder) return null;
    // Indexes written before vector layouts existed hold 32-bit floats.
    meta.embedder.vectorLayout ??= 'float';
    return meta;
  } catch {
    return null;
  }
}

/**
 * The store folder's identity on this machine (device and inode). An index records it when it is created; a store whose
 * folder has another identity was copied, cloned or unpacked here (a repository can ship a `.docs-rag/`): its passages
 * were not made from these files by this program, so nothing of it is trusted and it is rebuilt. The identity cannot
 * be forged in advance, and nothing outside the folder and the store needs to be written to know it.
 */
export function storeHome(dir: string): string {
  try {
    const st = fs.statSync(dir, { bigint: true });
    return `${st.dev}:${st.ino}`;
  } catch {
    return '';
  }
}

export function writeMeta(dir: string, meta: IndexMeta): void {
  fs.mkdirSync(dir, { recursive: true });
  writeJsonAtomic(path.join(dir, META_FILE), meta);
}

/** Writes JSON to `target` via a fsynced tmp file and rename: readers see the old or the new content, never a part. */
export function writeJsonAtomic(target: string, value: unknown): void {
  const tmp = `${target}.${process.pid}.${Date.now()}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    fs.writeSync(fd, JSON.stringify(value, null, 2));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, target);
}
