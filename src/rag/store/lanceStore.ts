// IndexStore on LanceDB: a `passages` table (text, locations, per-language FTS columns, vector), a `files` table
// (one FileRecord per file) and meta.json. A file's passages are replaced by a delete and an append; its record is
// written last, so a run killed in between leaves a record the next run's repair detects and redoes.
import './quietLogs';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { VECTOR_INDEX_BITS, VECTOR_INDEX_FILE, VECTOR_INDEX_MIN_ROWS, readVectorIndexInfo, vectorIndexKind, vectorRefineFactor, type VectorIndexInfo } from './vectorIndexInfo';
import type { Connection, Table } from '@lancedb/lancedb';
import { BooleanQuery, Index, MatchQuery, Occur, PhraseQuery, type FullTextQuery } from '@lancedb/lancedb';
import type { RecordedSettings } from '../config';
import type { EmbedderInfo, Lang, Level, LinkRow, Passage, SearchHit, VectorLayout } from '../types';
import type {
  FileRecord, FileUpdate, FullTextOptions, IndexFacts, IndexMeta, IndexStore, PendingVector, SearchFilter, VectorHitId, VectorOptions,
} from './types';
import { readMeta, storeHome, writeJsonAtomic, writeMeta } from './meta';
import {
  FILES_TABLE, PASSAGE_COLUMNS, PASSAGES_TABLE, SCHEMA_VERSION, fileToRow, filesSchema, passageToRow, passagesSchema,
  rowText, rowToFile, rowToPassage, sqlIn, sqlString, vectorColumnNames, vectorColumns, vectorFields, vectorFillSchema, type PassageRow,
} from './schema';
import { codeBytes, codeCandidates, codeDot, decodeVector, queryCode } from './vectorCodes';
import { PARTS_MARK, withParts, withoutParts } from '../text/compounds';
import { withCommitRetry } from './retry';
import { eachRow, rowsWithBytes, toArrowTable } from './arrowRows';
import { LINKS_TABLE, LinksTable, dropIfExists, type LinkCounts } from './links';
import { storageOptionsFromEnv, storeLocation, type StoreLocation } from './remote';
import { SideFiles } from './sideFiles';
import { takeLease, type LeaseHolder } from './remoteLease';
import type { ResolvedLink } from '../links/resolve';

/** Vector search and MMR see only passages whose vector is filled (a slow embedder's are filled after the text). */
const FILLED = 'vectorPending = false';
/** Each open table's column types by name, read once (a failed read is tried again next time). */
const columnTypes = new WeakMap<Table, Promise<Map<string, string>>>();
function columnTypesOf(table: Table): Promise<Map<string, string>> {
  let types = columnTypes.get(table);
  if (!types) {
    types = table.schema().then((sc) => new Map(sc.fields.map((f) => [f.name, String(f.type)])));
    types.catch(() => columnTypes.delete(table));
    columnTypes.set(table, types);
  }
  return types;
}

/** Whether a passages table has the `vectorPending` column (an index of schema 2 has not, until its next run rebuilds it). */
function hasPendingColumn(table: Table): Promise<boolean> {
  return columnTypesOf(table).then((types) => types.has('vectorPending'), () => false);
}

/** The passages table rows of some files' updates (placeholder zero vectors, marked pending, where `vectorsPending`). */
function updateRows(updates: FileUpdate[], { dim, layout }: VectorShape): PassageRow[] {
  const rows: PassageRow[] = [];
  for (const u of updates) {
    if (u.vectorsPending) {
      const zeros = new Float32Array(dim);
      for (const p of u.passages) rows.push(passageToRow(p, zeros, layout, true));
      continue;
    }
    if (u.passages.length !== u.vectors.length) {
      throw new Error(`${u.record.path}: ${u.passages.length} passages but ${u.vectors.length} vectors`);
    }
    for (let i = 0; i < u.passages.length; i++) {
      const v = u.vectors[i];
      const length = v instanceof Float32Array ? v.length : layout === 'codes' && v.codes.length === codeBytes(dim).codes ? dim : -1;
      if (length !== dim) throw new Error(`${u.record.path}: vector dimension ${length < 0 ? 'of other codes' : length}, index expects ${dim}`);
      rows.push(passageToRow(u.passages[i], v, layout));
    }
  }
  return rows;
}

/** The embedder's dimension and how the index keeps its vectors (meta.json). */
interface VectorShape {
  dim: number;
  layout: VectorLayout;
}

function arrowRows(schema: ReturnType<typeof passagesSchema>, rows: Record<string, unknown>[]) {
  const plain = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, ArrayBuffer.isView(v) ? Array.from(v as Uint8Array) : v]));
  return toArrowTable(schema, rows) ?? lancedb.makeArrowTable(rows.map(plain), { schema });
}

const IN_CHUNK = 500;
/** Rows rewritten per commit when only their keyword parts change (`rewriteKeywordParts`): ~16 MB of vectors. */
const REWRITE_ROWS = 4000;
/**
 * Files whose German keyword texts `rewriteKeywordParts` holds at once (twice: as stored and as rewritten): a chunk of
 * law books is tens of thousands of rows.
 */
const REWRITE_FILES = 100;
/**
 * Most passages one append converts and hands to LanceDB at once (its Arrow copy and IPC buffer: ~4 KB each per
 * row of 1,024 floats). A run's batches are about this size; only a larger file's rows are split into several commits.
 */
export const APPEND_ROWS = 2048;
/**
 * A LanceDB keyword (FTS) index is a snapshot: rows written after it are searched flat, with term statistics taken from
 * the index alone. When the rows it covers are replaced (a full run, a re-split, a vector fill) its coverage falls, and
 * near zero coverage BM25 ranks badly: a search during a full rebuild lost the best file entirely (eval workspace; test
 * in store.test.ts). So before a write that replaces rows, the writer folds the rows written since into the index
 * (optimize) when the write would leave it covering less than this share of the table and at least
 * KEYWORD_FOLD_MIN_ROWS wait outside it: about one fold per full run, a small share of its time.
 * Appends (new files) never lower the index's coverage of the old rows and are folded at the end of the run, as before;
 * a write into an index that covers less than the share already (after appends) leaves the fold to that optimize.
 */
const KEYWORD_INDEX_MIN_COVERAGE = 0.25;
const KEYWORD_FOLD_MIN_ROWS = 1000;

export interface OpenStoreOptions {
  /** See LanceDB's readConsistencyInterval; 0 (default) = every read sees the latest commit of any process. */
  readConsistencyInterval?: number;
  /**
   * Bytes LanceDB may keep of the indexes it read (its default: 6 GB, i.e. everything). A vector search reads every IVF
   * partition whole (all are searched: the IVF_RQ codes; an IVF_FLAT index holds the full vectors); capped below what
   * the index holds, searches read its partitions again and again.
   */
  indexCacheBytes?: number;
}

