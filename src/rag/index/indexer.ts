// The incremental, crash-safe indexer: walk → plan → (hash → parse in workers → chunk → embed) for changed files, with a
// bounded number of files in flight, and batched writes through the store (each file's passages replaced in one commit).
import * as path from 'path';
import { acquireWriterLock, WriterLockAbortedError, type LockHolder } from './writerLock';
import type { Engine } from '../engine';
import { chunkDocument } from '../chunk';
import { embedBuiltin } from '../embed';
import { EnrichRun, enrichForIndex, pruneEnrichCache } from '../enrich';
import type { FileRecord, FileStatus, FileUpdate } from '../store/types';
import { LoadError, type IndexedPassage } from '../types';
import { DEFAULT_OCR, type OcrOptions } from '../ingest/ocr';
import { expectedKey, hashFile, pipelineFingerprint, planChanges, recordKey, type Candidate, type IndexPlan } from './plan';
import { statPaths, walkFolder, type WalkEntry } from './walk';
import { annotateCompounds, compoundParts, embeddingText } from '../text/compounds';
import { Vocabulary, fileWordCounts, loadVocabulary, saveVocabulary } from '../store/vocabulary';

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
  // A file stored without its enrichment (model down or failing) is keyed as plain: the next run enriches it.
  const plainKey = `${info.id}:${info.model}+${pipelineFingerprint(config.chunk)}${ocrKey(ocr)}`;
  // The enrichment outage state is this run's: a model down now is asked again by the next run.
  const enrichRun = new EnrichRun();
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

  const walkOptions = {
    include: config.ingest.include,
    exclude: config.ingest.exclude,
    storeDir: engine.storeDir,
    signal,
    followExternalSymlinks: config.ingest.followExternalSymlinks === true,
  };
  let walked: WalkEntry[];
  let scope: Set<string> | undefined;
  if (o.paths) ({ entries: walked, scope } = await statPaths(engine.folder, o.paths, walkOptions));
  else walked = await walkFolder(engine.folder, walkOptions);
  lap('walk');
  const limits = { maxFileSizeMB: config.ingest.maxFileSizeMB, parseTimeoutMs: config.ingest.parseTimeoutMs };
  // A walk cut short by a cancel lists only part of the folder: planning from it would remove every file it missed.
  const plan: IndexPlan = signal?.aborted
    ? { add: [], update: [], remove: [], unchanged: [] }
    : planChanges(walked, await store.listFiles(), { full: o.full, embedderKey, scope, limits });
  filesTotal = walked.length;
  filesDone = plan.unchanged.length;
  lap('plan');
  let unchanged = plan.unchanged.length;

  // The German vocabulary of the compound splitter (store/vocabulary.ts). A small run keeps it current by adding the
  // written files' counts and subtracting the replaced and removed ones; a large, full, recovered or first run counts
  // it again from the table at the end and re-splits the German passages it wrote with the complete counts.
  const loaded = loadVocabulary(store.dir);
  const work = plan.add.length + plan.update.length + plan.remove.length;
  const known = plan.update.length + plan.remove.length + plan.unchanged.length;
  let recount = recovered || reembedded || !!o.full || !loaded || work > Math.max(20, 0.2 * known);
  const vocab = loaded ?? new Vocabulary();
  const germanWritten: string[] = [];

  if (plan.remove.length > 0) {
    progress('write');
    if (!recount) for (const p of plan.remove) vocab.add(fileWordCounts(await store.getFilePassages(p)), -1);
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
      if (store.addNewFiles && !recovered) await store.addNewFiles(batch.fresh);
      else await store.replaceFiles(batch.fresh);
      await store.replaceFiles(batch.changed);
      await store.recordFileStatuses(batch.statuses);
      if (!indexesChecked && batch.fresh.length + batch.changed.length > 0) {
        // A new index gets its keyword indexes after the first write, so even a killed first run leaves an index that answers.
        indexesChecked = true;
        await store.ensureIndexes?.();
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
    if (previous && !o.full && previous.hash === hash && previous.embedder === expectedKey(previous, embedderKey, limits)) {
      unchanged++;
      await enqueue('status', { ...previous, size: entry.size, mtimeMs: entry.mtimeMs });
      return;
    }
    let passages: IndexedPassage[];
    let key = embedderKey;
    try {
      const doc = await engine.parsers().parse(entry.abs, {
        timeoutMs: config.ingest.parseTimeoutMs,
        maxFileSizeMB: config.ingest.maxFileSizeMB,
        signal,
        // Recognised pages are cached by content hash in the store: a reindex or a rename never recognises twice.
        ocr: { ...ocr, cacheDir: path.join(engine.storeDir, 'ocr-cache') },
      });
      // The semantic strategy's breakpoints come from the builtin lexical sketch, whatever the index's embedder.
      passages = chunkDocument(doc, { path: entry.path, fileHash: hash }, config.chunk, { embedText: embedBuiltin });
      if (passages.length === 0) throw new LoadError('no-text', 'no extractable text');
      if (signal?.aborted) return;
      // Opt-in LLM enrichments (config.enrich, see src/rag/enrich): contextual indexText, abstractive L0/L1 summaries, cached.
      if (enrich) {
        const enriched = await enrichForIndex(passages, { config, storeDir: engine.storeDir, signal, run: enrichRun, onWarning: (m) => warnings.push(m) });
        passages = enriched.passages;
        if (!enriched.complete) key = plainKey;
      }
    } catch (err) {
      if (signal?.aborted) return;
      // A file that had passages and now fails loses them: its words leave the vocabulary.
      if (previous && !recount) vocab.add(fileWordCounts(await store.getFilePassages(entry.path)), -1);
      const { status, reason } = describeFailure(err);
      // Refused by a limit: the limit goes into the key, so raising it retries the file (see recordKey).
      const kind = err instanceof Error && 'kind' in err ? (err as LoadError).kind : undefined;
      const limit = kind === 'timeout' ? 'deadline' : kind === 'too-large' && tooLarge ? 'size' : undefined;
      await enqueue('status', { ...base, embedder: recordKey(embedderKey, limit, limits), hash, status, reason, passages: 0 });
      return;
    }
    // Compound parts from the vocabulary including this file (its own words count as parts too).
    if (previous && !recount) vocab.add(fileWordCounts(await store.getFilePassages(entry.path)), -1);
    vocab.add(fileWordCounts(passages));
    annotateCompounds(passages, vocab);
    if (passages.some((p) => p.lang === 'de')) germanWritten.push(entry.path);
    progress('embed', entry.path);
    const vectors: Float32Array[] = [];
    const t0 = Date.now();
    const size = Math.max(1, config.embed.batchSize);
    for (let i = 0; i < passages.length; i += size) {
      if (signal?.aborted) return;
      vectors.push(...(await embedder.embed(passages.slice(i, i + size).map((p) => embeddingText(p, embedder.id)), signal)));
    }
    embedMs += Date.now() - t0;
    passagesEmbedded += passages.length;
    if (previous) counts.updated++;
    else counts.added++;
    await enqueue(previous ? 'changed' : 'fresh', { record: { ...base, embedder: key, hash, status: 'indexed', reason: '', passages: passages.length }, passages, vectors });
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
  // The parser workers' memory goes back before the vocabulary recount and optimize (the peak of a large run).
  await engine.releaseParsers();
  lap('files');

  if (cancelled) recount = true;
  if (work > 0 || !loaded) {
    let final = vocab;
    if (recount && store.germanPassages) {
      const byFile = new Map<string, Pick<IndexedPassage, 'path' | 'level' | 'text' | 'lang'>[]>();
      for (const p of await store.germanPassages()) {
        const list = byFile.get(p.path) ?? [];
        list.push(p);
        byFile.set(p.path, list);
      }
      const counts = new Map<string, number>();
      for (const list of byFile.values()) fileWordCounts(list, counts);
      final = new Vocabulary(counts);
      if (store.rewriteKeywordParts && germanWritten.length > 0) {
        const cache = new Map<string, string[]>();
        await store.rewriteKeywordParts(
          germanWritten,
          (t) => compoundParts(t, final, cache),
          embedder.id === 'builtin' ? (texts) => embedder.embed(texts, signal) : undefined,
        );
      }
    }
    saveVocabulary(store.dir, final);
  }
  lap('vocabulary');

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
  // The enrichment cache keeps only what the indexed files use (a cancelled run asked for part of its files' keys only).
  if (enrich && !cancelled) pruneEnrichCache(engine.storeDir, records.filter((r) => r.status === 'indexed').map((r) => r.path));
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
  if (!store.indexNames) return true;
  if ((await store.countPassages()) === 0) return true;
  const names = await store.indexNames();
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
