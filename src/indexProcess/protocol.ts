// Messages between the extension host and its indexing process (src/indexProcess/main.ts), over Node's IPC channel.
// Plain JSON data only. Neutral: imports neither `vscode` nor the engine's modules (types only).
import type { EngineConfigOverrides } from '../rag/engine';
import type { IndexProgress, IndexRunResult } from '../rag/index/indexer';

/**
 * glibc malloc settings of every indexing process (the extension's child, `docs-rag index` on Linux), measured in
 * BENCHMARKS.md ("Indexing process and memory"): two arenas instead of one per allocating thread (LanceDB's, the
 * parsers'), and blocks of 128 KB and more mapped on their own and trimmed, so what a step frees (a batch, an index
 * build) goes back to the system instead of staying in the arenas. They take effect only at process start.
 * And two LanceDB settings, measured in BENCHMARKS.md (issue 15, "time to searchable"): its older IVF shuffler, which
 * keeps less of the vectors in memory while it trains the vector index (that step at 101k passages 655 → 545 MB), and
 * scans in batches of 1,024 rows instead of 8,192 (1,024-dim vectors: 4 MB instead of 32 MB a batch; compaction at 54k
 * passages 473 → 391 MB, IVF training at 101k 545 → 446 MB). Undocumented switches of Lance: a version without them
 * ignores them (those steps then peak higher again).
 */
export const INDEXING_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '131072',
  LANCE_LEGACY_SHUFFLER: '1',
  LANCE_DEFAULT_BATCH_SIZE: '1024',
};

/** One index the process may write: a workspace folder and its store, with the engine settings. */
export interface FolderSpec {
  /** Stable key (the folder's URI). */
  key: string;
  name: string;
  folder: string;
  storeDir: string;
  config: EngineConfigOverrides;
}

export type ToChild =
  /** The folders and settings (sent at start and whenever settings, trust or workspace folders change). */
  | { type: 'configure'; folders: FolderSpec[] }
  | { type: 'run'; id: number; key: string; full?: boolean; paths?: string[] }
  | { type: 'cancel'; id: number }
  /** Cancel everything, close the engines and exit. */
  | { type: 'shutdown' };

export type FromChild =
  | { type: 'ready'; pid: number }
  /** A merged run of one folder starts (several requests may share it). */
  | { type: 'started'; key: string; what: string }
  | { type: 'progress'; id: number; progress: IndexProgress }
  | { type: 'result'; id: number; result: IndexRunResult }
  | { type: 'error'; id: number; name: string; message: string }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string };