/**
 * Opens the store at `at`: a folder (made absolute: LanceDB reads some relative paths as cloud URIs, created when
 * missing) or an object-store URI (remote.ts), whose small files are first brought into their local mirror folder.
 * Throws StoreUriError for an unsupported or malformed URI.
 */
export async function openStore(at: string, options: OpenStoreOptions = {}): Promise<LanceStore> {
  const location = storeLocation(at);
  fs.mkdirSync(location.dir, { recursive: true });
  const readConsistencyInterval = options.readConsistencyInterval ?? 0;
  const storageOptions = location.remote ? storageOptionsFromEnv(location.remote.scheme) : undefined;
  // A Session is honoured only in the options-object form of connect() (a third argument is ignored).
  const db = options.indexCacheBytes
    ? await lancedb.connect({ uri: location.uri, readConsistencyInterval, storageOptions, session: new lancedb.Session(BigInt(options.indexCacheBytes)) })
    : await lancedb.connect(location.uri, { readConsistencyInterval, storageOptions });
  const sideFiles = location.remote ? new SideFiles(db, location.dir) : null;
  await sideFiles?.pull();
  const store = new LanceStore(location, db, sideFiles);
  await store.init();
  return store;
}

/** Partitions of the IVF index for a table of `rows` (sqrt(n)/4: see buildVectorIndex). */
export function vectorPartitions(rows: number): number {
  return Math.max(2, Math.round(Math.sqrt(rows) / 4));
}

export class LanceStore implements IndexStore {
  private metaCache: IndexMeta | null;
  private passages: Table | null = null;
  private files: Table | null = null;
  private filesCache: { version: number; byPath: Map<string, FileRecord> } | null = null;
  private links: LinksTable;

  /** The local folder of the store's small files and writer lock (for a remote store: its mirror, see remote.ts). */
  readonly dir: string;
  /** What the store was opened at: the folder, or the object-store URI. */
  readonly uri: string;
  readonly remote: boolean;

  constructor(
    location: StoreLocation,
    private readonly db: Connection,
    private readonly sideFiles: SideFiles | null,
  ) {
    this.dir = location.dir;
    this.uri = location.uri;
    this.remote = location.remote !== null;
    this.metaCache = readMeta(this.dir);
    this.links = new LinksTable(db, null, (n) => this.openIfComplete(n));
  }

  async init(): Promise<void> {
    // Opening never creates a table: another process may be creating it right now, and only the writer (holding the
    // writer lock, see index/writerLock.ts) creates tables, in useEmbedder().
    // Each table is opened by name, not listed: a listing of an object store's "folders" is not the same everywhere.
    // Tables of another schema version are not opened: this version's reads name columns they may lack (a search would
    // fail inside LanceDB). They read as an empty index until the next index run rebuilds them (useEmbedder).
    if (this.schemaOutdated()) return;
    this.files = await this.openIfComplete(FILES_TABLE);
    this.passages = await this.openIfComplete(PASSAGES_TABLE);
    const links = await this.openIfComplete(LINKS_TABLE);
    if (links) this.links = new LinksTable(this.db, links, (n) => this.openIfComplete(n));
  }

  /**
   * The identity the index records when it is created here (meta.home): the store folder's on this machine (meta.ts
   * storeHome), or a remote store's URI, which every member and builder opens by.
   */
  home(): string {
    return this.remote ? this.uri : storeHome(this.dir);
  }

  /** A remote store: publishes the small files this process changed (a local store: nothing to do). */
  async publish(): Promise<void> {
    await this.sideFiles?.push();
  }

  /**
   * A remote store: takes the writer's lease in the store (remoteLease.ts), which orders the writers of different
   * machines; a local store has the writer lock alone. Returns the release.
   */
  async takeWriterLease(o: { purpose: string; wait: boolean; signal?: AbortSignal; onWait?: (holder: LeaseHolder) => void }): Promise<() => Promise<void>> {
    if (!this.remote) return async () => undefined;
    return takeLease(this.db, this.uri, o);
  }

  /** A remote store: takes the small files the store's writer published since (a local store: nothing to do). */
  async refresh(): Promise<void> {
    await this.sideFiles?.pull();
  }

  /** Whether the index was written with another version of the tables' schema (unread; the next index run rebuilds it). */
  schemaOutdated(): boolean {
    return this.metaCache !== null && this.metaCache.schemaVersion !== SCHEMA_VERSION;
  }

  /** Read from disk each time (another process, e.g. the CLI next to the extension, may have changed it). */
  meta(): IndexMeta | null {
    this.metaCache = readMeta(this.dir);
    return this.metaCache;
  }

  private async saveMeta(meta: IndexMeta): Promise<void> {
    writeMeta(this.dir, meta);
    this.metaCache = meta;
    await this.publish();
  }

  async setLastRun(lastRun: NonNullable<IndexMeta['lastRun']>): Promise<void> {
    const meta = this.requireMeta();
    await this.saveMeta({ ...meta, lastRun });
  }

  async markRun(inProgress: boolean, settings?: RecordedSettings): Promise<void> {
    const meta = this.requireMeta();
    const next: IndexMeta = { ...meta, ...(settings ? { settings } : {}) };
    if (inProgress) next.runInProgress = { startedAt: Date.now(), pid: process.pid };
    else delete next.runInProgress;
    await this.saveMeta(next);
  }

  async noteMaintenance(change: NonNullable<IndexMeta['maintenance']>): Promise<void> {
    const meta = this.requireMeta();
    const next = { ...meta.maintenance, ...change };
    for (const key of Object.keys(next) as (keyof typeof next)[]) if (next[key] === undefined || next[key] === false) delete next[key];
    const { maintenance: _old, ...rest } = meta;
    await this.saveMeta(Object.keys(next).length > 0 ? { ...rest, maintenance: next } : rest);
  }

  async recordLinkCounts(): Promise<void> {
    const counts = await this.links.counts();
    await this.saveMeta({ ...this.requireMeta(), linkCounts: { at: Date.now(), counts } });
    await this.noteMaintenance({ countLinks: false });
  }

  async maintenanceFacts(): Promise<IndexFacts> {
    const meta = this.meta();
    const table = this.passages;
    const linkCountsStale = !meta?.linkCounts || meta.maintenance?.countLinks === true;
    const owed = { compactionDue: meta?.maintenance?.optimizeDue === true, unverifiedFiles: meta?.maintenance?.unverified === true };
    if (!table) return { rows: 0, pendingVectors: 0, keyword: null, scalarIndexes: false, vectorIndexWanted: false, linkCountsStale, ...owed };
    const rows = await table.countRows();
    const pendingVectors = (await hasPendingColumn(table)) ? await table.countRows('vectorPending = true') : 0;
    const have = new Set((await table.listIndices()).flatMap((i) => i.columns));
    const coverage = have.has('fts_en') && have.has('fts_de') ? await this.keywordIndexCoverage() : null;
    return {
      rows,
      pendingVectors,
      keyword: coverage ? { indexed: coverage.indexed, unindexed: coverage.unindexed } : null,
      scalarIndexes: have.has('path') && have.has('id'),
      vectorIndexWanted: this.vectorIndexWantedOn(rows, have),
      linkCountsStale,
      ...owed,
    };
  }

