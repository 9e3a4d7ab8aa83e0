// The seam between the indexer / retrieval stages and the LanceDB store.
import type { RecordedSettings } from '../config';
import type { EmbedderInfo, IndexedPassage, Lang, Level, LinkRow, Passage, SearchHit } from '../types';
import type { ResolvedLink } from '../links/resolve';
import type { LinkCounts } from './links';
import type { LeaseHolder } from './remoteLease';
import type { VectorCode } from './vectorCodes';

export type { ResolvedLink, LinkCounts };

/** What the index lifecycle plan (index/lifecycle.ts) decides on: read from counts, index statistics and meta.json. */
export interface IndexFacts {
  /** Rows of the passages table. */
  rows: number;
  /** Rows whose vector is a placeholder that the fill has not written yet. */
  pendingVectors: number;
  /** Rows under the keyword (FTS) indexes and rows outside them; null when the table has no keyword index. */
  keyword: { indexed: number; unindexed: number } | null;
  /** Whether the scalar indexes on `path` and `id` exist (deletes and lookups by path use them). */
  scalarIndexes: boolean;
  /** The vector index is missing, stale (the table more than doubled since training) or of another kind, and the table is large enough for one. */
  vectorIndexWanted: boolean;
  /** Fragments were appended or rewritten since the last compaction (recorded by the writer in meta.json). */
  compactionDue: boolean;
  /** A killed write or a stopped maintenance may have left files no version references (removed by the next optimize). */
  unverifiedFiles: boolean;
  /** The reference graph's counts that `status` shows (meta.json) are older than the last write, or missing. */
  linkCountsStale: boolean;
}

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

/** A vector hit before its passage is read (IndexStore.vectorSearchIds). */
export interface VectorHitId {
  id: string;
  level: Level;
  score: number;
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
  /**
   * What maintenance owes the index (index/lifecycle.ts): `optimizeDue` and `countLinks` are set by a run that wrote and
   * cleared by the optimize and the link count that follow; `unverified` after a stopped maintenance or a killed run (files no version references may be
   * left: the next optimize removes them); `running` while a maintenance process holds the writer lock; `lastStep` the
   * job kind and start of the latest step that ran (the order of runs and maintenance can be checked from outside).
   */
  maintenance?: {
    optimizeDue?: boolean;
    countLinks?: boolean;
    unverified?: boolean;
    running?: { pid: number; startedAt: number };
    lastStep?: { kind: string; startedAt: number };
  };
  /** The reference graph's size, counted by maintenance (reading every link row costs in proportion to the corpus). */
  linkCounts?: { at: number; counts: LinkCounts | null };
  /** The store folder's identity when the index was created here (meta.ts storeHome): another one means copied in. */
  home?: string;
}

/** A passage's vector as the writer receives it: the embedder's floats, or (layout 'codes') already encoded. */
export type StoredVector = Float32Array | VectorCode;

/** One file's new content for `replaceFiles`. */
export interface FileUpdate {
  record: FileRecord;
  passages: IndexedPassage[];
  /** One per passage; empty with `vectorsPending`. */
  vectors: StoredVector[];
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
  /** The local folder of the store's small files and writer lock (a remote store's mirror: see remote.ts). */
  readonly dir: string;
  /** What the store was opened at: the folder, or the object-store URI. */
  readonly uri: string;
  /** Whether the tables live in object storage (a team's shared index). */
  readonly remote: boolean;
  /** The identity an index created here records (meta.home): the folder's on this machine, or the remote URI. */
  home(): string;
  /** Publishes the small files this process changed to a remote store (a local store: nothing to do). */
  publish(): Promise<void>;
  /**
   * Takes a remote store's writer lease, which orders the writers of different machines (store/remoteLease.ts; a local
   * store: nothing to take); throws RemoteLeaseBusyError when another writer holds it and `wait` is false.
   */
  takeWriterLease(o: { purpose: string; wait: boolean; signal?: AbortSignal; onWait?: (holder: LeaseHolder) => void }): Promise<() => Promise<void>>;
  /** Takes the small files a remote store's writer published since (a local store: nothing to do). */
  refresh(): Promise<void>;
  /** Metadata, or null for an empty / new index. */
  meta(): IndexMeta | null;
  /** Whether the index was written with another version of the tables' schema: it reads as empty until rebuilt. */
  schemaOutdated(): boolean;
  setLastRun(lastRun: NonNullable<IndexMeta['lastRun']>): Promise<void>;

  listFiles(): Promise<FileRecord[]>;
  /**
   * Replaces every passage of `record.path` with `passages` (vectors in the same order) and writes the
   * file record, as one unit: a crash leaves either the old or the new passages, never a mix.
   */
  replaceFile(record: FileRecord, passages: IndexedPassage[], vectors: StoredVector[]): Promise<void>;
  /** Writes a file record without passages (skipped / error / unchanged-mtime update). Removes old passages. */
  recordFileStatus(record: FileRecord): Promise<void>;
  /** Removes a file's passages and its record. */
  removeFile(path: string): Promise<void>;

