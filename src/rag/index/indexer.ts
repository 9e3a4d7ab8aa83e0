// The incremental, crash-safe indexer: walk → plan → (hash → parse in workers → chunk → embed) for changed files, with a
// bounded number of files in flight, and batched writes through the store (each file's passages replaced in one commit).
import * as path from 'path';
import { acquireWriterLock, WriterLockAbortedError, type LockHolder } from './writerLock';
import type { Engine } from '../engine';
import { chunkDocument } from '../chunk';
import { enrichForIndex } from '../enrich';
import type { FileRecord, FileStatus, FileUpdate } from '../store/types';
import { LoadError, type IndexedPassage } from '../types';
import { DEFAULT_OCR, type OcrOptions } from '../ingest/ocr';
import { hashFile, pipelineFingerprint, planChanges, type Candidate } from './plan';
import { statPaths, walkFolder, type WalkEntry } from './walk';

export interface IndexProgress {
  phase: 'scan' | 'parse' | 'embed' | 'write' | 'optimize' | 'done';
  filesDone: number;
  filesTotal: number;
  currentFile?: string;
  passagesPerSec: number;
}

export interface IndexRunResult {
  /** Documents with passages in the index. */
  files: number;
  /** Passages in the index (all levels). */
  chunks: number;
  /** Files skipped as unchanged (same size+mtime, or same content hash). */
  unchanged: number;
  /** Every file that is not indexed, with the reason (including ones recorded by earlier runs and unchanged since). */
  errors: { path: string; reason: string }[];
  ms: number;
  /** True when the index was emptied and rebuilt because the embedder/model changed. */
  reembedded?: boolean;
  /** The run was cancelled; the index is consistent and the next run continues. */
  cancelled?: boolean;
  /** The previous run was killed (or the store held unaccounted passages); this run repaired the index first. */
  recovered?: boolean;
  /** Passages the repair removed (their files were indexed again). */
  repairedPassages?: number;
  /** Counts of this run's work. */
  added?: number;
  updated?: number;
  removed?: number;
  warnings?: string[];
  /** Milliseconds spent per step of the run (diagnostics). */
  timings?: Record<string, number>;
}

export interface IndexOptions {
  onProgress?: (p: IndexProgress) => void;
  signal?: AbortSignal;
  /** Incremental hint (e.g. from a file watcher): only these files/folders are looked at. */
  paths?: string[];
  /** Re-parse and re-embed every file. */
  full?: boolean;
  /** When to fold new rows into the indexes: now (default without `paths`), debounced (default with `paths`), or never. */
  optimize?: 'now' | 'debounced' | 'never';
  /** When another process writes this index: wait for it (default) or fail at once with WriterLockBusyError. */
  wait?: boolean;
  /** Called once when the run starts waiting for another process's writer lock. */
  onWait?: (holder: LockHolder) => void;
}

/** Passages or files buffered before one write (bounded memory, few commits). */
const FLUSH_ROWS = 2000;
const FLUSH_FILES = 200;

/** Indexes the engine's folder through its write queue (so runs, watcher updates and optimize never interleave). */
export function indexFolder(engine: Engine, o: IndexOptions = {}): Promise<IndexRunResult> {
  return engine.queue.run(async () => {
    const started = Date.now();
    let release: () => void;
    try {
      // One writer per store across processes (the queue only orders the writers of this process).
      release = await acquireWriterLock(engine.storeDir, { wait: o.wait, signal: o.signal, onWait: o.onWait, purpose: 'indexing' });
    } catch (err) {
      if (err instanceof WriterLockAbortedError) return cancelledBeforeStart(engine, started);
      throw err;
    }
    try {
      return await runIndex(engine, o);
    } finally {
      release();
    }
  });
}

/** The result of a run cancelled while it waited for another process: nothing was read or written. */
async function cancelledBeforeStart(engine: Engine, started: number): Promise<IndexRunResult> {
  const records = await engine.store.listFiles().catch(() => []);
  return {
    files: records.filter((r) => r.status === 'indexed' && r.passages > 0).length,
    chunks: await engine.store.countPassages().catch(() => 0),
    unchanged: 0,
    errors: [],
    ms: Date.now() - started,
    added: 0,
    updated: 0,
    removed: 0,
    cancelled: true,
  };
}

