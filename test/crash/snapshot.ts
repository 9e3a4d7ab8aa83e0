// Helpers shared by the crash and incremental tests: a comparable snapshot of an index, and workspace copies.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openEngine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';
import { openStore } from '../../src/rag/store';

export { REALDOCS, SHARED, WORKSPACE } from '../helpers/shared';

export interface IndexSnapshot {
  /** Sorted "path \t level \t chunkPath \t text" lines, one per passage (a multiset). */
  passages: string[];
  ids: string[];
  duplicateIds: string[];
  /** Sorted "path \t status \t passages" lines. */
  files: string[];
  /** Sorted rows of the links table (reference graph) and the number of edges that resolve. */
  links: string[];
  resolvedLinks: number;
}

export async function snapshot(storeDir: string): Promise<IndexSnapshot> {
  const store = await openStore(storeDir);
  try {
    const all = await store.scanPassages();
    const seen = new Set<string>();
    const duplicateIds: string[] = [];
    for (const p of all) {
      if (seen.has(p.id)) duplicateIds.push(p.id);
      seen.add(p.id);
    }
    const files = (await store.listFiles()).map((f) => `${f.path}\t${f.status}\t${f.passages}`).sort();
    const links = (await store.scanLinks()).map((l) => [l.role, l.path, l.kind, l.key, l.from, l.to, l.anchor].join('\t')).sort();
    return {
      passages: all.map((p) => `${p.path}\t${p.level}\t${p.chunkPath}\t${p.text}`).sort(),
      ids: all.map((p) => p.id).sort(),
      duplicateIds,
      files,
      links,
      resolvedLinks: (await store.linkCounts())?.links ?? 0,
    };
  } finally {
    await store.close();
  }
}

/** Copies a folder tree (files only). */
export function copyTree(from: string, to: string, filter: (rel: string) => boolean = () => true, base = from): void {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, e.name);
    const rel = path.relative(base, src);
    if (!filter(rel)) continue;
    if (e.isDirectory()) copyTree(src, path.join(to, e.name), filter, base);
    else if (e.isFile()) fs.copyFileSync(src, path.join(to, e.name));
  }
}

/** The snapshot of a clean build of `folder` in a new, temporary store (removed afterwards). */
export async function cleanBuild(folder: string): Promise<IndexSnapshot> {
  const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-clean-'));
  const engine = await openEngine({ folder, storeDir });
  try {
    await indexFolder(engine);
  } finally {
    await engine.close();
  }
  const snap = await snapshot(storeDir);
  fs.rmSync(storeDir, { recursive: true, force: true });
  return snap;
}
