// Messages between the extension host and its indexing process (src/indexProcess/main.ts), over Node's IPC channel.
// Plain JSON data only. Neutral: imports neither `vscode` nor the engine's modules (types only).
import type { EngineConfigOverrides } from '../rag/engine';
import type { IndexProgress, IndexRunResult } from '../rag/index/indexer';

/**
 * glibc malloc settings of every indexing process (the extension's child, `docs-rag index` on Linux), which lower its
 * peak resident memory: two arenas instead of one per allocating thread (LanceDB's, the
 * parsers'), and blocks of 128 KB and more mapped on their own and trimmed, so what a step frees (a batch, an index
 * build) goes back to the system instead of staying in the arenas. They take effect only at process start.
 */
export const INDEXING_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_TRIM_THRESHOLD_: '131072',
};

/**
 * Node flags of the indexing process, in the main thread and the parser workers (V8 flags apply to every isolate): a
 * young generation of 2 MB semi-spaces instead of 16 MB, and an old generation that grows by 20 % before the next full
 * collection (V8 otherwise lets a fast-allocating heap grow by up to 4×, and the garbage of a large run's batches piles
 * up before it is collected). Each isolate keeps less space, and a run peaks lower, for some more collector CPU
 * (`--optimize-for-size` gave the same memory for half again the CPU). Only at process start.
 */
export const INDEXING_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2', '--heap-growing-percent=20'];

/** The flags a child gets: INDEXING_NODE_FLAGS unless `execArgv` sets the same flag (the user's value wins). */
export function withIndexingFlags(execArgv: readonly string[]): string[] {
  const own = (f: string) => execArgv.some((a) => a.split('=')[0] === f.split('=')[0]);
  return [...INDEXING_NODE_FLAGS.filter((f) => !own(f)), ...execArgv];
}

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