async function runIndex(engine: Engine, o: IndexOptions): Promise<IndexRunResult> {
  const started = Date.now();
  const { store, embedder, config } = engine;
  const signal = o.signal;
  const warnings = [...engine.warnings];
  let filesDone = 0;
  let filesTotal = 0;
  let passagesEmbedded = 0;
  let embedMs = 0;
  const progress = (phase: IndexProgress['phase'], currentFile?: string) =>
    o.onProgress?.({
      phase,
      filesDone,
      filesTotal,
      currentFile,
      passagesPerSec: embedMs > 0 ? Math.round((passagesEmbedded / embedMs) * 1000) : 0,
    });

  const timings: Record<string, number> = {};
  let mark = performance.now();
  const lap = (name: string) => {
    const now = performance.now();
    timings[name] = Math.round((timings[name] ?? 0) + now - mark);
    mark = now;
  };
  progress('scan');
  await embedder.init(signal);
  const info = { id: embedder.id, model: embedder.model, dimension: embedder.dimension };
  // Enrichment settings are part of the key: changing them redoes every file (never a mix of enriched and plain passages).
  // OCR settings decide what scanned pages and images yield (a file that had "OCR needed" is redone when OCR is on).
  const ocr = { ...DEFAULT_OCR, ...config.ingest.ocr };
  const enrich = config.enrich && (config.enrich.contextual || config.enrich.summaries) ? config.enrich : undefined;
  // So are the chunking settings and the pipeline version: a file chunked another way is redone, not kept.
  const embedderKey = `${info.id}:${info.model}${enrich ? `+enrich(${enrich.contextual ? 'c' : ''}${enrich.summaries ? 's' : ''}:${enrich.model ?? 'default'})` : ''}+${pipelineFingerprint(config.chunk)}${ocrKey(ocr)}`;
  // We hold the writer lock: a run mark left in meta.json is a run that was killed (whatever its pid is now).
  const reembedded = await store.useEmbedder(info);
  if (reembedded) warnings.push(`The index was built by another embedder; every document is re-embedded with ${embedderKey}.`);
  let recovered = !!store.meta()?.runInProgress;
  // A store that holds more passages than its file records count (duplicates written by two unlocked writers of an
  // older version, or any other damage) is repaired like a killed run: the affected files are removed and redone.
  if (!recovered && (await passageCountMismatch(store))) {
    recovered = true;
    warnings.push('The index held passages its file records do not account for (for example duplicates); the affected files are indexed again.');
  }
  await store.markRun(true);
  let repairedPassages = 0;
  if (recovered) repairedPassages = await store.repair();
  lap('open');

  const walkOptions = { include: config.ingest.include, exclude: config.ingest.exclude, storeDir: engine.storeDir, signal };
  let walked: WalkEntry[];
  let scope: Set<string> | undefined;
  if (o.paths) ({ entries: walked, scope } = await statPaths(engine.folder, o.paths, walkOptions));
  else walked = await walkFolder(engine.folder, walkOptions);
  lap('walk');
  const plan = planChanges(walked, await store.listFiles(), { full: o.full, embedderKey, scope });
  filesTotal = walked.length;
  filesDone = plan.unchanged.length;
  lap('plan');
  let unchanged = plan.unchanged.length;

  if (plan.remove.length > 0) {
    progress('write');
    await store.removeFiles(plan.remove);
  }

  // Batched writer: new files are appended, changed files replaced (mergeInsert), statuses upserted.
  let fresh: FileUpdate[] = [];
  let changed: FileUpdate[] = [];
  let statuses: FileRecord[] = [];
  let rows = 0;
  let writing: Promise<void> = Promise.resolve();
  let indexesChecked = false;
  const flush = () => {
    const batch = { fresh, changed, statuses };
    fresh = [];
    changed = [];
    statuses = [];
    rows = 0;
    writing = writing.then(async () => {
      if (batch.fresh.length + batch.changed.length + batch.statuses.length === 0) return;
      progress('write');
      const s = store as typeof store & { addNewFiles?: (u: FileUpdate[]) => Promise<void> };
      if (s.addNewFiles && !recovered) await s.addNewFiles(batch.fresh);
      else await store.replaceFiles(batch.fresh);
      await store.replaceFiles(batch.changed);
      await store.recordFileStatuses(batch.statuses);
      if (!indexesChecked && batch.fresh.length + batch.changed.length > 0) {
        // A new index gets its keyword indexes after the first write, so even a killed first run leaves an index that answers.
        indexesChecked = true;
        const s2 = store as typeof store & { ensureIndexes?: () => Promise<void> };
        await s2.ensureIndexes?.();
      }
    });
    return writing;
  };
  const enqueue = async (kind: 'fresh' | 'changed' | 'status', item: FileUpdate | FileRecord) => {
    if (kind === 'status') statuses.push(item as FileRecord);
    else {
      (kind === 'fresh' ? fresh : changed).push(item as FileUpdate);
      rows += (item as FileUpdate).passages.length;
    }
    if (rows >= FLUSH_ROWS || fresh.length + changed.length + statuses.length >= FLUSH_FILES) await flush();
  };

  const candidates: Candidate[] = [...plan.add, ...plan.update];
  const counts = { added: 0, updated: 0 };
  let cancelled = false;
  const processOne = async (c: Candidate) => {
    const { entry, previous } = c;
    progress('parse', entry.path);
    const base = { path: entry.path, size: entry.size, mtimeMs: entry.mtimeMs, embedder: embedderKey, indexedAt: Date.now() };
    const tooLarge = entry.size > config.ingest.maxFileSizeMB * 1024 * 1024;
    let hash: string;
    try {
      hash = tooLarge ? `size:${entry.size}:${entry.mtimeMs}` : await hashFile(entry.abs, entry.size);
    } catch (err) {
      // Vanished or unreadable since the walk.
      await enqueue('status', { ...base, hash: '', status: 'error', reason: `cannot read the file (${errText(err)})`, passages: 0 });
      return;
    }
    if (previous && !o.full && previous.hash === hash && previous.embedder === embedderKey) {
      unchanged++;
      await enqueue('status', { ...previous, size: entry.size, mtimeMs: entry.mtimeMs });
      return;
    }
    let passages: IndexedPassage[];
    try {
      const doc = await engine.parsers().parse(entry.abs, {
        timeoutMs: config.ingest.parseTimeoutMs,
        maxFileSizeMB: config.ingest.maxFileSizeMB,
        signal,
        // Recognised pages are cached by content hash in the store: a reindex or a rename never recognises twice.
        ocr: { ...ocr, cacheDir: path.join(engine.storeDir, 'ocr-cache') },
      });
      passages = chunkDocument(doc, { path: entry.path, fileHash: hash }, config.chunk);
      if (passages.length === 0) throw new LoadError('no-text', 'no extractable text');
      if (signal?.aborted) return;
      // Opt-in LLM enrichments (config.enrich, see src/rag/enrich): contextual indexText, abstractive L0/L1 summaries, cached.
      if (config.enrich) passages = await enrichForIndex(passages, { config, storeDir: engine.storeDir, signal, onWarning: (m) => warnings.push(m) });
    } catch (err) {
      if (signal?.aborted) return;
      const { status, reason } = describeFailure(err);
      await enqueue('status', { ...base, hash, status, reason, passages: 0 });
      return;
    }
    progress('embed', entry.path);
    const vectors: Float32Array[] = [];
    const t0 = Date.now();
    const size = Math.max(1, config.embed.batchSize);
    for (let i = 0; i < passages.length; i += size) {
      if (signal?.aborted) return;
      vectors.push(...(await embedder.embed(passages.slice(i, i + size).map((p) => p.indexText), signal)));
    }
    embedMs += Date.now() - t0;
    passagesEmbedded += passages.length;
    if (previous) counts.updated++;
    else counts.added++;
    await enqueue(previous ? 'changed' : 'fresh', { record: { ...base, hash, status: 'indexed', reason: '', passages: passages.length }, passages, vectors });
  };

  // A few files in flight: enough to keep the parser workers and the embedder busy, bounded memory.
  const inFlight = Math.max(3, config.ingest.workers * 2 + 1);
  let next = 0;
  let failure: unknown = null;
  const worker = async () => {
    while (next < candidates.length && !failure) {
      if (signal?.aborted) {
        cancelled = true;
        return;
      }
      const c = candidates[next++];
      try {
        await processOne(c);
      } catch (err) {
        if (signal?.aborted) {
          cancelled = true;
          return;
        }
        // Embedder and store errors stop the run (a model that is down fails every file alike).
        failure ??= err;
        return;
      }
      filesDone++;
      progress('parse', c.entry.path);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, candidates.length) }, worker));
  if (signal?.aborted) cancelled = true;
  await flush();
  await writing;
  if (failure) throw failure;
  lap('files');

  const mode = o.optimize ?? (o.paths ? 'debounced' : 'now');
  const wrote = plan.remove.length + candidates.length > 0;
  if (mode === 'now' || recovered || !(await hasIndexes(store))) {
    progress('optimize');
    await store.optimize({ deleteUnverified: recovered });
  } else if (mode === 'debounced' && wrote) engine.scheduleOptimize();
  lap('optimize');

  // Cancelled runs are consistent too (only whole files were written); only a killed run leaves the mark.
  await store.markRun(false);
  const records = await store.listFiles();
  const result: IndexRunResult = {
    files: records.filter((r) => r.status === 'indexed' && r.passages > 0).length,
    chunks: await store.countPassages(),
    unchanged,
    errors: records.filter((r) => r.status !== 'indexed').map((r) => ({ path: r.path, reason: r.reason })),
    ms: Date.now() - started,
    added: counts.added,
    updated: counts.updated,
    removed: plan.remove.length,
  };
  if (reembedded) result.reembedded = true;
  if (cancelled) result.cancelled = true;
  if (recovered) result.recovered = true;
  if (repairedPassages > 0) result.repairedPassages = repairedPassages;
  if (warnings.length > 0) result.warnings = warnings;
  await store.setLastRun({ startedAt: started, finishedAt: Date.now(), files: result.files, errors: result.errors.length, unchanged });
  lap('finish');
  result.timings = timings;
  filesDone = filesTotal;
  progress('done');
  return result;
}

