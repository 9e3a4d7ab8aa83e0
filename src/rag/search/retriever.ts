// The retrieval orchestrator: analyses the query, picks a flow (strategy) — the chunk flow (classic retrieval) or the
// summary flow (section/document summaries for overview questions) — runs the optional LLM stages with fallbacks, and
// builds the budgeted answer context. Every query returns a trace; LLM failures become warnings, never errors.
import type { ChatModel, Embedder, Lang, Level, SearchHit } from '../types';
import type { IndexStore } from '../store/types';
import { analyzeQuery } from './analyze';
import { augmentHits } from './augment';
import { contextBudget, countedPassageTokens, fillBudget, passageTokens } from './budget';
import { gatherCandidates } from './candidates';
import type { SearchSettings } from './configs';
import { hypotheticalDocument, multiQuery } from './expand';
import { lexicalVariant } from './lexical';
import { compoundParts } from '../text/compounds';
import { derivationTerms } from '../text/derivations';
import { spellingTerms } from '../text/spelling';
import { stem } from '../text/stem';
import { currentVocabulary } from '../store/vocabulary';
import { capPerDocument, dropNearDuplicates } from './dedupe';
import { describeModelFailure } from '../llm/chatCall';
import { mmr } from './mmr';
import { collapseNested } from './nested';
import { prfStage } from './prf';
import { expansionLists, noteListWeights } from './termExpansion';
import { LlmReranker } from './rerank';
import { keepLinkedTogether, linkStage, linkTrigger } from './links';
import { Tracer } from './trace';
import { translationStage } from './translate';
import { orderSiblingsByHeadings } from './structure';
import type { QueryAnalysis, Reranker, RetrievalContext, RetrievalResult, RetrieveOptions, Retriever } from './types';

/** What the retriever needs from the engine (C's Engine satisfies it). */
export interface SearchEngine {
  store: IndexStore;
  embedder: Embedder;
}

export interface PipelineDeps {
  engine: SearchEngine;
  settings: SearchSettings;
  chatModel?: ChatModel;
  /** Reranker to use when settings.rerank (default: an LLM reranker over chatModel). */
  reranker?: Reranker;
  /** Language detector for queries without clear cues. */
  detect?: (text: string) => import('../types').Lang;
}

/** State shared by the stages of one query. */
interface QueryRun {
  query: string;
  analysis: QueryAnalysis;
  k: number;
  tracer: Tracer;
  warnings: string[];
  options: RetrieveOptions;
}

/** A flow turns an analysed query into ranked hits. */
interface Flow {
  readonly name: 'chunk' | 'summary';
  run(q: QueryRun): Promise<SearchHit[]>;
}

export class PipelineRetriever implements Retriever {
  private readonly flows: Record<'chunk' | 'summary', Flow>;

  constructor(private readonly deps: PipelineDeps) {
    this.flows = { chunk: new ChunkFlow(deps), summary: new SummaryFlow(deps) };
  }

  get settings(): SearchSettings {
    return this.deps.settings;
  }

  async retrieve(query: string, options: RetrieveOptions = {}): Promise<RetrievalResult> {
    const s = this.deps.settings;
    const tracer = new Tracer();
    const warnings: string[] = [];
    const analysis = await tracer.span(
      'analysis',
      () => {
        const a = analyzeQuery(query, { detect: this.deps.detect, alpha: s.analysisAlpha, alphaExact: s.analysisAlphaExact });
        if (s.levels) a.levels = [...s.levels];
        if (options.levels) a.levels = [...options.levels];
        if (options.flow) a.flow = options.flow;
        if (s.alpha !== undefined) a.alpha = s.alpha;
        if (options.alpha !== undefined) a.alpha = options.alpha;
        return a;
      },
      (a) => ({ exactTokens: a.exactTokens.length, levels: a.levels.length }),
    );
    tracer.note('analysis', `lang=${analysis.lang} type=${analysis.type} flow=${analysis.flow}${analysis.multiHop ? ' multi-hop' : ''}`);
    const run: QueryRun = { query, analysis, k: options.k ?? s.k, tracer, warnings, options };
    let hits = query.trim() ? await this.flows[analysis.flow].run(run) : [];
    if (analysis.flow === 'summary' && hits.length === 0 && query.trim() && !options.flow) {
      // No section/document summaries in this index (e.g. one-passage documents): classic retrieval instead.
      tracer.note('summaries', 'no summaries found: fell back to the chunk flow');
      analysis.flow = 'chunk';
      hits = await this.flows.chunk.run(run);
    }
    const result: RetrievalResult = { hits, analysis, trace: tracer.spans, warnings };
    if (options.context !== false && hits.length) result.context = await this.buildContext(run, hits);
    return result;
  }

