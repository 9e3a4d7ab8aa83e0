// LLM-built index enrichments (opt-in, off by default):
// - contextual retrieval: a short model-written context per passage (L2), prepended to `indexText` (embedding and
//   keyword search) while `text` stays the original for display and citations;
// - abstractive summaries for documents (L0) and sections (L1), falling back to the extractive summary on any error.
// Results are cached by content hash, so unchanged passages never pay twice and a killed run resumes.
import { DEFAULT_OLLAMA_CHAT_MODEL, type EngineConfig, type EnrichConfig } from '../config';
import { OllamaChatModel } from '../llm/ollamaChat';
import { contextMessages, summaryMessages } from '../llm/prompts';
import { ModelError, type ChatModel, type IndexedPassage } from '../types';
import { cacheKey, EnrichCache, type PruneResult } from './cache';

export { CACHE_FILE, cacheKey, EnrichCache, type PruneResult } from './cache';

export interface EnrichProgress {
  done: number;
  total: number;
  cached: number;
  generated: number;
  failed: number;
}

export interface EnrichContext {
  chatModel: ChatModel;
  /** Directory of the cache file (the store directory). */
  cacheDir: string;
  signal?: AbortSignal;
  onProgress?: (p: EnrichProgress) => void;
  /** Which enrichments to build (both by default). */
  contextual?: boolean;
  summaries?: boolean;
  /** Problems worth telling the user (model down, …); enrichment then stops for this call and indexing goes on. */
  onWarning?: (message: string) => void;
  /** Longest input given to the model for one summary (characters). Default 6000. */
  maxInputChars?: number;
  /** Use cached results only (the model is known to be unavailable). */
  offline?: boolean;
}

export interface EnrichStats extends EnrichProgress {
  /** Cache entries of this run (hits / misses / written), for tests and logs. */
  hits: number;
  misses: number;
}

const MAX_CONTEXT_CHARS = 400;
const MAX_SUMMARY_CHARS = 1200;

