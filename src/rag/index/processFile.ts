// Third step of a run, for one added or changed file: in a parser worker (prepareFile.ts) hash → parse → chunk → links
// → word counts → builtin vectors of the passages without compound parts; here (enrich) → vocabulary and compound parts
// → embed the rest: the builtin embedder's in a parser worker again (embedTexts), so the main thread, which every
// file's writes pass through, does not embed; other embedders here (a slow embedder's vectors are left pending and
// filled after the run's text is written, fillVectors.ts). Returns what to write; the run's BatchWriter writes it. Parse errors become the file's status; embedder
// errors are thrown (a model that is down fails every file alike, so the run stops).
import * as path from 'path';
import type { Engine } from '../engine';
import { EnrichRun, enrichForIndex } from '../enrich';
import type { FileRecord, FileStatus, FileUpdate, StoredVector } from '../store/types';
import { unpackVector, type PackedVectors } from '../store/vectorCodes';
import { embeddingText } from '../text/compounds';
import { LoadError } from '../types';
import type { RunKeys } from './keys';
import type { EmbedSpec, PrepareSpec, PreparedFile } from './prepareFile';
import { hashFile } from './fileHash';
import { expectedKey, recordKey, type Candidate, type IngestLimits } from './plan';
import type { RunProgress } from './progress';
import type { RunVocabulary } from './runVocabulary';

export interface FileJobContext {
  engine: Engine;
  keys: RunKeys;
  limits: IngestLimits;
  /** Re-parse and re-embed even when the hash is unchanged. */
  full?: boolean;
  signal?: AbortSignal;
  vocabulary: RunVocabulary;
  progress: RunProgress;
  /** The enrichment outage state of this run (a model down now is asked again by the next run). */
  enrichRun: EnrichRun;
  warnings: string[];
}

export type FileOutcome =
  /** Same content and key as its record: only size and mtime are updated. */
  | { kind: 'unchanged'; record: FileRecord }
  /** Not indexed (unreadable, refused, failed to parse): the record says why. */
  | { kind: 'status'; record: FileRecord }
  | { kind: 'indexed'; fresh: boolean; update: FileUpdate }
  /** Cancelled midway: nothing to write. */
  | { kind: 'cancelled' };

