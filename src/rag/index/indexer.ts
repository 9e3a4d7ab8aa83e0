// The incremental, crash-safe indexer, in steps: lock (indexFolder) → bind the embedder and recover (recover.ts) →
// walk and plan (scan.ts) → process the changed files, a few in flight (processFile.ts), their results written in
// batches by the run's only writer (batchWriter.ts) → optimize → vocabulary (runVocabulary.ts) → result; with a slow
// embedder the text is written first and the vectors are filled afterwards in batches (fillVectors.ts).
import type { Engine } from '../engine';
import { recordedSettings } from '../config';
import { EnrichRun, pruneEnrichCache } from '../enrich';
import type { IndexStore } from '../store/types';
import { embedderInfo } from '../types';
import { BatchWriter } from './batchWriter';
import { fillPendingVectors } from './fillVectors';
import { runBounded } from './boundedRun';
import { runKeys } from './keys';
import type { IndexPlan } from './plan';
import { processFile, type FileJobContext } from './processFile';
import { RunProgress, type IndexProgress } from './progress';
import { bindAndRecover, type RecoveryResult } from './recover';
import { RunVocabulary } from './runVocabulary';
import { scanChanges } from './scan';
import { jobsOf, type Job, type JobKind, type RunFacts } from './lifecycle';
import { planFor, runJob, runJobsInProcess } from './maintenance';
import { acquireWriterLock, WriterLockAbortedError, type LockHolder } from './writerLock';

export type { IndexProgress };

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
  /**
   * Documents and folders that include/exclude select but the folder's ignore files (.gitignore, .ignore) leave out, as
   * the walk met them (a folder counts once, its content is not looked at); only after a walk of the whole folder.
   */
  ignored?: number;
  /** Milliseconds spent per step of the run (diagnostics). */
  timings?: Record<string, number>;
  /** Milliseconds until every file's text was written (keyword search ready); a slow embedder's vectors came after. */
  keywordReadyMs?: number;
  /**
   * Milliseconds until every passage was searchable: written with its vector and covered by the keyword indexes (vector
   * search exact, or by an older vector index completed with a flat scan). The vector-index step comes after it.
   */
  searchableMs?: number;
  /**
   * The maintenance jobs the run's plan left after it (index/lifecycle.ts), with `maintenance: 'caller'`: 'after' ones
   * belong to the run (a large run's compaction and vector index), 'background' ones to the background.
   */
  maintenance?: Job[];
  /** The jobs this process ran after the run (`maintenance: 'inline'`) or the caller's executor ran. */
  maintained?: JobKind[];
  /** Passages with their vector, of all passages, when the run ended (a cancelled or failed fill leaves some pending). */
  vectors?: { filled: number; total: number };
  /** The fill gave way to a waiting run (`IndexOptions.yieldFill`), which continues it. */
  vectorsYielded?: boolean;
}

export interface IndexOptions {
  onProgress?: (p: IndexProgress) => void;
  signal?: AbortSignal;
  /** Incremental hint (e.g. from a file watcher): only these files/folders are looked at. */
  paths?: string[];
  /** Re-parse and re-embed every file. */
  full?: boolean;
  /**
   * Who runs the maintenance the run's plan leaves after it (index/lifecycle.ts: folding rows into the indexes,
   * compaction, the vector index, the link counts): this process right after the run ('inline', default), the caller
   * ('caller': the jobs are in `maintenance` of the result, for the executor of maintenance.ts, which runs them in
   * processes of their own), or nobody ('none': the next maintenance plans them again).
   */
  maintenance?: 'inline' | 'caller' | 'none';
  /** When another process writes this index: wait for it (default) or fail at once with WriterLockBusyError. */
  wait?: boolean;
  /** Called once when the run starts waiting for another process's writer lock. */
  onWait?: (holder: LockHolder) => void;
  /**
   * Asked while a slow embedder's vectors are filled: true ends the run there (not cancelled; `vectorsYielded` in the
   * result), so that a run waiting behind this one (a watcher's changed files) writes its text first; that run continues
   * the fill. The extension's indexing process and `docs-rag mcp --watch` pass "another run waits".
   */
  yieldFill?: () => boolean;
}