  private vectorShape(): VectorShape {
    const { dimension, vectorLayout } = this.requireMeta().embedder;
    return { dim: dimension, layout: vectorLayout };
  }

  private requireMeta(): IndexMeta {
    this.metaCache = readMeta(this.dir) ?? this.metaCache;
    if (!this.metaCache) throw new Error('The index has no embedder yet: call useEmbedder() first.');
    return this.metaCache;
  }

  async useEmbedder(info: EmbedderInfo): Promise<boolean> {
    const meta = this.meta();
    // An index made elsewhere (meta.home is another folder's identity) is reset like one of another embedder.
    const same =
      meta &&
      meta.home === this.home() &&
      meta.schemaVersion === SCHEMA_VERSION &&
      meta.embedder.id === info.id &&
      meta.embedder.model === info.model &&
      meta.embedder.dimension === info.dimension &&
      meta.embedder.vectorLayout === info.vectorLayout;
    if (same && this.passages && (await vectorColumnsMatch(this.passages, info))) return false;
    const existing = await this.openIfComplete(PASSAGES_TABLE);
    if (same && existing && (await vectorColumnsMatch(existing, info))) {
      // Created by another process after this store was opened: open it, never reset it.
      this.passages = existing;
      await this.openFiles();
      return false;
    }
    existing?.close();
    // Order matters for crash safety: meta is written last, so a killed reset is simply redone.
    await dropIfExists(this.db, FILES_TABLE);
    await dropIfExists(this.db, PASSAGES_TABLE);
    await this.links.drop();
    this.filesCache = null;
    fs.rmSync(path.join(this.dir, VECTOR_INDEX_FILE), { force: true });
    this.files = await this.db.createEmptyTable(FILES_TABLE, filesSchema(), { existOk: true });
    this.passages = await this.db.createEmptyTable(PASSAGES_TABLE, passagesSchema(info.dimension, info.vectorLayout), { existOk: true });
    await this.saveMeta({ embedder: { ...info }, schemaVersion: SCHEMA_VERSION, runInProgress: meta?.runInProgress, home: this.home() });
    return !!meta;
  }

  private filesTable(): Table {
    if (!this.files) throw new Error('files table is not open');
    return this.files;
  }

  /**
   * Opens a table, or null while another process is still creating it (its folder exists before its first version:
   * LanceDB then reports it "not found" / "could not be loaded"). The writer creates tables only under the writer lock.
   */
  private async openIfComplete(name: string): Promise<Table | null> {
    try {
      return await this.db.openTable(name);
    } catch (err) {
      if (/not found|could not be loaded|_versions|does not exist/i.test(String(err))) return null;
      throw err;
    }
  }

  /** The files table, opened when another process created it after we opened the store; null while there is none. */
  private async openFiles(): Promise<Table | null> {
    this.files ??= await this.openIfComplete(FILES_TABLE);
    return this.files;
  }

  /** The files table for a write (the caller is the writer): created when missing. */
  private async writableFiles(): Promise<Table> {
    this.files ??= await this.db.createEmptyTable(FILES_TABLE, filesSchema(), { existOk: true });
    return this.files;
  }

  private passagesTable(): Table {
    if (!this.passages) throw new Error('The index is empty: run "docs-rag index <folder>" first.');
    return this.passages;
  }

  /**
   * The files table, cached in memory and keyed by the table version: reading every record grows with the folder, checking
   * the version does not. Our own writes update the cache; a commit by another process changes the version and forces a reload.
   */
  async listFiles(): Promise<FileRecord[]> {
    const files = await this.openFiles();
    if (!files) return [];
    const version = await files.version();
    if (!this.filesCache || this.filesCache.version !== version) {
      const rows = await files.query().toArray();
      this.filesCache = { version, byPath: new Map(rows.map((r) => [r.path as string, rowToFile(r as Record<string, unknown>)])) };
    }
    return [...this.filesCache.byPath.values()].map((r) => ({ ...r }));
  }

  /** Applies our own commit to the cache (only when the cache was current right before it). */
  private async updateFilesCache(before: number, change: (byPath: Map<string, FileRecord>) => void): Promise<void> {
    const cache = this.filesCache;
    if (!cache || cache.version !== before) {
      this.filesCache = null;
      return;
    }
    change(cache.byPath);
    const after = await this.filesTable().version();
    // Exactly one commit (ours) since `before`: the cache is current again. Otherwise reload on next use.
    if (after === before + 1) cache.version = after;
    else this.filesCache = null;
  }

  async replaceFile(record: FileRecord, passages: FileUpdate['passages'], vectors: FileUpdate['vectors']): Promise<void> {
    await this.replaceFiles([{ record, passages, vectors }]);
  }

  /**
   * Replaces the passages of these files: the new rows are appended (in APPEND_ROWS slices), then the old ones deleted
   * by the `path` index and their row ids, then the links and records follow. A reader in between sees a file's old and
   * new rows (search keeps one hit per passage id), never none of them. A merge on `id` that also deletes the rows a
   * file no longer has would be one commit, but LanceDB's merge scans its whole target for the delete, so one changed
   * file cost as much as the corpus. Row ids only grow for appended rows, and nothing compacts while the writer lock is
   * held, so "at most the largest old id" selects exactly the old rows. A crash before the records leaves records whose
   * passages do not match them, which the repair of the next run redoes (recover.ts).
   */
  async replaceFiles(updates: FileUpdate[]): Promise<void> {
    if (updates.length === 0) return;
    const table = this.passagesTable();
    const shape = this.vectorShape();
    const rows = updateRows(updates, shape);
    const paths = updates.map((u) => u.record.path);
    await this.keepKeywordIndexCovering(rows.length);
    const oldest: { chunk: string[]; lastRowId: bigint }[] = [];
    for (const chunk of chunks(paths, IN_CHUNK)) {
      let lastRowId = -1n;
      for (const r of await table.query().where(sqlIn('path', chunk)).withRowId().select(['path']).toArray()) {
        const id = BigInt(r._rowid as bigint | number);
        if (id > lastRowId) lastRowId = id;
      }
      if (lastRowId >= 0n) oldest.push({ chunk, lastRowId });
    }
    await this.appendRows(table, rows, shape);
    for (const { chunk, lastRowId } of oldest) {
      await withCommitRetry(() => table.delete(`${sqlIn('path', chunk)} AND _rowid <= ${lastRowId}`));
    }
    await this.links.replace(updates.map((u) => ({ path: u.record.path, fileHash: u.record.hash, rows: u.links ?? [] })));
    await this.upsertRecords(updates.map((u) => ({ ...u.record, passages: u.passages.length })));
  }