export async function processFile(c: Candidate, ctx: FileJobContext): Promise<FileOutcome> {
  const { engine, keys, limits, signal, progress } = ctx;
  const { config, embedder } = engine;
  const { entry, previous } = c;
  progress.report('parse', entry.path);
  const base = { path: entry.path, size: entry.size, mtimeMs: entry.mtimeMs, pipelineKey: keys.full, indexedAt: Date.now() };
  // Not a readable file (a named pipe, a link loop): never opened, recorded with the walk's reason.
  if (entry.skip) {
    if (previous) await ctx.vocabulary.forget(entry.path);
    return { kind: 'status', record: { ...base, hash: '', status: 'skipped', reason: entry.skip, passages: 0 } };
  }
  const reusable = previous && !ctx.full && previous.pipelineKey === expectedKey(previous, keys.full, limits);
  const tooLarge = entry.size > config.ingest.maxFileSizeMB * 1024 * 1024;
  // A file over the size limit is not read at all (the pool refuses it): size + mtime stand in for its content hash.
  const sizeHash = tooLarge ? `size:${entry.size}:${entry.mtimeMs}` : undefined;
  if (reusable && sizeHash !== undefined && previous.hash === sizeHash) {
    return { kind: 'unchanged', record: { ...previous, size: entry.size, mtimeMs: entry.mtimeMs } };
  }
  // Builtin vectors are computed in the worker unless the text changes afterwards (enrichment) or they are filled later.
  const builtinInWorker = embedder.id === 'builtin' && !embedder.deferVectors && !keys.enrich;
  const builtin = builtinInWorker ? { dimension: embedder.dimension, layout: embedder.vectorLayout } : undefined;
  const spec: PrepareSpec = {
    path: entry.path,
    unchangedHash: reusable ? previous.hash : undefined,
    chunk: config.chunk,
    builtin,
  };
  let prepared: PreparedFile;
  try {
    prepared = await engine.parsers().run<PreparedFile>(entry.abs, {
      timeoutMs: config.ingest.parseTimeoutMs,
      maxFileSizeMB: config.ingest.maxFileSizeMB,
      size: entry.size,
      signal,
      // Recognised pages are cached by content hash in the store: a reindex or a rename never recognises twice.
      ocr: { ...keys.ocr, cacheDir: path.join(engine.storeDir, 'ocr-cache') },
    }, spec);
  } catch (err) {
    if (signal?.aborted) return { kind: 'cancelled' };
    // The pool refused the file or its worker died (deadline, crash, memory): the worker's hash never came back.
    let hash: string;
    try {
      hash = sizeHash ?? (await hashFile(entry.abs, entry.size));
    } catch (readErr) {
      // Vanished or unreadable since the walk.
      if (previous) await ctx.vocabulary.forget(entry.path);
      return { kind: 'status', record: { ...base, hash: '', status: 'error', reason: `cannot read the file (${errText(readErr)})`, passages: 0 } };
    }
    return failed(err, hash);
  }
  if ('unchanged' in prepared) return { kind: 'unchanged', record: { ...previous!, size: entry.size, mtimeMs: entry.mtimeMs } };
  if ('failure' in prepared) {
    const { kind, message } = prepared.failure;
    return failed(kind ? new LoadError(kind, message) : new Error(message), prepared.hash);
  }
  const { hash, links } = prepared;
  let { passages } = prepared;
  let key = keys.full;
  if (signal?.aborted) return { kind: 'cancelled' };
  // Opt-in LLM enrichments (config.enrich, see src/rag/enrich): contextual indexText, abstractive L0/L1 summaries, cached.
  if (keys.enrich) {
    try {
      const enriched = await enrichForIndex(passages, { config, storeDir: engine.storeDir, signal, run: ctx.enrichRun, onWarning: (m) => ctx.warnings.push(m) });
      passages = enriched.passages;
      if (!enriched.complete) key = keys.plain;
    } catch (err) {
      if (signal?.aborted) return { kind: 'cancelled' };
      return failed(err, hash);
    }
  }
  if (previous) await ctx.vocabulary.forget(entry.path);
  ctx.vocabulary.learn(entry.path, passages, keys.enrich ? undefined : prepared.wordCounts);
  const record: FileRecord = { ...base, pipelineKey: key, hash, status: 'indexed', reason: '', passages: passages.length };
  // A slow embedder's vectors are filled after the text is written (fillVectors.ts): keyword search works first.
  if (embedder.deferVectors) return { kind: 'indexed', fresh: !previous, update: { record, passages, vectors: [], vectorsPending: true, links } };
  progress.report('embed', entry.path);
  const t0 = Date.now();
  // The worker's builtin vectors, then the rest here (German passages now have their compound parts; other embedders all).
  const vectors: StoredVector[] = new Array(passages.length);
  let todo = passages.map((_, i) => i);
  if (builtin && prepared.vectors) {
    for (let i = 0; i < passages.length; i++) vectors[i] = unpackVector(prepared.vectors, i);
    todo = prepared.unembedded ?? [];
    if (todo.length > 0) {
      const texts: EmbedSpec = { texts: todo.map((j) => embeddingText(passages[j], embedder.id)), builtin };
      try {
        const packed = await engine.parsers().compute<PackedVectors>(texts, { timeoutMs: config.ingest.parseTimeoutMs, signal });
        todo.forEach((j, k) => (vectors[j] = unpackVector(packed, k)));
        todo = [];
      } catch {
        // Cancelled, or the worker died: the texts are embedded here (the same vectors, computed on this thread).
        if (signal?.aborted) return { kind: 'cancelled' };
      }
    }
  }
  const size = Math.max(1, config.embed.batchSize);
  for (let i = 0; i < todo.length; i += size) {
    if (signal?.aborted) return { kind: 'cancelled' };
    const batch = todo.slice(i, i + size);
    const out = await embedder.embed(batch.map((j) => embeddingText(passages[j], embedder.id)), signal);
    batch.forEach((j, k) => (vectors[j] = out[k]));
  }
  progress.embedMs += Date.now() - t0;
  progress.passagesEmbedded += passages.length;
  return { kind: 'indexed', fresh: !previous, update: { record, passages, vectors, links } };

  /** A file that had passages and now fails loses them (its words leave the vocabulary); the record says why. */
  async function failed(err: unknown, hash: string): Promise<FileOutcome> {
    if (previous) await ctx.vocabulary.forget(entry.path);
    const { status, reason } = fileStatusOfError(err);
    // Refused by a limit: the limit goes into the key, so raising it retries the file (see recordKey).
    const kind = err instanceof Error && 'kind' in err ? (err as LoadError).kind : undefined;
    const limit = kind === 'timeout' ? 'deadline' : kind === 'too-large' && tooLarge ? 'size' : undefined;
    return { kind: 'status', record: { ...base, pipelineKey: recordKey(keys.full, limit, limits), hash, status, reason, passages: 0 } };
  }
}

/**
 * The status and reason of a file its loader refused or failed on. Skipped = the file is fine but has nothing for us
 * (protected, empty, too large, unsupported); error = it could not be read.
 */
export function fileStatusOfError(err: unknown): { status: FileStatus; reason: string } {
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