  private async buildContext(q: QueryRun, hits: SearchHit[]): Promise<RetrievalContext> {
    const s = this.deps.settings;
    const { passages } = await q.tracer.span(
      'augmentation',
      () => augmentHits(this.deps.engine.store, keepLinkedTogether(hits), s),
      (r) => ({ ...r.stats, passages: r.passages.length }),
    );
    // The answering model's own token counts when it has a tokenizer (VS Code), else the estimate.
    const count = q.options.countTokens;
    const costs = count ? await Promise.all(passages.map((c) => countedPassageTokens(c.passage, count))) : undefined;
    return q.tracer.span(
      'budget',
      () => {
        const budget =
          q.options.budgetTokens ??
          contextBudget(q.options.contextWindow ?? this.deps.chatModel?.contextWindow ?? 8192, q.options.answerLength ?? 'medium');
        const cost = new Map(passages.map((c, i) => [c, costs ? costs[i] : passageTokens(c.passage)]));
        const fill = fillBudget(passages, budget, (c) => cost.get(c)!);
        return { passages: fill.items, budgetTokens: budget, usedTokens: fill.usedTokens, dropped: fill.dropped };
      },
      (c) => ({ budgetTokens: c.budgetTokens, usedTokens: c.usedTokens, passages: c.passages.length, dropped: c.dropped }),
    );
  }
}

/** Classic retrieval: (expanded) hybrid candidates → optional rerank → optional MMR → top k. */
class ChunkFlow implements Flow {
  readonly name = 'chunk' as const;
  constructor(private readonly deps: PipelineDeps) {}

  async run(q: QueryRun): Promise<SearchHit[]> {
    const s = this.deps.settings;
    const { variants, hyde } = await expandQuery(this.deps, q);
    const keywordOnly: string[] = [];
    const vocab = currentVocabulary(this.deps.engine.store.dir);
    if (s.lexicalExpansion && s.keyword) {
      const v = lexicalVariant(q.query, q.analysis.lang, vocab ?? new Map());
      if (v) keywordOnly.push(v);
    }
    const weightedKeyword = expansionLists(q.query, q.analysis.lang, s, q.tracer, vocab && !vocab.isEmpty() ? (t) => germanFrequency(t, vocab) : undefined);
    // What the question's lists and its translation's share: levels, candidates, fusion and its weights.
    const lists = {
      levels: q.analysis.levels,
      candidates: Math.max(s.candidates, q.k),
      keyword: s.keyword,
      vector: s.vector,
      fusion: q.options.alpha !== undefined ? 'weighted' : s.fusion,
      rrfK: s.rrfK,
      rrfVectorWeight: s.rrfVectorWeight,
      adaptiveVectorWeight: s.adaptiveVectorWeight && this.deps.engine.embedder.id === 'builtin' ? s.vectorWeightRange : undefined,
      alpha: q.analysis.alpha,
      withVectors: s.mmr,
    };
    let hits = await gatherCandidates(
      this.deps.engine.store,
      this.deps.engine.embedder,
      {
        queries: [q.query, ...variants],
        weightedKeyword,
        vectorOnly: hyde ? [hyde] : [],
        keywordOnly,
        lang: q.analysis.lang,
        ...lists,
        ...languageLists(q, vocab, s),
      },
      q.tracer,
    );
    noteListWeights(weightedKeyword, q.tracer);
    // The chat model's translation of the question, searched in its own language (its spans stay out of the trace).
    const searchAs = (text: string, lang: Lang) =>
      gatherCandidates(
        this.deps.engine.store,
        this.deps.engine.embedder,
        {
          queries: [text],
          vectorOnly: [],
          keywordOnly: [],
          lang,
          ...lists,
          ...languageLists({ ...q, query: text, tracer: new Tracer(), analysis: { ...q.analysis, lang, exactTokens: [] } }, vocab, s),
        },
        new Tracer(),
      );
    hits = await translationStage(this.deps.chatModel, { ...s, candidates: Math.max(s.candidates, q.k) }, { question: q.query, lang: q.analysis.lang, tracer: q.tracer, warnings: q.warnings, signal: q.options.signal }, hits, searchAs);
    if (s.prf && s.keyword) {
      const o = { docs: s.prfDocs, terms: s.prfTerms, weight: s.prfWeight, rrfK: s.rrfK, candidates: Math.max(s.candidates, q.k), levels: q.analysis.levels };
      hits = await prfStage(this.deps.engine.store, q.query, q.analysis.lang, hits, o, q.tracer);
    }
    const trigger = s.links ? linkTrigger(q.analysis, s.linkTriggers) : undefined;
    if (trigger) hits = await linkStage(this.deps.engine.store, hits, { ...s, levels: q.analysis.levels }, trigger, q.tracer);
    // After the links stage: a hit brought by an edge keeps its place (never above its seed).
    if (s.headingWeight > 0) hits = orderSiblingsByHeadings(q.query, hits, s.headingWeight, s.rrfK);
    hits = await rerankStage(this.deps, q, hits);
    if (s.dedupe) {
      hits = await q.tracer.span(
        'dedupe',
        () => dropNearDuplicates(hits, s.dedupeThreshold),
        (r) => ({ dropped: r.dropped }),
      ).then((r) => r.hits);
    }
    if (s.maxPerDocument > 0) {
      const capped = capPerDocument(hits, s.maxPerDocument);
      q.tracer.record('diversity', 0, { moved: capped.moved });
      hits = capped.hits;
    }
    if (s.mmr) hits = await mmrStage(this.deps, q, hits);
    if (s.collapseNested) {
      // One hit per place: a section and its own passage are shown once, with the more precise location.
      const all = hits;
      hits = await q.tracer.span(
        'places',
        () => collapseNested(all),
        (r) => ({ merged: r.merged }),
      ).then((r) => r.hits);
    }
    return hits.slice(0, q.k);
  }
}