  /**
   * Binds the index to an embedder. An index built by another embedder/model/dimension (or an older schema) is emptied
   * first; returns true then (everything has to be re-embedded). Vectors of two models are never mixed.
   */
  useEmbedder(info: EmbedderInfo): Promise<boolean>;
  /** `replaceFile` for many files: their old passages deleted, the new ones appended, then their links and records (a killed write is redone by the next run's repair). */
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
  /**
   * The same search, returning each hit's id, level and score only: reading the passages' columns of every candidate
   * costs a search about as much as finding them, and most are dropped by the fusion or are keyword hits already.
   */
  vectorSearchIds(vector: Float32Array, options: VectorOptions): Promise<VectorHitId[]>;
  getPassages(ids: string[]): Promise<Passage[]>;
  /** All passages of one file in document order (optionally only some levels). */
  getFilePassages(path: string, levels?: Level[]): Promise<Passage[]>;
  getVectors(ids: string[]): Promise<Map<string, Float32Array>>;

  /**
   * Appends the passages of files that have none in the index yet (a plain append, no merge). Never used after a killed
   * run (a file may then have leftover rows): the indexer uses `replaceFiles` then.
   */
  addNewFiles(updates: FileUpdate[]): Promise<void>;
  /** Creates missing keyword/scalar/vector indexes now (called after a new index's first write, so it answers at once). */
  ensureIndexes(o?: { /** false: keyword and scalar indexes only (the vector index is a later step). */ vector?: boolean }): Promise<unknown>;
  /** Trains the vector index if it is missing or stale (the step after a run that left it out); true when it trained. */
  buildVectorIndexIfDue(): Promise<boolean>;
  /** Whether buildVectorIndexIfDue() would train now (cheap: counts and the recorded build). */
  vectorIndexDue(): Promise<boolean>;
  /**
   * Passages waiting for their vector (at most `limit`, in storage order); with `ids`, those of them still waiting.
   */
  pendingVectors(limit: number, ids?: string[]): Promise<PendingVector[]>;
  /**
   * Ids of passages waiting for their vector with the storage unit each is in (LanceDB: its fragment; a fill commits one
   * unit's rows together), at most `limit`, in storage order; no texts read.
   */
  pendingVectorUnits(limit: number): Promise<{ id: string; unit: number }[]>;
  /**
   * Writes vectors of pending passages by id (one commit, under the writer lock; the caller checks with
   * `pendingVectors(n, ids)` that the passages still wait with the text it embedded); a passage removed meanwhile is left
   * out. Returns the rows filled.
   */
  fillVectors(items: { id: string; vector: Float32Array }[]): Promise<number>;
  /** Passages with a real vector and all passages. */
  vectorCounts(): Promise<{ filled: number; total: number }>;
  /** Names of the indexes on the passages table. */
  indexNames(): Promise<string[]>;
  /**
   * Rows the keyword indexes cover and rows outside them; null without an index.
   */
  keywordIndexCoverage(): Promise<{ indexed: number; unindexed: number; share: number } | null>;
  /**
   * Calls `each` with the German passages (path, level and, with `withText`, text) batch by batch, never all at once:
   * a recount of the compound splitter's vocabulary reads the whole table.
   */
  eachGermanPassage(withText: boolean, each: (batch: Pick<IndexedPassage, 'path' | 'level' | 'text'>[]) => void): Promise<void>;
  /**
   * Recomputes the compound parts (`parts(text)`) of the German passages of `paths` and, with `embed`, their vectors;
   * returns the rows rewritten (after a recount, the parts a passage was written with were split with older counts).
   */
  rewriteKeywordParts(paths: string[], parts: (text: string) => string, embed?: (texts: string[]) => Promise<Float32Array[]>): Promise<number>;

  /** Resolved edges of the reference graph leaving or reaching these passages (one hop); [] for an index built before the links table. */
  linksOf(ids: string[]): Promise<ResolvedLink[]>;
  /** Size of the reference graph by kind; null when the store has no links table (built before it existed). */
  linkCounts(): Promise<LinkCounts | null>;

  /** The facts the lifecycle plan decides on (index/lifecycle.ts): counts, index coverage and meta.json only, no rows read. */
  maintenanceFacts(): Promise<IndexFacts>;
  /** Builds the keyword (FTS) and scalar indexes over the table as it stands, replacing those that exist. */
  buildKeywordIndexes(): Promise<void>;
  /** Records what maintenance owes or did (meta.json `maintenance`), merged into what is recorded. */
  noteMaintenance(change: NonNullable<IndexMeta['maintenance']>): Promise<void>;
  /** Counts the reference graph into meta.json (what `status` shows without reading every link row). */
  recordLinkCounts(): Promise<void>;
  /** Folds unindexed rows into the indexes, compacts fragments and prunes old versions (and clears `maintenance.optimizeDue`). */
  optimize(options?: {
    /** Also delete files no version references (after a killed run). */
    deleteUnverified?: boolean;
    /** false: leave the vector index (training) to a later buildVectorIndexIfDue(); default true. */
    vectorIndex?: boolean;
  }): Promise<void>;
  close(): Promise<void>;
}