/**
 * Indexes the engine's folder through its write queue (so runs, watcher updates and optimize never interleave). With a
 * slow embedder (`deferVectors`) the files' text is written first (keyword search works from then on, `keywordReadyMs`),
 * then the pending vectors — this run's and any an earlier, killed or cancelled run left — are filled in batches, each
 * its own queue job (progress phase 'vectors').
 */
export async function indexFolder(engine: Engine, o: IndexOptions = {}): Promise<IndexRunResult> {
  const started = Date.now();
  const progress = new RunProgress(o.onProgress);
  // When every written passage became searchable (by keyword; by vector too unless vectors are filled afterwards).
  const searchable: { at?: number } = {};
  const written: RunFacts = { rowsWritten: 0, rowsRemoved: 0, cancelled: false };
  const result = await writeText(engine, o, progress, searchable, written);
  if (result.cancelled) return finish(result, progress);
  result.keywordReadyMs = searchable.at !== undefined ? searchable.at - started : result.ms;
  const before = await engine.store.vectorCounts();
  if (before.filled < before.total) {
    // Searchable once the vectors are filled.
    searchable.at = undefined;
    const fill = await fillPendingVectors(engine, {
      signal: o.signal,
      yieldWhen: o.yieldFill,
      onBatch: (counts) => {
        progress.vectors = counts;
        progress.report('vectors');
      },
    });
    if (fill.yielded) result.vectorsYielded = true;
    else if (fill.stopped) result.cancelled = true;
    // The model is not needed for the maintenance that follows (a search loads it again); a yielded fill keeps it for
    // the run that continues.
    if (!fill.yielded && (largeRun((result.added ?? 0) + (result.updated ?? 0)) || fill.filled - before.filled > 1000)) await engine.embedder.release?.();
    progress.lap('vectors');
  }
  result.vectors = await engine.store.vectorCounts();
  result.ms = Date.now() - started;
  result.searchableMs = (searchable.at ?? Date.now()) - started;
  // A yielded fill leaves the maintenance to the run that completes it.
  if (result.cancelled || result.vectorsYielded) return finish(result, progress);
  written.cancelled = !!result.cancelled;
  await maintainAfter(engine, o, written, result, progress);
  result.ms = Date.now() - started;
  return finish(result, progress);
}

/** The run's plan after its text and vectors are written: the caller's, or run here ('inline'), or nobody's. */
async function maintainAfter(engine: Engine, o: IndexOptions, run: RunFacts, result: IndexRunResult, progress: RunProgress): Promise<void> {
  const mode = o.maintenance ?? 'inline';
  if (mode === 'none') return;
  const jobs = await engine.queue.run(() => planFor(engine.store, run));
  const later = [...jobsOf(jobs, 'after'), ...jobsOf(jobs, 'background')];
  if (mode === 'caller') {
    result.maintenance = later;
    return;
  }
  if (later.length === 0) return;
  progress.report('optimize');
  result.maintained = await engine.queue.run(async () => {
    const release = await engine.acquireWriter({ wait: o.wait, signal: o.signal, purpose: 'optimizing' });
    try {
      return await runJobsInProcess(engine.store, ['after', 'background'], run);
    } finally {
      await release();
    }
  });
  progress.lap('maintenance');
}

function finish(result: IndexRunResult, progress: RunProgress): IndexRunResult {
  result.timings = progress.timings;
  progress.filesDone = progress.filesTotal;
  progress.report('done');
  return result;
}