/**
 * Overview questions: find the matching documents, then return their L1 section summaries in document order,
 * or their L0 document summaries when there are more sections than `summaryMaxSections`.
 */
class SummaryFlow implements Flow {
  readonly name = 'summary' as const;
  constructor(private readonly deps: PipelineDeps) {}

  async run(q: QueryRun): Promise<SearchHit[]> {
    const s = this.deps.settings;
    const store = this.deps.engine.store;
    const levels: Level[] = [0, 1, 2];
    const candidates = await gatherCandidates(
      store,
      this.deps.engine.embedder,
      {
        queries: [q.query],
        vectorOnly: [],
        keywordOnly: [],
        lang: q.analysis.lang,
        levels,
        candidates: s.candidates,
        keyword: s.keyword,
        vector: s.vector,
        fusion: q.options.alpha !== undefined ? 'weighted' : s.fusion,
        rrfK: s.rrfK,
        alpha: q.analysis.alpha,
        withVectors: false,
        ...languageLists(q, currentVocabulary(store.dir), s),
      },
      q.tracer,
    );
    const docScore = new Map<string, number>();
    for (const h of candidates) docScore.set(h.passage.path, (docScore.get(h.passage.path) ?? 0) + h.score);
    const ranked = [...docScore.entries()].sort((a, b) => b[1] - a[1]);
    const best = ranked[0]?.[1] ?? 0;
    const docs = ranked.filter(([, sc]) => sc >= best * s.summaryDocThreshold).slice(0, s.summaryMaxDocuments);
    return q.tracer.span(
      'summaries',
      async () => {
        const sections = await Promise.all(docs.map(([path]) => store.getFilePassages(path, [1])));
        const total = sections.reduce((n, l) => n + l.length, 0);
        const useL0 = total > s.summaryMaxSections || total === 0;
        const lists = useL0 ? await Promise.all(docs.map(([path]) => store.getFilePassages(path, [0]))) : sections;
        if (useL0 && total > 0) q.tracer.note('summaries', `fell back to L0: ${total} sections > ${s.summaryMaxSections}`);
        const hits: SearchHit[] = [];
        docs.forEach(([, score], d) => lists[d].forEach((p, i) => hits.push({ passage: p, score: score - i * 1e-6 })));
        return hits.slice(0, Math.max(q.k, useL0 ? docs.length : s.summaryMaxSections));
      },
      (hits) => ({ documents: docs.length, summaries: hits.length }),
    );
  }
}

/** LLM query expansion (multi-query and/or HyDE); skipped or failed → the model-free path with a trace note. */
async function expandQuery(deps: PipelineDeps, q: QueryRun): Promise<{ variants: string[]; hyde?: string }> {
  const s = deps.settings;
  if (s.queryExpansion === 'off') return { variants: [] };
  const model = deps.chatModel;
  if (!model) {
    q.tracer.note('expansion', `skipped: no chat model (queryExpansion=${s.queryExpansion})`);
    return { variants: [] };
  }
  const out: { variants: string[]; hyde?: string } = { variants: [] };
  await q.tracer.span(
    'expansion',
    async () => {
      const tasks: Promise<void>[] = [];
      if (s.queryExpansion === 'multi-query' || s.queryExpansion === 'both') {
        tasks.push(
          multiQuery(model, q.query, q.analysis.lang, { n: s.queryExpansionVariants, timeoutMs: s.llmTimeoutMs, signal: q.options.signal }).then(
            (v) => {
              out.variants = v;
            },
            (err) => fallback(q, 'expansion', 'multi-query', err),
          ),
        );
      }
      if (s.queryExpansion === 'hyde' || s.queryExpansion === 'both') {
        tasks.push(
          hypotheticalDocument(model, q.query, q.analysis.lang, { timeoutMs: s.llmTimeoutMs, signal: q.options.signal }).then(
            (h) => {
              out.hyde = h;
            },
            (err) => fallback(q, 'expansion', 'HyDE', err),
          ),
        );
      }
      await Promise.all(tasks);
    },
    () => ({ variants: out.variants.length, hyde: out.hyde ? 1 : 0 }),
  );
  return out;
}