/** Whether the passages table holds another number of rows than the indexed file records say. */
async function passageCountMismatch(store: Engine['store']): Promise<boolean> {
  const records = await store.listFiles();
  const expected = records.reduce((n, r) => n + (r.status === 'indexed' ? r.passages : 0), 0);
  return (await store.countPassages()) !== expected;
}

async function hasIndexes(store: Engine['store']): Promise<boolean> {
  const s = store as typeof store & { indexNames?: () => Promise<string[]> };
  if (!s.indexNames) return true;
  if ((await store.countPassages()) === 0) return true;
  const names = await s.indexNames();
  return names.length > 0;
}

/** Skipped = the file is fine but has nothing for us (protected, empty, too large, unsupported); error = it could not be read. */
export function describeFailure(err: unknown): { status: FileStatus; reason: string } {
  if (err instanceof LoadError || (err instanceof Error && err.name === 'LoadError' && 'kind' in err)) {
    const kind = (err as LoadError).kind;
    const skipped = kind === 'password-protected' || kind === 'no-text' || kind === 'too-large' || kind === 'unsupported';
    return { status: skipped ? 'skipped' : 'error', reason: err.message };
  }
  return { status: 'error', reason: `could not be parsed: ${errText(err)}` };
}

function errText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Part of every file record's key: OCR on (with its languages) or off. */
function ocrKey(ocr: OcrOptions): string {
  return ocr.enabled ? `+ocr(${ocr.languages})` : '+ocr(off)';
}