  /**
   * Appends rows in slices: each slice's Arrow copy and IPC buffer are garbage before the next is built, so a file with
   * many passages (a large HTML manual) never holds several copies of all its vectors at once.
   */
  private async appendRows(table: Table, rows: PassageRow[], shape: VectorShape): Promise<void> {
    const schema = passagesSchema(shape.dim, shape.layout);
    for (let i = 0; i < rows.length; i += APPEND_ROWS) {
      const data = arrowRows(schema, rows.slice(i, i + APPEND_ROWS));
      await withCommitRetry(() => table.add(data));
    }
  }

  /** Adds passages of files that have none in the index yet (fast path for new files: a plain append). */
  async addNewFiles(updates: FileUpdate[]): Promise<void> {
    if (updates.length === 0) return;
    const table = this.passagesTable();
    const shape = this.vectorShape();
    await this.appendRows(table, updateRows(updates, shape), shape);
    await this.links.replace(updates.map((u) => ({ path: u.record.path, fileHash: u.record.hash, rows: u.links ?? [] })), true);
    // New paths (the caller holds the writer lock): their records are appended, not merged.
    await this.upsertRecords(updates.map((u) => ({ ...u.record, passages: u.passages.length })), true);
  }

  private async upsertRecords(records: FileRecord[], append = false): Promise<void> {
    if (records.length === 0) return;
    const schema = filesSchema();
    const rows = records.map(fileToRow);
    const data = toArrowTable(schema, rows) ?? lancedb.makeArrowTable(rows, { schema });
    const files = await this.writableFiles();
    const before = await files.version();
    await withCommitRetry(() =>
      append ? files.add(data) : files.mergeInsert('path').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(data),
    );
    await this.updateFilesCache(before, (byPath) => {
      for (const r of records) byPath.set(r.path, { ...r });
    });
  }

  async recordFileStatus(record: FileRecord): Promise<void> {
    await this.recordFileStatuses([record]);
  }

  async recordFileStatuses(records: FileRecord[]): Promise<void> {
    if (records.length === 0) return;
    const withoutPassages = records.filter((r) => r.status !== 'indexed');
    await this.links.removePaths(withoutPassages.map((r) => r.path));
    if (withoutPassages.length > 0 && this.passages) {
      const table = this.passages;
      for (const chunk of chunks(withoutPassages.map((r) => r.path), IN_CHUNK)) {
        await withCommitRetry(() => table.delete(sqlIn('path', chunk)));
      }
    }
    await this.upsertRecords(records.map((r) => (r.status === 'indexed' ? r : { ...r, passages: 0 })));
  }

  async removeFile(p: string): Promise<void> {
    await this.removeFiles([p]);
  }

  async removeFiles(paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    for (const chunk of chunks(paths, IN_CHUNK)) {
      const where = sqlIn('path', chunk);
      // Links and passages first: a crash in between leaves a record without passages, which the next run redoes or removes.
      await this.links.removePaths(chunk);
      if (this.passages) {
        const table = this.passages;
        await withCommitRetry(() => table.delete(where));
      }
      const files = await this.openFiles();
      if (!files) continue;
      const before = await files.version();
      await withCommitRetry(() => files.delete(where));
      await this.updateFilesCache(before, (byPath) => {
        for (const p of chunk) byPath.delete(p);
      });
    }
  }

  async repair(): Promise<number> {
    if (!this.passages) return 0;
    const records = new Map((await this.listFiles()).map((r) => [r.path, r]));
    const rows = await this.passages.query().select(['path', 'fileHash']).toArray();
    const bad = new Set<string>();
    const counts = new Map<string, number>();
    for (const r of rows) {
      const p = r.path as string;
      counts.set(p, (counts.get(p) ?? 0) + 1);
      const rec = records.get(p);
      if (!rec || rec.status !== 'indexed' || rec.hash !== r.fileHash) bad.add(p);
    }
    for (const [p, rec] of records) {
      if (rec.status === 'indexed' && (counts.get(p) ?? 0) !== rec.passages) bad.add(p);
    }
    // Links of another version of a file (or of a file without a record) go with it.
    for (const [p, hashes] of await this.links.fileHashes()) {
      const rec = records.get(p);
      if (!rec || rec.status !== 'indexed' || [...hashes].some((h) => h !== rec.hash)) bad.add(p);
    }
    let removed = 0;
    for (const p of bad) removed += counts.get(p) ?? 0;
    // Removing both passages and record makes the next plan see these files as new.
    await this.removeFiles([...bad]);
    return removed;
  }

  async countPassages(filter?: SearchFilter): Promise<number> {
    if (!this.passages) return 0;
    const where = filterSql(filter);
    return where ? this.passages.countRows(where) : this.passages.countRows();
  }

  async fullTextSearch(query: string, options: FullTextOptions): Promise<SearchHit[]> {
    if (!this.passages || !query.trim()) return [];
    const columns = options.lang === 'de' ? ['fts_de'] : options.lang === undefined ? ['fts_en', 'fts_de'] : ['fts_en'];
    const where = filterSql(options);
    const lists = await Promise.all(
      columns.map(async (column) => {
        const phrases = options.phrases ? query.split('\n').filter((x) => /[\p{L}\p{N}]/u.test(x)) : [];
        const fts: FullTextQuery = options.phrases
          ? new BooleanQuery(phrases.map((x): [Occur, FullTextQuery] => [Occur.Should, new PhraseQuery(x, column)]))
          : new MatchQuery(query, column);
        let q = this.passages!.query().fullTextSearch(fts).select([...PASSAGE_COLUMNS, '_score']);
        if (where) q = q.where(where);
        try {
          return await q.limit(options.k).toArray();
        } catch (err) {
          // No FTS index yet on an empty or fresh table: nothing to find.
          if (/no inverted index|not found|INVERTED/i.test(String(err))) return [];
          throw err;
        }
      }),
    );
    const hits: SearchHit[] = [];
    for (const rows of lists) {
      for (const r of rows) hits.push({ passage: rowToPassage(r as Record<string, unknown>), score: Number(r._score) });
    }
    // Equal scores in a stable order (by id): the same index answers the same query the same way whatever the row order.
    hits.sort((a, b) => b.score - a.score || (a.passage.id < b.passage.id ? -1 : a.passage.id > b.passage.id ? 1 : 0));
    return dedupeHits(hits).slice(0, options.k);
  }

