// Third step of a run, for one added or changed file: hash → parse (in a worker) → chunk → links → (enrich) → compound
// parts → embed (a slow embedder's vectors are left pending and filled after the run's text is written,
// fillVectors.ts). Returns what to write; the run's BatchWriter writes it. Parse errors become the file's status; embedder
// errors are thrown (a model that is down fails every file alike, so the run stops).
import * as path from 'path';
import { chunkDocument } from '../chunk';
import { embedBuiltin } from '../embed';
import type { Engine } from '../engine';
import { EnrichRun, enrichForIndex } from '../enrich';
import { extractLinks, readLinkSource } from '../links';
import type { FileRecord, FileStatus, FileUpdate } from '../store/types';
import { embeddingText } from '../text/compounds';
import { LoadError, type IndexedPassage, type LinkRow } from '../types';
import type { RunKeys } from './keys';
import { expectedKey, hashFile, recordKey, type Candidate, type IngestLimits } from './plan';
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
  const tooLarge = entry.size > config.ingest.maxFileSizeMB * 1024 * 1024;
  let hash: string;
  try {
    hash = tooLarge ? `size:${entry.size}:${entry.mtimeMs}` : await hashFile(entry.abs, entry.size);
  } catch (err) {
    // Vanished or unreadable since the walk.
    return { kind: 'status', record: { ...base, hash: '', status: 'error', reason: `cannot read the file (${errText(err)})`, passages: 0 } };
  }
  if (previous && !ctx.full && previous.hash === hash && previous.pipelineKey === expectedKey(previous, keys.full, limits)) {
    return { kind: 'unchanged', record: { ...previous, size: entry.size, mtimeMs: entry.mtimeMs } };
  }
  let passages: IndexedPassage[];
  let links: LinkRow[];
  let key = keys.full;
  try {
    const doc = await engine.parsers().parse(entry.abs, {
      timeoutMs: config.ingest.parseTimeoutMs,
      maxFileSizeMB: config.ingest.maxFileSizeMB,
      signal,
      // Recognised pages are cached by content hash in the store: a reindex or a rename never recognises twice.
      ocr: { ...keys.ocr, cacheDir: path.join(engine.storeDir, 'ocr-cache') },
    });
    // The semantic strategy's breakpoints come from the builtin lexical sketch, whatever the index's embedder.
    passages = chunkDocument(doc, { path: entry.path, fileHash: hash }, config.chunk, { embedText: embedBuiltin });
    if (passages.length === 0) throw new LoadError('no-text', 'no extractable text');
    // The file's rows of the reference graph (links/): model-free, written and removed with its passages.
    links = extractLinks(passages, { path: entry.path, format: doc.format, raw: await readLinkSource(entry.abs, doc.format), titles: doc.title ? [doc.title] : [] });
    if (signal?.aborted) return { kind: 'cancelled' };
    // Opt-in LLM enrichments (config.enrich, see src/rag/enrich): contextual indexText, abstractive L0/L1 summaries, cached.
    if (keys.enrich) {
      const enriched = await enrichForIndex(passages, { config, storeDir: engine.storeDir, signal, run: ctx.enrichRun, onWarning: (m) => ctx.warnings.push(m) });
      passages = enriched.passages;
      if (!enriched.complete) key = keys.plain;
    }
  } catch (err) {
    if (signal?.aborted) return { kind: 'cancelled' };
    // A file that had passages and now fails loses them: its words leave the vocabulary.
    if (previous) await ctx.vocabulary.forget(entry.path);
    const { status, reason } = fileStatusOfError(err);
    // Refused by a limit: the limit goes into the key, so raising it retries the file (see recordKey).
    const kind = err instanceof Error && 'kind' in err ? (err as LoadError).kind : undefined;
    const limit = kind === 'timeout' ? 'deadline' : kind === 'too-large' && tooLarge ? 'size' : undefined;
    return { kind: 'status', record: { ...base, pipelineKey: recordKey(keys.full, limit, limits), hash, status, reason, passages: 0 } };
  }
  if (previous) await ctx.vocabulary.forget(entry.path);
  ctx.vocabulary.learn(entry.path, passages);
  const record: FileRecord = { ...base, pipelineKey: key, hash, status: 'indexed', reason: '', passages: passages.length };
  // A slow embedder's vectors are filled after the text is written (fillVectors.ts): keyword search works first.
  if (embedder.deferVectors) return { kind: 'indexed', fresh: !previous, update: { record, passages, vectors: [], vectorsPending: true, links } };
  progress.report('embed', entry.path);
  const vectors: Float32Array[] = [];
  const t0 = Date.now();
  const size = Math.max(1, config.embed.batchSize);
  for (let i = 0; i < passages.length; i += size) {
    if (signal?.aborted) return { kind: 'cancelled' };
    vectors.push(...(await embedder.embed(passages.slice(i, i + size).map((p) => embeddingText(p, embedder.id)), signal)));
  }
  progress.embedMs += Date.now() - t0;
  progress.passagesEmbedded += passages.length;
  return { kind: 'indexed', fresh: !previous, update: { record, passages, vectors, links } };
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
