// Messages between the extension host and its indexing process (src/indexProcess/main.ts), over Node's IPC channel.
// Plain JSON data only. Neutral: imports neither `vscode` nor the engine's modules (types only).
import type { EngineConfigOverrides } from '../rag/engine';
import type { IndexProgress, IndexRunResult } from '../rag/index/indexer';

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