  async vectorSearch(vector: Float32Array, options: VectorOptions): Promise<SearchHit[]> {
    return (await this.vectorRows(vector, options, PASSAGE_COLUMNS)).map((r) => {
      const hit: SearchHit = { passage: rowToPassage(r.row), score: r.score };
      if (options.withVectors) hit.vector = r.vector();
      return hit;
    });
  }

  async vectorSearchIds(vector: Float32Array, options: VectorOptions): Promise<VectorHitId[]> {
    return (await this.vectorRows(vector, options, ['id', 'level'])).map((r) => ({ id: r.row.id as string, level: Number(r.row.level) as Level, score: r.score }));
  }

  /**
   * The k nearest rows (`columns` of each), their cosine similarity and, on request, their vector. A float index is
   * searched by cosine; a 'codes' index by the query's sign bits (Hamming distance), codeCandidates(k, rows) candidates
   * ranked by their 8-bit codes (vectorCodes.ts).
   */
  private async vectorRows(
    vector: Float32Array,
    options: VectorOptions,
    columns: string[],
  ): Promise<{ row: Record<string, unknown>; score: number; vector: () => Float32Array }[]> {
    if (!this.passages) return [];
    const embedder = this.meta()?.embedder;
    const dim = embedder?.dimension;
    if (dim !== undefined && vector.length !== dim) {
      throw new Error(
        `Query vector has dimension ${vector.length} but the index was built with ${dim} (${embedder?.id}:${embedder?.model}). Reindex with the current embedder.`,
      );
    }
    const where = [(await hasPendingColumn(this.passages)) ? FILLED : undefined, filterSql(options)].filter((x): x is string => !!x).join(' AND ');
    const index = this.vectorIndexInfo();
    const indexed = !options.exact && index?.mode === 'ivf';
    if (embedder?.vectorLayout === 'codes') {
      if (!(await vectorColumnsMatch(this.passages, embedder))) return [];
      const query = queryCode(vector);
      // The IVF index over the sign bits holds them whole: searched in every partition, its hits are the scan's.
      // LanceDB's typings name only the float distances; its Hamming distance serves uint8 vectors.
      let q = this.passages.vectorSearch(query.bits).column('vector').distanceType('hamming' as 'l2').select([...columns, 'vectorCodes', 'vectorScale', '_distance']);
      q = indexed ? q.nprobes(index.partitions) : q.bypassVectorIndex();
      if (where) q = q.where(where);
      const fetched = rowsWithBytes(await q.limit(codeCandidates(options.k, index?.rows ?? 0)).toArrow(), [...columns, 'vectorScale', '_distance'], 'vectorCodes');
      // Hamming distances are whole numbers, and rows at the last distance fetched tie: which of them made the cut is
      // LanceDB's order, not the data's (an index and a scan differ). The candidates are the rows nearer than that,
      // the same set for every search, unless too few are.
      const last = fetched.length > 0 ? Number(fetched[fetched.length - 1].row._distance) : 0;
      const nearer = fetched.filter((r) => Number(r.row._distance) < last);
      const rows = nearer.length >= options.k ? nearer : fetched;
      const scored = rows.map(({ row, bytes: codes }) => {
        const scale = Number(row.vectorScale);
        return { row, score: codeDot(query.rotated, codes, scale), vector: () => decodeVector(codes, scale, vector.length) };
      });
      // Equal scores in a stable order (by id), as the keyword lists.
      scored.sort((a, b) => b.score - a.score || (String(a.row.id) < String(b.row.id) ? -1 : String(a.row.id) > String(b.row.id) ? 1 : 0));
      return scored.slice(0, options.k);
    }
    let q = this.passages.vectorSearch(vector).distanceType('cosine').select(options.withVectors ? [...columns, 'vector', '_distance'] : [...columns, '_distance']);
    // Every partition of the IVF index is searched: probing only the partitions nearest the question lost half the true
    // neighbours of real questions. The IVF_RQ index ranks by 4-bit codes and re-ranks k × VECTOR_REFINE_FACTOR
    // candidates (at least VECTOR_REFINE_MIN_CANDIDATES) by the full vectors: the scan's hits (uniform random vectors,
    // the codes' worst case, are measured by bench/vectorCodesRetrain.ts), faster, with an eighth of the memory an
    // IVF_FLAT index holds; IVF_FLAT, for dimensions the codes do not serve, holds the full vectors.
    if (!indexed) q = q.bypassVectorIndex();
    else if (index.kind === 'ivf_rq') q = q.nprobes(index.partitions).refineFactor(vectorRefineFactor(options.k));
    else q = q.nprobes(index.partitions);
    if (where) q = q.where(where);
    const rows = (await q.limit(options.k).toArray()) as Record<string, unknown>[];
    return rows.map((row) => ({ row, score: 1 - Number(row._distance), vector: () => toFloat32(row.vector) }));
  }

  async getPassages(ids: string[]): Promise<Passage[]> {
    if (!this.passages || ids.length === 0) return [];
    const byId = new Map<string, Passage>();
    for (const chunk of chunks([...new Set(ids)], IN_CHUNK)) {
      const rows = await this.passages.query().where(sqlIn('id', chunk)).select(PASSAGE_COLUMNS).toArray();
      for (const r of rows) {
        const p = rowToPassage(r as Record<string, unknown>);
        byId.set(p.id, p);
      }
    }
    return ids.map((id) => byId.get(id)).filter((p): p is Passage => !!p);
  }

  async getFilePassages(p: string, levels?: Level[]): Promise<Passage[]> {
    if (!this.passages) return [];
    const rows = await this.passages.query().where(`path = ${sqlString(p)}`).select(PASSAGE_COLUMNS).toArray();
    const ordered = documentOrder(rows.map((r) => rowToPassage(r as Record<string, unknown>)));
    return levels ? ordered.filter((x) => levels.includes(x.level)) : ordered;
  }

  async getVectors(ids: string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    if (!this.passages || ids.length === 0) return out;
    const filled = (await hasPendingColumn(this.passages)) ? `${FILLED} AND ` : '';
    const { dim, layout } = this.vectorShape();
    for (const chunk of chunks([...new Set(ids)], IN_CHUNK)) {
      const rows = await this.passages.query().where(`${filled}${sqlIn('id', chunk)}`).select(['id', ...vectorColumnNames(layout)]).toArray();
      for (const r of rows) {
        out.set(r.id as string, layout === 'codes' ? decodeVector(toBytes(r.vectorCodes), Number(r.vectorScale), dim) : toFloat32(r.vector));
      }
    }
    return out;
  }

