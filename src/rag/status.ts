// What an index holds, which embedder built it, its last run and its per-file problems: `docs-rag status --json` and the
// MCP `status` tool print this (both hosts read it here, so neither imports the other).
import { mergeConfig } from './engine';
import { readRecordedSettings, recordedSettings, type RecordedSettings } from './config';
import { isAlive } from './index/writerLock';
import { readVectorIndexInfo, type VectorIndexInfo } from './store';
import type { IndexMeta, IndexStore } from './store/types';
import type { LinkKind } from './types';

export interface StatusReport {
  indexed: true;
  folder: string;
  store: string;
  files: { total: number; indexed: number; skipped: number; error: number };
  passages: { total: number; L0: number; L1: number; L2: number };
  /** Passages with their vector, of all (a slow embedder's vectors are filled after the text is written). */
  vectors: { filled: number; total: number };
  /** The last vector-index build (its partitions, all searched; mode 'exact' only from versions before 2026-11-27); null when none was trained. */
  vectorIndex: VectorIndexInfo | null;
  /** Edges of the reference graph that resolve now (both ends in the index), by kind; 0 for a store built before links. */
  links: number;
  linksByKind: Record<LinkKind, number>;
  /** Stored references whose target is not in the index (a § of a law not indexed, a link to a missing file). */
  unresolvedLinks: number;
  /** When the link counts were taken, and whether a run changed files since (the maintenance after it counts again). */
  linksCounted: { at: number; pending: boolean } | null;
  embedder: IndexMeta['embedder'] | null;
  schemaVersion: number | null;
  /** Written with another version of the tables' schema: searched as empty until the next index run rebuilds it. */
  schemaOutdated: boolean;
  lastRun: IndexMeta['lastRun'] | null;
  /** The settings the last run recorded (null: built by a version before they were recorded). */
  settings: RecordedSettings | null;
  running: IndexMeta['runInProgress'] | null;
  interrupted: boolean;
  problems: { path: string; status: string; reason: string }[];
}

/** What `docs-rag status --json` prints for an existing index (also the MCP `status` tool). */
export async function statusReport(store: IndexStore, folder: string, storeDir: string): Promise<StatusReport> {
  const meta = store.meta();
  const records = await store.listFiles();
  const byStatus = { indexed: 0, skipped: 0, error: 0 };
  for (const r of records) byStatus[r.status]++;
  const passages = {
    total: await store.countPassages(),
    L0: await store.countPassages({ levels: [0] }),
    L1: await store.countPassages({ levels: [1] }),
    L2: await store.countPassages({ levels: [2] }),
  };
  const vectors = await store.vectorCounts();
  // Counted by the index maintenance (reading every link row costs in proportion to the corpus), not here.
  const graph = meta?.linkCounts?.counts ?? null;
  const problems = records.filter((r) => r.status !== 'indexed').map((r) => ({ path: r.path, status: r.status, reason: r.reason }));
  return {
    indexed: true,
    folder,
    store: storeDir,
    files: { total: records.length, ...byStatus },
    passages,
    vectors,
    vectorIndex: readVectorIndexInfo(store.dir),
    links: graph?.links ?? 0,
    linksByKind: graph?.byKind ?? { link: 0, reference: 0, name: 0, definition: 0 },
    unresolvedLinks: graph?.unresolved ?? 0,
    linksCounted: meta?.linkCounts ? { at: meta.linkCounts.at, pending: meta.maintenance?.countLinks === true } : null,
    embedder: meta?.embedder ?? null,
    schemaVersion: meta?.schemaVersion ?? null,
    schemaOutdated: store.schemaOutdated(),
    lastRun: meta?.lastRun ?? null,
    // What a run without flags uses: the recorded settings (their well-formed part), the defaults for the rest.
    settings: meta?.settings ? recordedSettings(mergeConfig({}, readRecordedSettings(meta.settings))) : null,
    running: meta?.runInProgress && isAlive(meta.runInProgress.pid) ? meta.runInProgress : null,
    interrupted: !!meta?.runInProgress && !isAlive(meta.runInProgress.pid),
    problems,
  };
}
