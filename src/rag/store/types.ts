// The seam between the indexer / retrieval stages and the LanceDB store.
import type { RecordedSettings } from '../config';
import type { EmbedderInfo, IndexedPassage, Lang, Level, LinkRow, Passage, SearchHit } from '../types';
import type { ResolvedLink } from '../links/resolve';
import type { LinkCounts } from './links';

export type { ResolvedLink, LinkCounts };

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
  /**
   * The pipeline key that built its passages: embedder id and model, enrichments, chunk settings and pipeline version,
   * OCR, and the limit that refused it (index/keys.ts, index/plan.ts). Stored in the files table's `embedder` column
   * (its name before the rename, kept so existing indexes open unchanged).
   */
  pipelineKey: string;
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
  /** The query is one phrase per line (exact tokens such as `Cargo.toml`); a passage matches any of them as a phrase. */
  phrases?: boolean;
}

export interface VectorOptions extends SearchFilter {
  k: number;
  /** Also return each hit's stored vector (for MMR). */
  withVectors?: boolean;
  /** A scan of the table even when a vector index exists (slower; the same hits: tests and benchmarks compare them). */
  exact?: boolean;
}

/** Metadata of the whole index. */
export interface IndexMeta {
  embedder: EmbedderInfo;
  /** Schema version of our tables. */
  schemaVersion: number;
  lastRun?: {
    startedAt: number;
    finishedAt: number;
    files: number;
    errors: number;
    unchanged: number;
    /** Documents and folders the last walk of the whole folder left out by ignore files (kept across hinted runs). */
    ignored?: number;
  };
  /** The settings of the last run that wrote: which files, read how, enriched how (config.ts, RecordedSettings). */
  settings?: RecordedSettings;
  /** Set while a run writes; still set when a run opens means the last one was killed (crash recovery runs). */
  runInProgress?: { startedAt: number; pid: number };
  /** A run left its compaction to the vector-index step's process (`deferCompaction`); any optimize() clears it. */
  compactionDeferred?: boolean;
  /** The store folder's identity when the index was created here (meta.ts storeHome): another one means copied in. */
  home?: string;
}

/** One file's new content for `replaceFiles`. */
export interface FileUpdate {
  record: FileRecord;
  passages: IndexedPassage[];
  /** One per passage; empty with `vectorsPending`. */
  vectors: Float32Array[];
  /** The file's rows of the reference graph (links/extract.ts); written and removed with its passages. None: no links. */
  links?: LinkRow[];
  /**
   * The passages are written with their text and keyword columns now and placeholder vectors marked pending; the
   * vectors are filled later (`pendingVectors` / `fillVectors`). Vector search never returns a pending passage.
   */
  vectorsPending?: boolean;
}

/** A passage waiting for its vector: what the embedder embeds (indexText, German compound parts). */
export interface PendingVector {
  id: string;
  indexText: string;
  keywordParts?: string;
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

  /**
   * Binds the index to an embedder. An index built by another embedder/model/dimension (or an older schema) is emptied
   * first; returns true then (everything has to be re-embedded). Vectors of two models are never mixed.
   */
  useEmbedder(info: EmbedderInfo): Promise<boolean>;
  /** `replaceFile` for many files: one commit for the passages of all of them (each file all-or-nothing), then the records. */
  replaceFiles(updates: FileUpdate[]): Promise<void>;
  /** `recordFileStatus` for many files. */
  recordFileStatuses(records: FileRecord[]): Promise<void>;
  /** `removeFile` for many files. */
  removeFiles(paths: string[]): Promise<void>;
  /**
   * Marks a run as started (true) or cleanly finished (false); see IndexMeta.runInProgress. `settings`: the starting
   * run's, recorded in meta.json (the recorded ones are kept when absent).
   */
  markRun(inProgress: boolean, settings?: RecordedSettings): Promise<void>;
  /** After a killed run: drops passages whose file has no 'indexed' record (or another hash). Returns rows removed. */
  repair(): Promise<number>;

  countPassages(filter?: SearchFilter): Promise<number>;
  fullTextSearch(query: string, options: FullTextOptions): Promise<SearchHit[]>;
  vectorSearch(vector: Float32Array, options: VectorOptions): Promise<SearchHit[]>;
  getPassages(ids: string[]): Promise<Passage[]>;
  /** All passages of one file in document order (optionally only some levels). */
  getFilePassages(path: string, levels?: Level[]): Promise<Passage[]>;
  getVectors(ids: string[]): Promise<Map<string, Float32Array>>;

