// The seam between the indexer / retrieval stages and the LanceDB store.
import type { EmbedderInfo, IndexedPassage, Lang, Level, Passage, SearchHit } from '../types';

export type FileStatus = 'indexed' | 'skipped' | 'error';

/** One row of the files table: what the indexer knows about a file. */
export interface FileRecord {
  /** Relative path with '/' separators. */
  path: string;
  size: number;
  mtimeMs: number;
  /** sha256 hex of the file content. */
  hash: string;
  status: FileStatus;
  /** Why a file is skipped / in error ("skipped: password-protected", parser message...). */
  reason: string;
  /** Number of passages (all levels) stored for this file. */
  passages: number;
  /** `${embedder.id}:${embedder.model}` that embedded it. */
  embedder: string;
  /** Epoch ms of the run that wrote it. */
  indexedAt: number;
}

export interface SearchFilter {
  /** Only these levels (default: all). */
  levels?: Level[];
  /** Only these relative paths. */
  paths?: string[];
}

export interface FullTextOptions extends SearchFilter {
  k: number;
  /** Language of the query; picks the analysis. Undefined: search both language columns. */
  lang?: Lang;
}

export interface VectorOptions extends SearchFilter {
  k: number;
  /** Also return each hit's stored vector (for MMR). */
  withVectors?: boolean;
}

/** Metadata of the whole index. */
export interface IndexMeta {
  embedder: EmbedderInfo;
  /** Schema version of our tables. */
  schemaVersion: number;
  lastRun?: { startedAt: number; finishedAt: number; files: number; errors: number; unchanged: number };
}

export interface IndexStore {
  readonly dir: string;
  /** Metadata, or null for an empty / new index. */
  meta(): IndexMeta | null;
  setLastRun(lastRun: NonNullable<IndexMeta['lastRun']>): Promise<void>;

  listFiles(): Promise<FileRecord[]>;
  /**
   * Replaces every passage of `record.path` with `passages` (vectors in the same order) and writes the
   * file record, as one unit: a crash leaves either the old or the new passages, never a mix.
   */
  replaceFile(record: FileRecord, passages: IndexedPassage[], vectors: Float32Array[]): Promise<void>;
  /** Writes a file record without passages (skipped / error / unchanged-mtime update). Removes old passages. */
  recordFileStatus(record: FileRecord): Promise<void>;
  /** Removes a file's passages and its record. */
  removeFile(path: string): Promise<void>;

  countPassages(filter?: SearchFilter): Promise<number>;
  fullTextSearch(query: string, options: FullTextOptions): Promise<SearchHit[]>;
  vectorSearch(vector: Float32Array, options: VectorOptions): Promise<SearchHit[]>;
  getPassages(ids: string[]): Promise<Passage[]>;
  /** All passages of one file in document order (optionally only some levels). */
  getFilePassages(path: string, levels?: Level[]): Promise<Passage[]>;
  getVectors(ids: string[]): Promise<Map<string, Float32Array>>;

  /** Folds unindexed rows into the indexes and prunes old versions. Debounced by the caller. */
  optimize(): Promise<void>;
  close(): Promise<void>;
}