  /** Path, level and text of every German passage (the vocabulary recount; no vectors read). */
  async eachGermanPassage(withText: boolean, each: (batch: Pick<Passage, 'path' | 'level' | 'text'>[]) => void): Promise<void> {
    if (!this.passages) return;
    let batch: Pick<Passage, 'path' | 'level' | 'text'>[] = [];
    await eachRow(this.passages, `lang = 'de'`, withText ? ['path', 'level', 'lang', 'text', 'textFrom', 'fts_de'] : ['path', 'level'], (r) => {
      batch.push({ path: r.path as string, level: Number(r.level) as Level, text: withText ? rowText(r) : '' });
      if (batch.length >= 10_000) (each(batch), (batch = []));
    });
    if (batch.length > 0) each(batch);
  }


  /**
   * Recomputes the compound parts of the German passages of `paths` (after the vocabulary changed) and rewrites the rows
   * whose parts differ, in one commit per chunk of files. `embed` re-embeds the changed rows' texts (builtin embedder).
   * Returns the number of rows rewritten.
   */
  async rewriteKeywordParts(
    paths: string[],
    parts: (indexText: string) => string,
    embed?: (texts: string[]) => Promise<Float32Array[]>,
  ): Promise<number> {
    const table = this.passages;
    if (!table || paths.length === 0) return 0;
    const shape = this.vectorShape();
    let rewritten = 0;
    // A chunk of files at a time: which rows change (only row ids and keyword texts are read, not the vectors),
    // then those rows whole, appended with their new parts before the old rows are deleted by row id (a merge on `id`
    // scans the whole table, per commit). Row ids only grow for appended rows, so the old ones stay where they were.
    for (const chunk of chunks(paths, REWRITE_FILES)) {
      const next = new Map<bigint, string>();
      const rows = await table.query().where(`lang = 'de' AND ${sqlIn('path', chunk)}`).select(['fts_de']).withRowId().toArray();
      for (const r of rows) {
        const stored = r.fts_de as string;
        const indexText = withoutParts(stored);
        const text = withParts(indexText, parts(indexText));
        if (text !== stored) next.set(BigInt(r._rowid as bigint | number), text);
      }
      for (const rowIds of chunks([...next.keys()], REWRITE_ROWS)) {
        const changed: PassageRow[] = [];
        for (const r of await table.takeRowIds(rowIds).withRowId().toArray()) {
          const row: PassageRow = {};
          for (const c of PASSAGE_COLUMNS) row[c] = r[c];
          for (const c of ['level', 'order', 'textFrom', 'startLine', 'endLine', 'page', 'pageEnd', 'startOffset', 'endOffset']) {
            if (typeof row[c] === 'bigint') row[c] = Number(row[c]);
          }
          // The keyword text keeps its beginning (only the parts after it change), so `textFrom` still points at the text.
          row.fts_de = next.get(BigInt(r._rowid as bigint | number));
          row.vectorPending = r.vectorPending;
          for (const c of vectorColumnNames(shape.layout)) row[c] = c === 'vectorScale' ? Number(r[c]) : shape.layout === 'codes' ? toBytes(r[c]) : toFloat32(r[c]);
          changed.push(row);
        }
        if (changed.length === 0) continue;
        if (embed) {
          const vectors = await embed(changed.map((row) => row.fts_de as string));
          changed.forEach((row, i) => {
            Object.assign(row, vectorColumns(vectors[i], shape.layout));
            row.vectorPending = false;
          });
        }
        // No fold into the keyword index here: rewritten rows are searched by scan until the maintenance after the run.
        await this.appendRows(table, changed, shape);
        await withCommitRetry(() => table.delete(`_rowid IN (${rowIds.join(', ')})`));
        rewritten += changed.length;
      }
    }
    return rewritten;
  }

  /** Every stored passage, unordered (tests, diagnostics; reads the whole table). */
  async scanPassages(): Promise<Passage[]> {
    if (!this.passages) return [];
    const rows = await this.passages.query().select(PASSAGE_COLUMNS).toArray();
    return rows.map((r) => rowToPassage(r as Record<string, unknown>));
  }

  async pendingVectors(limit: number, ids?: string[]): Promise<PendingVector[]> {
    if (!this.passages || !(await hasPendingColumn(this.passages))) return [];
    if (ids && ids.length === 0) return [];
    const where = ids ? `vectorPending = true AND ${sqlIn('id', ids)}` : 'vectorPending = true';
    const rows = await this.passages.query().where(where).select(['id', 'lang', 'fts_en', 'fts_de']).limit(limit).toArray();
    return rows.map((r) => {
      if (r.lang !== 'de') return { id: r.id as string, indexText: r.fts_en as string };
      const stored = r.fts_de as string;
      const indexText = withoutParts(stored);
      const parts = stored.slice(indexText.length + PARTS_MARK.length + 2); // after "\n<mark> " 
      return { id: r.id as string, indexText, keywordParts: parts || undefined };
    });
  }

  async pendingVectorUnits(limit: number): Promise<{ id: string; unit: number }[]> {
    if (!this.passages || !(await hasPendingColumn(this.passages))) return [];
    // The row address (fragment << 32 | offset) says the fragment: a fill commits one fragment's rows at once.
    const rows = await this.passages.query().where('vectorPending = true').select(['id', '_rowaddr']).limit(limit).toArray();
    return rows.map((r) => ({ id: r.id as string, unit: Number(BigInt(r._rowaddr as bigint) >> 32n) }));
  }

  async fillVectors(items: { id: string; vector: Float32Array }[]): Promise<number> {
    const table = this.passages;
    if (!table || items.length === 0) return 0;
    const { dim, layout } = this.vectorShape();
    for (const it of items) if (it.vector.length !== dim) throw new Error(`vector dimension ${it.vector.length}, index expects ${dim}`);
    const data = arrowRows(vectorFillSchema(dim, layout), items.map((it) => ({ id: it.id, vectorPending: false, ...vectorColumns(it.vector, layout) })));
    // Only the vector columns of rows that still exist are written (one commit); the text stays as it is. LanceDB 0.37
    // rewrites those columns for the whole fragment of each row (in place: the rows stay under the keyword indexes), so
    // the fill commits one fragment's rows together. (A condition such as `target.vectorPending = true` panics in
    // LanceDB 0.37 with a partial schema; the caller checks under the writer lock that the rows still wait.)
    await this.keepKeywordIndexCovering(items.length);
    const r = await withCommitRetry(() => table.mergeInsert('id').whenMatchedUpdateAll().execute(data));
    return Number(r.numUpdatedRows);
  }

  async vectorCounts(): Promise<{ filled: number; total: number }> {
    if (!this.passages) return { filled: 0, total: 0 };
    const total = await this.passages.countRows();
    const filled = (await hasPendingColumn(this.passages)) ? await this.passages.countRows(FILLED) : total;
    return { filled, total };
  }

  /** Names of the indexes on the passages table. */
  async indexNames(): Promise<string[]> {
    if (!this.passages) return [];
    return (await this.passages.listIndices()).map((i) => i.name);
  }