  // Optional capabilities: a store without them still works (the indexer falls back as documented per member).

  /**
   * Appends the passages of files that have none in the index yet (a plain append, no merge); without it the indexer
   * uses `replaceFiles`. Never used after a killed run (a file may then have leftover rows).
   */
  addNewFiles?(updates: FileUpdate[]): Promise<void>;
  /** Creates missing keyword/scalar/vector indexes now (called after a new index's first write, so it answers at once). */
  ensureIndexes?(o?: { /** false: keyword and scalar indexes only (the vector index is a later step). */ vector?: boolean }): Promise<unknown>;
  /** Trains the vector index if it is missing or stale (the step after a run that left it out); true when it trained. */
  buildVectorIndexIfDue?(): Promise<boolean>;
  /** Whether buildVectorIndexIfDue() would train now (cheap: counts and the recorded build). */
  vectorIndexDue?(): Promise<boolean>;
  /**
   * Passages waiting for their vector (at most `limit`, in storage order); with `ids`, those of them still waiting.
   * Without this method every write carries its vectors.
   */
  pendingVectors?(limit: number, ids?: string[]): Promise<PendingVector[]>;
  /**
   * Ids of passages waiting for their vector with the storage unit each is in (LanceDB: its fragment; a fill commits one
   * unit's rows together), at most `limit`, in storage order; no texts read.
   */
  pendingVectorUnits?(limit: number): Promise<{ id: string; unit: number }[]>;
  /**
   * Writes vectors of pending passages by id (one commit, under the writer lock; the caller checks with
   * `pendingVectors(n, ids)` that the passages still wait with the text it embedded); a passage removed meanwhile is left
   * out. Returns the rows filled.
   */
  fillVectors?(items: { id: string; vector: Float32Array }[]): Promise<number>;
  /** Passages with a real vector and all passages. */
  vectorCounts?(): Promise<{ filled: number; total: number }>;
  /** Names of the indexes on the passages table; without it the indexer assumes they exist. */
  indexNames?(): Promise<string[]>;
  /**
   * Rows the keyword indexes cover and rows outside them; null without an index. A run that wrote nothing skips its
   * optimize when nothing is outside (without this method it always optimizes).
   */
  keywordIndexCoverage?(): Promise<{ indexed: number; unindexed: number; share: number } | null>;
  /**
   * The German passages (path, level, text, lang) for a recount of the compound splitter's vocabulary; without it the
   * indexer keeps the vocabulary incrementally only (added and subtracted per file) and never recounts.
   */
  germanPassages?(): Promise<Pick<IndexedPassage, 'path' | 'level' | 'text' | 'lang'>[]>;
  /**
   * Recomputes the compound parts (`parts(text)`) of the German passages of `paths` and, with `embed`, their vectors;
   * returns the rows rewritten. Without it passages keep the parts they were written with (split with the counts known
   * at that moment).
   */
  rewriteKeywordParts?(paths: string[], parts: (text: string) => string, embed?: (texts: string[]) => Promise<Float32Array[]>): Promise<number>;

  /** Resolved edges of the reference graph leaving or reaching these passages (one hop); [] for a store without links. */
  linksOf?(ids: string[]): Promise<ResolvedLink[]>;
  /** Size of the reference graph by kind; null when the store has no links table (built before it existed). */
  linkCounts?(): Promise<LinkCounts | null>;

  /**
   * Brings every row under the keyword and scalar indexes, the vector index left out: by building them anew when most
   * rows are outside them, then leaving the compaction to a later optimize() (returns true: optimize is due), or by
   * optimize() itself (false). Without it the indexer calls optimize().
   */
  indexForSearch?(options?: { deleteUnverified?: boolean }): Promise<boolean>;
  /**
   * Leaves the compaction a large run owes (indexForSearch returned true) to the vector-index step, which runs it in a
   * fresh process of its own before the training (`compactionDeferred`); without it the run compacts.
   */
  deferCompaction?(): Promise<void>;
  /** Whether a run deferred its compaction and no optimize() has run since. */
  compactionDeferred?(): boolean;
  /** Folds unindexed rows into the indexes and prunes old versions (and clears `compactionDeferred`). Debounced by the caller. */
  optimize(options?: {
    /** Also delete files no version references (after a killed run). */
    deleteUnverified?: boolean;
    /** false: leave the vector index (training) to a later buildVectorIndexIfDue(); default true. */
    vectorIndex?: boolean;
  }): Promise<void>;
  close(): Promise<void>;
}