function clean(text: string, max: number): string {
  const t = text
    .replace(/<\/?(?:context|summary|text|passage|document)[^>]*>/gi, '')
    .replace(/\s+/g, ' ')
    .trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function indexTextWith(p: IndexedPassage, prefix: string): string {
  return `${prefix}\n${p.indexText}`;
}

/**
 * Enriches the passages of one document (as the chunker returned them). Returns new passage objects; the input is not
 * changed. A ModelError that means the model cannot be used (unreachable, missing) stops further calls in this run with a
 * warning; any other failure leaves that passage as it was. Cancellation (signal) throws.
 */
export async function enrichPassages(passages: IndexedPassage[], ctx: EnrichContext): Promise<IndexedPassage[]> {
  return (await enrichPassagesWithStats(passages, ctx)).passages;
}

export async function enrichPassagesWithStats(
  passages: IndexedPassage[],
  ctx: EnrichContext,
): Promise<{ passages: IndexedPassage[]; stats: EnrichStats }> {
  const doContext = ctx.contextual ?? true;
  const doSummaries = ctx.summaries ?? true;
  const cache = EnrichCache.open(ctx.cacheDir);
  const hits0 = cache.hits;
  const misses0 = cache.misses;
  const model = ctx.chatModel.id;
  const maxInput = ctx.maxInputChars ?? 6000;
  const out = passages.map((p) => ({ ...p }));
  const jobs: { p: IndexedPassage; kind: 'context' | 'summary' }[] = [];
  for (const p of out) {
    if (doSummaries && (p.level === 0 || p.level === 1)) jobs.push({ p, kind: 'summary' });
    if (doContext && p.level === 2) jobs.push({ p, kind: 'context' });
  }
  // Only the keys asked for now belong to these files (results of their old content can be pruned).
  for (const file of new Set(passages.map((p) => p.path))) cache.beginFile(file);
  const progress: EnrichProgress = { done: 0, total: jobs.length, cached: 0, generated: 0, failed: 0 };
  let stopped = ctx.offline ?? false;

  // Inputs: the document's extractive summary (L0 text) situates each passage; a section's own passages feed its summary.
  const docSummary = new Map<string, string>();
  for (const p of passages) if (p.level === 0) docSummary.set(p.path, p.text);
  const childrenText = (id: string): string =>
    passages
      .filter((c) => c.parentId === id)
      .sort((a, b) => a.order - b.order)
      .map((c) => c.text)
      .join('\n\n');

  for (const job of jobs) {
    if (ctx.signal?.aborted) throw new ModelError('cancelled', 'Enrichment cancelled.');
    const { p } = job;
    let key: string;
    let messages;
    if (job.kind === 'context') {
      const doc = docSummary.get(p.path) ?? p.title;
      key = cacheKey('context-v1', model, p.text, doc);
      messages = contextMessages(p.title, doc, p);
    } else {
      // L1: the section's passages; L0: the section summaries (or, for a flat document, its passages).
      let source = childrenText(p.id) || p.text;
      if (source.length > maxInput) source = `${source.slice(0, maxInput)}…`;
      key = cacheKey(`summary-v1-L${p.level}`, model, source);
      messages = summaryMessages(p.title, source, p.level as 0 | 1);
    }
    let value = cache.get(key, p.path);
    if (value !== undefined) {
      progress.cached++;
    } else if (!stopped) {
      try {
        const res = await ctx.chatModel.chat(messages, { signal: ctx.signal, temperature: 0 });
        value = clean(res.text, job.kind === 'context' ? MAX_CONTEXT_CHARS : MAX_SUMMARY_CHARS);
        if (value) {
          cache.put(key, value, p.path);
          progress.generated++;
        } else {
          progress.failed++;
        }
      } catch (err) {
        if (ctx.signal?.aborted || (err instanceof ModelError && err.kind === 'cancelled')) throw err;
        progress.failed++;
        if (err instanceof ModelError && ['unreachable', 'model-missing', 'timeout'].includes(err.kind)) {
          stopped = true;
          ctx.onWarning?.(`Index enrichment stopped (passages keep their plain text): ${err.message}`);
        }
      }
    } else {
      progress.failed++;
    }
    if (value) {
      if (job.kind === 'context') p.indexText = indexTextWith(p, value);
      else {
        // The abstractive summary replaces the extractive one for display and search; headings stay in indexText.
        const headings = p.indexText.endsWith(p.text) ? p.indexText.slice(0, p.indexText.length - p.text.length) : '';
        p.text = value;
        p.indexText = `${headings}${value}`;
      }
    }
    progress.done++;
    ctx.onProgress?.({ ...progress });
  }
  return { passages: out, stats: { ...progress, hits: cache.hits - hits0, misses: cache.misses - misses0 } };
}

/** Settings of the enrichments (EngineConfig.enrich). */
export type EnrichSettings = EnrichConfig;

/** Whether the configuration asks for any enrichment. */
export function enrichEnabled(config: Pick<EngineConfig, 'embed'> & { enrich?: EnrichSettings }): boolean {
  return !!config.enrich && (config.enrich.contextual || config.enrich.summaries);
}

const models = new Map<string, OllamaChatModel>();

/**
 * The state of one indexing run: a model that failed for good in this run (unreachable, missing, timing out) is not asked
 * again for each file, and the warning is given once. The next run asks again (Ollama may be up by then).
 */
export class EnrichRun {
  /** host|model → the warning of its failure. */
  readonly broken = new Map<string, string>();
}

export interface EnrichedFile {
  passages: IndexedPassage[];
  /**
   * Every enrichment asked for is in the passages. False when a model call failed or the model was down: the file is
   * stored plain and must be keyed as not enriched, so a later run with a reachable model enriches it.
   */
  complete: boolean;
}

/**
 * The indexer's hook: enriches one document's passages as configured (Ollama at config.embed.ollamaHost), caching in the
 * store directory. Returns the passages unchanged (complete) when enrichment is off. `run` carries the outage state of
 * one indexing run across its files (a fresh one per call when absent).
 */
export async function enrichForIndex(
  passages: IndexedPassage[],
  o: {
    config: Pick<EngineConfig, 'embed'> & { enrich?: EnrichSettings };
    storeDir: string;
    signal?: AbortSignal;
    chatModel?: ChatModel;
    onWarning?: (m: string) => void;
    run?: EnrichRun;
  },
): Promise<EnrichedFile> {
  const e = o.config.enrich;
  if (!e || !enrichEnabled(o.config)) return { passages, complete: true };
  const name = e.model ?? DEFAULT_OLLAMA_CHAT_MODEL;
  const host = o.config.embed.ollamaHost;
  const k = `${host}|${name}`;
  const broken = (o.run ?? new EnrichRun()).broken;
  let chatModel = o.chatModel;
  if (!chatModel) {
    chatModel = models.get(k) ?? new OllamaChatModel({ model: name, host, timeoutMs: o.config.embed.timeoutMs });
    models.set(k, chatModel as OllamaChatModel);
  }
  let warning: string | undefined;
  const result = await enrichPassagesWithStats(passages, {
    chatModel,
    cacheDir: o.storeDir,
    signal: o.signal,
    contextual: e.contextual,
    summaries: e.summaries,
    // Once broken in this run, later files only use cached results (no model call, no repeated warning).
    offline: broken.has(k),
    onWarning: (m) => (warning = m),
  });
  if (warning && !broken.has(k)) {
    broken.set(k, warning);
    o.onWarning?.(warning);
  }
  return { passages: result.passages, complete: result.stats.failed === 0 };
}

/**
 * After a finished indexing run with enrichments: drops cached results no indexed file uses any more (`live`: relative
 * paths of the files in the index) and compacts the cache file when enough of it is stale.
 */
export function pruneEnrichCache(storeDir: string, live: Iterable<string>): PruneResult {
  return EnrichCache.open(storeDir).prune(new Set(live));
}