  /**
   * Creates the full-text (fts_en, fts_de), scalar (path, id) and — above VECTOR_INDEX_MIN_ROWS — vector indexes that are
   * missing. Without an FTS index a keyword search finds nothing, so the indexer calls this after its first write.
   */
  async ensureIndexes(o: { vector?: boolean } = {}): Promise<boolean> {
    const table = this.passages;
    if (!table) return false;
    const rows = await table.countRows();
    if (rows === 0) return false;
    const have = new Set((await table.listIndices()).flatMap((i) => i.columns));
    if (!have.has('fts_en')) await table.createIndex('fts_en', { config: ftsConfig('en'), replace: true });
    if (!have.has('fts_de')) await table.createIndex('fts_de', { config: ftsConfig('de'), replace: true });
    if (!have.has('path')) await table.createIndex('path', { config: Index.btree(), replace: true });
    if (!have.has('id')) await table.createIndex('id', { config: Index.btree(), replace: true });
    if (o.vector === false || !(await this.vectorIndexDue())) return false;
    await this.buildVectorIndex(table, rows);
    return true;
  }

  /** Whether the vector index should be trained now (missing or stale, enough rows, every vector filled). */
  async vectorIndexDue(): Promise<boolean> {
    const table = this.passages;
    if (!table) return false;
    const have = new Set((await table.listIndices()).flatMap((i) => i.columns));
    if (!this.vectorIndexWantedOn(await table.countRows(), have)) return false;
    // Never trained on placeholder vectors: the index is built once every vector is filled.
    return !(await hasPendingColumn(table)) || (await table.countRows('vectorPending = true')) === 0;
  }

  /** Missing, stale (the table more than doubled since training) or of another kind than the vectors get, on a table large enough. */
  private vectorIndexWantedOn(rows: number, have: Set<string>): boolean {
    if (rows < VECTOR_INDEX_MIN_ROWS) return false;
    const built = this.vectorIndexInfo();
    const stale = built !== null && rows > 2 * built.rows;
    // Missing, dropped by an earlier version whose recall check failed (mode 'exact'), or of another kind than the
    // vectors get (an earlier version's IVF_FLAT index, whose full vectors every searching process holds).
    const kind = built?.kind ?? 'ivf_flat';
    const missing = built === null || built.mode !== 'ivf' || kind !== vectorIndexKind(this.meta()?.embedder) || !have.has('vector');
    return missing || stale;
  }

  /**
   * Trains the vector index the vectors get (vectorIndexKind: IVF_RQ of VECTOR_INDEX_BITS-bit codes, IVF_FLAT, or for
   * 'codes' an IVF_FLAT index of the sign bits by Hamming distance; sqrt(n)/4 partitions) and records it in
   * vector-index.json. Searches probe every partition, and IVF_RQ's candidates are ranked by the full vectors
   * (vectorSearch), so k-means' randomness decides nothing and the results are the scan's.
   */
  private async buildVectorIndex(table: Table, rows: number): Promise<VectorIndexInfo> {
    const partitions = vectorPartitions(rows);
    const kind = vectorIndexKind(this.meta()?.embedder);
    const start = Date.now();
    const config =
      kind === 'ivf_rq'
        ? Index.ivfRq({ distanceType: 'cosine', numPartitions: partitions, numBits: VECTOR_INDEX_BITS })
        : Index.ivfFlat({ distanceType: kind === 'ivf_bits' ? 'hamming' : 'cosine', numPartitions: partitions });
    await table.createIndex('vector', { config, replace: true });
    const info: VectorIndexInfo = { mode: 'ivf', kind, rows, partitions, trainMs: Date.now() - start, builtAt: new Date().toISOString() };
    writeJsonAtomic(path.join(this.dir, VECTOR_INDEX_FILE), info);
    await this.publish();
    return info;
  }

  /**
   * Trains the vector index when it is due (missing, or the table has more than doubled since it was trained), without
   * compaction: the separate step after a run whose optimize left it out (`vectorIndex: false`). Until then vector search
   * is exact (or uses the older index, which LanceDB completes with a flat scan of the rows it does not cover).
   */
  async buildVectorIndexIfDue(): Promise<boolean> {
    return this.ensureIndexes({ vector: true });
  }

  /** What the last vector-index build decided (null: never built, e.g. below VECTOR_INDEX_MIN_ROWS). */
  vectorIndexInfo(): VectorIndexInfo | null {
    return readVectorIndexInfo(this.dir);
  }

  /** Rows the keyword indexes cover and rows outside them (of the less covering of the two); null without an index. */
  async keywordIndexCoverage(): Promise<{ indexed: number; unindexed: number; share: number } | null> {
    const table = this.passages;
    if (!table) return null;
    let out: { indexed: number; unindexed: number; share: number } | null = null;
    for (const name of ['fts_en_idx', 'fts_de_idx']) {
      const stats = await table.indexStats(name);
      if (!stats) continue;
      const total = stats.numIndexedRows + stats.numUnindexedRows;
      const share = total === 0 ? 1 : stats.numIndexedRows / total;
      if (!out || share < out.share) out = { indexed: stats.numIndexedRows, unindexed: stats.numUnindexedRows, share };
    }
    return out;
  }

  async buildKeywordIndexes(): Promise<void> {
    const table = this.passages;
    if (!table || (await table.countRows()) === 0) return;
    // The two keyword indexes side by side (LanceDB builds each on its own threads), then the scalar ones.
    await Promise.all(
      (['en', 'de'] as const).map((lang) => withCommitRetry(() => table.createIndex(`fts_${lang}`, { config: ftsConfig(lang), replace: true }))),
    );
    for (const column of ['path', 'id']) await withCommitRetry(() => table.createIndex(column, { config: Index.btree(), replace: true }));
  }

  /** See KEYWORD_INDEX_MIN_COVERAGE: called by the writer before a commit that replaces up to `replacing` rows. */
  private async keepKeywordIndexCovering(replacing: number): Promise<void> {
    const c = await this.keywordIndexCoverage();
    if (!c || c.unindexed < KEYWORD_FOLD_MIN_ROWS) return;
    const min = KEYWORD_INDEX_MIN_COVERAGE * (c.indexed + c.unindexed);
    // Already below before this write: rows appended since the index was built (a new index's first run, whose compound
    // re-split would otherwise fold every new row once more just before the run's own optimize folds them).
    if (c.indexed < min) return;
    if (c.indexed - replacing >= min) return;
    const table = this.passagesTable();
    const keepFrom = await currentVersionTime(table);
    await withCommitRetry(() => table.optimize({ cleanupOlderThan: keepFrom, deleteUnverified: false }));
  }