/** The run up to the written text (and, with an inline embedder, the vectors), under the writer lock. */
function writeText(engine: Engine, o: IndexOptions, progress: RunProgress, searchable: { at?: number }, written: RunFacts): Promise<IndexRunResult> {
  return engine.queue.run(async () => {
    const started = Date.now();
    let release: () => Promise<void>;
    try {
      // One writer per store across processes (the queue only orders the writers of this process).
      release = await engine.acquireWriter({ wait: o.wait, signal: o.signal, onWait: o.onWait, purpose: 'indexing' });
    } catch (err) {
      if (err instanceof WriterLockAbortedError) return cancelledBeforeStart(engine, started);
      throw err;
    }
    try {
      return await runIndex(engine, o, progress, searchable, written);
    } finally {
      await release();
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

async function runIndex(engine: Engine, o: IndexOptions, progress: RunProgress, searchable: { at?: number }, written: RunFacts): Promise<IndexRunResult> {
  const started = Date.now();
  const { store, embedder, config } = engine;
  const signal = o.signal;
  const warnings = [...engine.warnings];
  progress.report('scan');
  await embedder.init(signal);
  const info = embedderInfo(embedder);
  const keys = runKeys(info, config);
  const recovery = await bindAndRecover(store, info, warnings, keys.full, recordedSettings(config));
  progress.lap('open');

  const limits = { maxFileSizeMB: config.ingest.maxFileSizeMB, parseTimeoutMs: config.ingest.parseTimeoutMs };
  const { walked, plan, ignored } = await scanChanges(engine, o, keys.full, limits, progress);
  progress.filesTotal = walked;
  progress.filesDone = plan.unchanged.length;

  // With deferred vectors the files phase embeds nothing: a large run unloads the model for it (a local model's weights
  // and sessions are the largest part of the process) and the fill at the end loads it again.
  if (embedder.deferVectors && largeRun(plan.add.length + plan.update.length)) await embedder.release?.();
  const work = plan.add.length + plan.update.length + plan.remove.length;
  const known = plan.update.length + plan.remove.length + plan.unchanged.length;
  const vocabulary = new RunVocabulary(store, recovery.recovered || recovery.reembedded || !!o.full, work, known);
  const writer = new BatchWriter(store, !recovery.recovered, () => progress.report('write'));
  if (plan.remove.length > 0) {
    progress.report('write');
    for (const p of plan.remove) await vocabulary.forget(p);
    await writer.remove(plan.remove);
  }
  const ctx: FileJobContext = { engine, keys, limits, full: o.full, signal, vocabulary, progress, enrichRun: new EnrichRun(), warnings };
  const files = await processFiles(plan, ctx, writer);
  // The parser workers' memory goes back before the maintenance and the vocabulary recount, the peak of a large run.
  // Watcher updates (few files) keep their warm workers.
  if (!o.paths || largeRun(plan.add.length + plan.update.length)) await engine.releaseParsers();
  progress.lap('files');

  written.rowsWritten = writer.rowsWritten;
  const byPath = new Map((await store.listFiles()).map((r) => [r.path, r]));
  written.rowsRemoved = plan.remove.reduce((n, p) => n + (byPath.get(p)?.passages ?? 0), 0) + plan.update.reduce((n, c) => n + (c.previous?.passages ?? 0), 0);
  written.cancelled = files.cancelled;
  const wrote = plan.remove.length + plan.add.length + plan.update.length > 0;
  // What search cannot do without (keyword indexes over a new table, or anew after a run that replaced most of it) is
  // done now; everything else is left to the maintenance after the run (lifecycle.ts).
  const now = (await planFor(store, written)).filter((j) => j.phase === 'now');
  if (now.length > 0) progress.report('optimize');
  for (const job of now) await runJob(store, job);
  progress.lap('optimize');

  // Every passage is searchable now: written with its vector (a slow embedder's are filled after this text step) and
  // found by keyword search (rows outside the indexes are scanned until the maintenance folds them in).
  searchable.at = Date.now();

  // Then what refines a large run without anyone waiting for it: the compound re-split with the complete counts (until
  // it, German passages are found with the parts split from the counts of their time, as in every incremental run).
  await vocabulary.finish(embedder, files.cancelled, signal);
  progress.lap('vocabulary');
  if (wrote || vocabulary.rewritten > 0 || recovery.recovered) await store.noteMaintenance({ optimizeDue: true, countLinks: true, ...(recovery.recovered ? { unverified: true } : {}) });
  // Cancelled runs are consistent too (only whole files were written); only a killed run leaves the mark.
  await store.markRun(false);
  // The enrichment cache keeps only what the indexed files use (a cancelled run asked for part of its files' keys only).
  const result = await summarise(engine, started, plan, files, recovery, warnings, { prune: !!keys.enrich && !files.cancelled, ignored });
  progress.lap('finish');
  return result;
}

/** A run writing more files than this frees its parser workers and (deferred vectors) its model between steps. */
const LARGE_RUN_FILES = 20;

function largeRun(filesWritten: number): boolean {
  return filesWritten > LARGE_RUN_FILES;
}

interface FilesResult {
  added: number;
  updated: number;
  unchanged: number;
  cancelled: boolean;
}

/**
 * The files in flight hold at most this much source together (a larger file is processed alone): a parse takes many
 * times its file's size (an HTML manual's DOM alone is dozens of times the file), so a few large files at once set a run's peak.
 */
export const IN_FLIGHT_BYTES = 8 * 1024 * 1024;

/** Processes the added and changed files, a few in flight, and hands their results to the writer. */
async function processFiles(plan: IndexPlan, ctx: FileJobContext, writer: BatchWriter): Promise<FilesResult> {
  const { config } = ctx.engine;
  const counts = { added: 0, updated: 0, unchanged: plan.unchanged.length };
  // A few files in flight: enough to keep the parser workers and the embedder busy, bounded memory.
  const inFlight = Math.max(3, config.ingest.workers * 2 + 1);
  const { cancelled, failure } = await runBounded(
    [...plan.add, ...plan.update],
    inFlight,
    async (c) => {
      // A file heavier than the budget runs alone (runBounded): the idle parser workers' heaps (grown by the files they
      // parsed) go back first, so only the one parsing it is alive during the run's largest parse.
      if (c.entry.size > IN_FLIGHT_BYTES) await ctx.engine.releaseParsers();
      const outcome = await processFile(c, ctx);
      if (outcome.kind === 'unchanged') {
        counts.unchanged++;
        await writer.write('status', outcome.record);
      } else if (outcome.kind === 'status') await writer.write('status', outcome.record);
      else if (outcome.kind === 'indexed') {
        if (outcome.fresh) counts.added++;
        else counts.updated++;
        await writer.write(outcome.fresh ? 'fresh' : 'changed', outcome.update);
      }
    },
    {
      signal: ctx.signal,
      weight: (c) => c.entry.size,
      budget: IN_FLIGHT_BYTES,
      onDone: (c) => {
        ctx.progress.filesDone++;
        ctx.progress.report('parse', c.entry.path);
      },
    },
  );
  // Embedder and store errors stop the run (a model that is down fails every file alike), after what is done is written.
  await writer.close();
  if (failure) throw failure;
  return { ...counts, cancelled };
}

/** The run's result from the files table, recorded as the index's last run. */
async function summarise(
  engine: Engine,
  started: number,
  plan: IndexPlan,
  files: FilesResult,
  recovery: RecoveryResult,
  warnings: string[],
  o: { prune: boolean; /** From a walk of the whole folder; undefined after a hinted run. */ ignored?: number },
): Promise<IndexRunResult> {
  const { store } = engine;
  const records = await store.listFiles();
  if (o.prune) pruneEnrichCache(engine.storeDir, records.filter((r) => r.status === 'indexed').map((r) => r.path));
  const result: IndexRunResult = {
    files: records.filter((r) => r.status === 'indexed' && r.passages > 0).length,
    chunks: await store.countPassages(),
    unchanged: files.unchanged,
    errors: records.filter((r) => r.status !== 'indexed').map((r) => ({ path: r.path, reason: r.reason })),
    ms: Date.now() - started,
    added: files.added,
    updated: files.updated,
    removed: plan.remove.length,
  };
  if (recovery.reembedded) result.reembedded = true;
  if (files.cancelled) result.cancelled = true;
  if (recovery.recovered) result.recovered = true;
  if (recovery.repairedPassages > 0) result.repairedPassages = recovery.repairedPassages;
  if (warnings.length > 0) result.warnings = warnings;
  if (o.ignored) result.ignored = o.ignored;
  // A hinted run did not walk the folder: the last walk's count stands.
  const ignored = o.ignored ?? store.meta()?.lastRun?.ignored;
  await store.setLastRun({ startedAt: started, finishedAt: Date.now(), files: result.files, errors: result.errors.length, unchanged: files.unchanged, ...(ignored ? { ignored } : {}) });
  return result;
}