async function rerankStage(deps: PipelineDeps, q: QueryRun, hits: SearchHit[]): Promise<SearchHit[]> {
  const s = deps.settings;
  if (!s.rerank || hits.length === 0) return hits;
  const reranker = deps.reranker ?? (deps.chatModel ? new LlmReranker(deps.chatModel, { batchSize: s.rerankBatchSize, timeoutMs: s.llmTimeoutMs, maxPassageChars: 700 }) : undefined);
  if (!reranker) {
    q.tracer.note('rerank', 'skipped: no chat model');
    return hits;
  }
  const head = hits.slice(0, s.rerankTopN);
  try {
    const reranked = await q.tracer.span(
      'rerank',
      () => reranker.rerank(q.query, head, q.options.signal),
      (r) => ({ candidates: head.length, kept: r.filter((h) => h.score >= s.rerankThreshold).length }),
    );
    // The threshold is applied before the limit, never after.
    return reranked.filter((h) => h.score >= s.rerankThreshold);
  } catch (err) {
    fallback(q, 'rerank', 'rerank', err);
    return hits;
  }
}

async function mmrStage(deps: PipelineDeps, q: QueryRun, hits: SearchHit[]): Promise<SearchHit[]> {
  const s = deps.settings;
  return q.tracer.span(
    'mmr',
    async () => {
      const pool = hits.slice(0, Math.max(q.k * 3, 30));
      const missing = pool.filter((h) => !h.vector).map((h) => h.passage.id);
      if (missing.length) {
        const vecs = await deps.engine.store.getVectors(missing);
        for (const h of pool) h.vector ??= vecs.get(h.passage.id);
      }
      return [...mmr(pool, s.mmrLambda, pool.length), ...hits.slice(pool.length)];
    },
    (r) => ({ candidates: Math.min(r.length, Math.max(q.k * 3, 30)) }),
  );
}

/** What both flows give the candidate search: the query's compound parts, exact tokens and the language weights. */
function languageLists(q: QueryRun, vocab: ReturnType<typeof currentVocabulary>, s: SearchSettings) {
  const compound = vocab ? compoundParts(q.query, vocab) : '';
  if (compound) q.tracer.note('analysis', `compound parts: ${compound.split(' ').length}`);
  // Words the German vocabulary does not know, corrected against it (German questions only: the vocabulary is German).
  const spelling = vocab && s.spelling && q.analysis.lang === 'de' ? spellingTerms(q.query, vocab, (w) => stem(w, 'de')) : '';
  if (spelling) q.tracer.note('analysis', `spelling: ${spelling}`);
  const derived = vocab && s.derivations && q.analysis.lang === 'de' ? derivationTerms(q.query, vocab, (w) => stem(w, 'de')) : '';
  if (derived) q.tracer.note('analysis', `word formation: ${derived}`);
  const keywordParts = [compound, spelling, derived].filter(Boolean).join(' ');
  return {
    keywordParts,
    // An empty vocabulary means the index has no German passage: its column is not searched.
    germanColumn: vocab === null || !vocab.isEmpty(),
    exactTokens: q.analysis.exactTokens,
    otherLanguageWeight: s.otherLanguageWeight,
    exactTokenWeight: s.exactTokenWeight,
  };
}

/** Occurrences of a German term in the index's vocabulary (a phrase: its rarest counted word; 0 when never seen). */
function germanFrequency(term: string, vocab: NonNullable<ReturnType<typeof currentVocabulary>>): number {
  const counted = (term.toLowerCase().match(/\p{L}+/gu) ?? []).filter((w) => w.length >= 4);
  return counted.length ? Math.min(...counted.map((w) => vocab.get(w) ?? 0)) : 0;
}

function fallback(q: QueryRun, span: string, stage: string, err: unknown): void {
  const msg = `${stage} failed, continuing without it (${describeModelFailure(err)})`;
  q.warnings.push(msg);
  q.tracer.note(span, msg);
}