  /**
   * Folds new rows into the indexes, compacts small fragments and removes old versions with the files only they use. Every
   * LanceDB commit (each run, each file batch) adds a version; kept for a fixed time they made the store many times the
   * size of a clean build. Kept now: the version that was current when this optimize started and the ones it commits.
   * A reader of this or another process that loaded that version (a query in flight, a handle opened before) keeps
   * answering; our readers resolve the latest version on every read, so no one needs the older ones. The next optimize
   * removes the kept one. `deleteUnverified` also removes files no version references (left by a killed write): only
   * safe when no other process writes, so only after a killed run.
   */
  async optimize(options: { deleteUnverified?: boolean; vectorIndex?: boolean } = {}): Promise<void> {
    const deleteUnverified = options.deleteUnverified ?? false;
    // A write stopped midway (a killed run, a maintenance stopped by the next run) also leaves the temp file LanceDB
    // was writing, which its cleanup does not remove: a stopped compaction's is as large as the table. The caller holds
    // the writer lock, so no write is in flight.
    removeTempFiles(this.dir);
    const table = this.passages;
    if (table) {
      const keepFrom = await currentVersionTime(table);
      // Compaction (and folding new rows into the existing indexes) first, the missing or stale indexes after, on the
      // compacted table: an index built before the compaction is rewritten by it, and the IVF_FLAT index holds every
      // vector (the other order peaks higher and takes longer on a large table).
      await withCommitRetry(() => table.optimize({ cleanupOlderThan: keepFrom, deleteUnverified }));
      await this.ensureIndexes({ vector: options.vectorIndex });
    }
    await this.links.optimize(currentVersionTime, deleteUnverified);
    const files = await this.openFiles();
    if (files) {
      const filesKeepFrom = await currentVersionTime(files);
      await withCommitRetry(() => files.optimize({ cleanupOlderThan: filesKeepFrom, deleteUnverified }));
    }
    if (readMeta(this.dir)?.maintenance) await this.noteMaintenance({ optimizeDue: false, unverified: false });
  }

  /** Resolved edges of the reference graph leaving or reaching these passages. */
  async linksOf(ids: string[]): Promise<ResolvedLink[]> {
    return this.links.linksOf(ids);
  }

  /** Every row of the links table, unordered (tests, diagnostics). */
  async scanLinks(): Promise<LinkRow[]> {
    return this.links.all();
  }

  async linkCounts(): Promise<LinkCounts | null> {
    return this.links.counts();
  }

  async close(): Promise<void> {
    this.links.close();
    this.passages?.close();
    this.files?.close();
    this.passages = null;
    this.files = null;
    this.db.close();
  }
}

/**
 * Removes the temp files LanceDB writes before renaming them into place (`.tmp…` in a table's folders) from every table
 * of the store. Only while no write is in flight (the writer lock held): a file being written is one of them.
 */
export function removeTempFiles(dir: string): void {
  const sweep = (folder: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const abs = path.join(folder, e.name);
      if (e.name.startsWith('.tmp')) fs.rmSync(abs, { recursive: true, force: true });
      else if (e.isDirectory() && depth > 0) sweep(abs, depth - 1);
    }
  };
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) if (e.isDirectory() && e.name.endsWith('.lance')) sweep(path.join(dir, e.name), 2);
}

/** When the table's current version was committed: optimize removes the versions before it. */
async function currentVersionTime(table: Table): Promise<Date> {
  const current = await table.version();
  const versions = await table.listVersions();
  const entry = versions.find((v) => v.version === current) ?? versions[versions.length - 1];
  return entry ? new Date(entry.timestamp) : new Date(0);
}

/** German passages: German stemming, stop words, ASCII folding; everything else English analysis. */
export function ftsConfig(lang: Lang) {
  return Index.fts({
    baseTokenizer: 'simple',
    language: lang === 'de' ? 'German' : 'English',
    stem: true,
    removeStopWords: true,
    asciiFolding: true,
    lowercase: true,
    // Positions let the retriever run phrase queries (e.g. exact "§ 3 Abs. 2").
    withPosition: true,
  });
}

function filterSql(filter?: SearchFilter): string | undefined {
  const parts: string[] = [];
  if (filter?.levels && filter.levels.length > 0) parts.push(`level IN (${filter.levels.map((l) => Number(l)).join(', ')})`);
  if (filter?.paths) parts.push(filter.paths.length > 0 ? sqlIn('path', filter.paths) : 'false');
  return parts.length > 0 ? parts.join(' AND ') : undefined;
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** A vector cell of a query result (a typed array, an Arrow vector or a plain array) as a typed array of `Type`. */
function toTyped<T extends Uint8Array | Float32Array>(v: unknown, Type: { new (n: number): T; from(a: ArrayLike<number>): T }): T {
  if (v instanceof Type) return v as T;
  const anyV = v as { toArray?: () => ArrayLike<number> } | ArrayLike<number>;
  if (anyV && typeof (anyV as { toArray?: unknown }).toArray === 'function') return Type.from((anyV as { toArray: () => ArrayLike<number> }).toArray());
  return Type.from(anyV as ArrayLike<number>);
}

const toBytes = (v: unknown): Uint8Array => toTyped(v, Uint8Array);
const toFloat32 = (v: unknown): Float32Array => toTyped(v, Float32Array);

function dedupeHits(hits: SearchHit[]): SearchHit[] {
  const seen = new Set<string>();
  return hits.filter((h) => (seen.has(h.passage.id) ? false : (seen.add(h.passage.id), true)));
}

/** Pre-order walk of the L0 → L1 → L2 tree (children by `order`); passages without a known parent go last. */
export function documentOrder(passages: Passage[]): Passage[] {
  const children = new Map<string | null, Passage[]>();
  const ids = new Set(passages.map((p) => p.id));
  for (const p of passages) {
    const key = p.parentId && ids.has(p.parentId) ? p.parentId : null;
    const list = children.get(key) ?? [];
    list.push(p);
    children.set(key, list);
  }
  for (const list of children.values()) list.sort((a, b) => a.level - b.level || a.order - b.order || a.chunkPath.localeCompare(b.chunkPath));
  const out: Passage[] = [];
  const visit = (p: Passage) => {
    out.push(p);
    for (const c of children.get(p.id) ?? []) visit(c);
  };
  for (const root of children.get(null) ?? []) visit(root);
  return out;
}

/**
 * Whether the table's vector columns have the types the embedder's layout writes today: a 'codes' store written with
 * other code parameters (vectorCodes.ts) is rebuilt by the next run like one of another embedder, and searched by
 * keywords only until then, instead of failing every search.
 */
async function vectorColumnsMatch(table: Table, info: Pick<EmbedderInfo, 'dimension' | 'vectorLayout'>): Promise<boolean> {
  const have = await columnTypesOf(table);
  return vectorFields(info.dimension, info.vectorLayout).every((f) => have.get(f.name) === String(f.type));
}
