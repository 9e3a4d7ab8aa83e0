// Named retrieval configurations (what ships, baselines, ablations). Each is a full SearchSettings object;
// `createRetriever(engine, {config, overrides})` picks one and applies overrides.
import type { Level } from '../types';
import type { AugmentSettings } from './augment';
import { LINK_DEFAULTS, type LinkSettings } from './links';

/** Context augmentation for answers (parent section, neighbours, document expansion) comes from AugmentSettings. */
export interface SearchSettings extends AugmentSettings, LinkSettings {
  /** Default number of results. */
  k: number;
  /** Candidates taken from each of the keyword and vector lists. */
  candidates: number;
  keyword: boolean;
  vector: boolean;
  /** 'rrf' (reciprocal rank fusion) or 'weighted' (min-max normalised scores mixed by alpha). */
  fusion: 'rrf' | 'weighted';
  rrfK: number;
  /** Weight of the vector list in RRF (the keyword list has weight 1). */
  rrfVectorWeight: number;
  /**
   * With the builtin (lexical) embedder: the vector list's RRF weight follows the keyword list's coverage of the query,
   * from vectorWeightRange[0] (every content word found) to [1] (none found); rrfVectorWeight when the two lists' top 10
   * share nothing (search/vectorWeight.ts says why). Other embedders keep rrfVectorWeight.
   */
  adaptiveVectorWeight: boolean;
  vectorWeightRange: [number, number];
  /** Fixed alpha (weight of the vector list); undefined: the query analysis picks it (weighted fusion only). */
  alpha?: number;
  /** Alpha chosen by query analysis for ordinary / exact-token queries. */
  analysisAlpha: number;
  analysisAlphaExact: number;
  /** Fixed level filter; undefined: the query analysis picks it. */
  levels?: Level[];
  /**
   * RRF weight of the keyword list of the other language's column (the query's language: 1); both are always searched.
   * Nearly at par (0.99): in a bilingual index both language versions of an answer rank near the top, the two lists
   * interleave, and at equal rank the question's own language goes first (an exact match is never displaced by a passage
   * of the other language that ties with it, e.g. one found only through a loose translation) (EVALUATION.md).
   */
  otherLanguageWeight: number;
  /** RRF weight of the keyword list of the query's exact tokens (file names, flags, § references), searched in both columns. */
  exactTokenWeight: number;
  /**
   * Spelling tolerance: German question words the index's vocabulary does not know are searched as their nearest known
   * word (one edit away) or as a compound with one corrected part (text/spelling.ts), in the German column.
   */
  spelling: boolean;
  /**
   * Word formation: German question words the index's vocabulary does not know, joined by the nouns and adjectives it
   * derives from the same base ("krank" → "krankheit"; text/derivations.ts), in the German column.
   */
  derivations: boolean;
  /** Model-free expansion of the query (German compound splitting + stems) as an extra keyword list. */
  lexicalExpansion: boolean;
  /** Thesaurus expansion (OpenThesaurus / WordNet): the question's words plus synonyms as a separately weighted keyword list. */
  synonyms: boolean;
  synonymWeight: number;
  synonymsPerWord: number;
  /** The synonym list holds the question's words as well (true) or the synonyms only (false). */
  synonymsWithQuery: boolean;
  /** German↔English dictionary bridge: translated content words as a keyword list searched in the other language's column. */
  bridge: boolean;
  /**
   * Weight of the translated list (0: left out), and its weight when its passages cover the question better than the
   * question's own list: the question is then about documents in the other language, and the roles of the languages swap
   * — the translated list counts as the documents' language (1) against the question's own lists counted as the other
   * language's (otherLanguageWeight). In a bilingual index it joins the other column instead unless it covers the
   * question much better (bridgeJoinMargin).
   */
  bridgeWeight: number;
  bridgeBoostWeight: number;
  /** The translated list gets the higher weight when its coverage exceeds the own list's by more than this share. */
  bridgeMargin: number;
  /**
   * In a bilingual index (the column of the question's own language has hits too): the translated list joins the other
   * language's column list with this weight (that list: 1) instead of the weights above, so the other language's
   * passages are ranked by both and the two languages' evidence meets at `otherLanguageWeight`; 0: the weights above.
   */
  bridgeColumnWeight: number;
  /**
   * The translated list joins the other column (`bridgeColumnWeight`) unless its best passages cover the question more
   * than 1 + this share times better than the question's own keyword ranking's: then the question is about documents in
   * the other language and the weights above apply (the role swap). Tuned on half of xquad-mixed (EVALUATION.md).
   */
  bridgeJoinMargin: number;
  bridgePerWord: number;
  /** Pseudo-relevance feedback (RM3-style): terms of the top passages searched again as a weighted keyword list. */
  prf: boolean;
  prfDocs: number;
  prfTerms: number;
  prfWeight: number;
  /** LLM expansion: multi-query variants, HyDE, both, or off. Skipped (noted in the trace) without a chat model. */
  queryExpansion: 'off' | 'multi-query' | 'hyde' | 'both';
  queryExpansionVariants: number;
  /** LLM reranking of the top `rerankTopN` candidates; skipped without a chat model. */
  rerank: boolean;
  rerankTopN: number;
  rerankBatchSize: number;
  /** Hits whose reranker score (0..1) is below this are dropped before the limit. */
  rerankThreshold: number;
  /**
   * One hit per place: of two hits of one file where one lies inside the other (a section and its own passage, a document
   * and anything in it), only the more precise is returned, at the better rank (search/nested.ts). Off: both are returned.
   */
  collapseNested: boolean;
  /**
   * RRF weight of the heading list: candidates ranked by the share of the question's words in their section headings.
   * It only reorders the hits of one file among that file's places in the ranking (search/structure.ts); 0 = off.
   */
  headingWeight: number;
  /** Drop hits mostly contained in a higher-ranked hit of the same file (section vs. its passage). */
  dedupe: boolean;
  dedupeThreshold: number;
  /** At most this many hits per file before hits of other files (0 = no cap); the rest moves down, not out. */
  maxPerDocument: number;
  mmr: boolean;
  mmrLambda: number;
  /** Summary flow: documents taken, and the most L1 sections before falling back to L0 summaries. */
  summaryMaxDocuments: number;
  /** Summary flow: a document is taken when its score is at least this share of the best document's. */
  summaryDocThreshold: number;
  summaryMaxSections: number;
  /** Deadline of each LLM call. */
  llmTimeoutMs: number;
  /**
   * The chat model's translation of the question into the other language (German ↔ English) and an optional restatement,
   * each searched and fused with the question's own list (search/translate.ts). `auto`: asked when a passage in the other
   * language is among the question's candidates (never for an index in the question's language alone); `on`: always;
   * `off`: never. Skipped without a chat model.
   */
  translateQuestion: 'auto' | 'on' | 'off';
  /** Deadline of the translation call; past it (or on any failure) the search goes on with the question alone. */
  translateTimeoutMs: number;
  /** RRF weight of the translated question's candidate list (the question's own list: 1, the largest). */
  translationWeight: number;
  /** RRF weight of the restated question's candidate list. */
  restatementWeight: number;
  /**
   * In that fusion, each list's weight for the passages not in its own language (the question's list for passages in the
   * other language, the translation's for passages in the question's): small, so each language is ranked by the query in
   * that language, the other one only breaking ties (EVALUATION.md, "Question translation by the chat model").
   */
  translationOtherLanguageWeight: number;
}

export const BASE_SETTINGS: SearchSettings = {
  k: 10,
  candidates: 80,
  keyword: true,
  vector: true,
  fusion: 'rrf',
  rrfK: 60,
  rrfVectorWeight: 0.5,
  adaptiveVectorWeight: true,
  vectorWeightRange: [0.1, 0.7],
  alpha: undefined,
  analysisAlpha: 0.5,
  analysisAlphaExact: 0.3,
  levels: undefined,
  otherLanguageWeight: 0.99,
  exactTokenWeight: 1,
  spelling: true,
  derivations: true,
  lexicalExpansion: false,
  synonyms: false,
  synonymWeight: 0.15,
  synonymsPerWord: 2,
  synonymsWithQuery: true,
  bridge: true,
  bridgeWeight: 0,
  bridgeBoostWeight: 1 / 0.75,
  bridgeMargin: 0,
  bridgeColumnWeight: 1,
  bridgeJoinMargin: 2,
  bridgePerWord: 3,
  prf: false,
  prfDocs: 5,
  prfTerms: 10,
  prfWeight: 0.5,
  queryExpansion: 'off',
  queryExpansionVariants: 3,
  rerank: false,
  rerankTopN: 30,
  rerankBatchSize: 10,
  rerankThreshold: 0.1,
  collapseNested: true,
  headingWeight: 0.1,
  dedupe: false,
  dedupeThreshold: 0.8,
  maxPerDocument: 0,
  mmr: false,
  mmrLambda: 0.7,
  parentSection: true,
  neighbourWindow: 1,
  enableDocumentExpansion: true,
  maxDocumentsToExpand: 3,
  maxChunksPerDocument: 20,
  documentExpansionThreshold: 0.3,
  summaryMaxDocuments: 5,
  summaryDocThreshold: 0.35,
  summaryMaxSections: 40,
  llmTimeoutMs: 30_000,
  translateQuestion: 'auto',
  translateTimeoutMs: 3000,
  translationWeight: 1,
  restatementWeight: 0.5,
  translationOtherLanguageWeight: 0.1,
  ...LINK_DEFAULTS,
};

/** Partial settings per named configuration, applied over BASE_SETTINGS. */
export const NAMED_CONFIGS: Record<string, { description: string; settings: Partial<SearchSettings> }> = {
  bm25: { description: 'LanceDB full-text search only (language-specific analysis)', settings: { vector: false, bridge: false, links: false, headingWeight: 0 } },
  vector: { description: 'vector search only', settings: { keyword: false, links: false } },
  hybrid: {
    description: 'full-text + vector, plain reciprocal rank fusion (k = 60, equal weights), no other stage',
    settings: { rrfVectorWeight: 1, adaptiveVectorWeight: false, bridge: false, links: false, headingWeight: 0 },
  },
  default: {
    description:
      'what ships: hybrid RRF (k = 60); with the builtin embedder the vector list is weighted 0.1-0.7 by how much of the query the keyword list misses (0.5 when the lists disagree); both language columns nearly at par (own language first at equal rank); the German-English bridge list joining the other language column, or weighted up when it covers the question much better; chosen by measurement (EVALUATION.md)',
    settings: {},
  },
  'default-fixed-weight': {
    description: 'default with the fixed vector weight 0.5 in RRF (the shipped rule before the adaptive weight)',
    settings: { adaptiveVectorWeight: false },
  },
  'hybrid-weighted': { description: 'hybrid with weighted fusion, alpha from query analysis', settings: { fusion: 'weighted' } },
  'default+lexical': { description: 'default + model-free expansion (compound splitting, stems)', settings: { lexicalExpansion: true } },
  'default+nested': {
    description: 'default, also returning hits that lie inside another hit of the same file (section and its own passage)',
    settings: { collapseNested: false },
  },
  'default-spelling': { description: 'default without the spelling tolerance (unknown German words corrected against the index vocabulary)', settings: { spelling: false } },
  'default-derivations': { description: 'default without word formation (unknown German question words joined by their derived relatives in the index vocabulary)', settings: { derivations: false } },
  'default+synonyms': { description: 'default + thesaurus synonyms (OpenThesaurus / WordNet) as a weighted keyword list', settings: { synonyms: true } },
  'default-bridge': { description: 'default without the German-English dictionary bridge (translated terms in the other column)', settings: { bridge: false } },
  'default+all-lists': {
    description: 'default with every model-free list on: thesaurus synonyms and pseudo-relevance feedback besides both columns, exact tokens, compound parts, spelling and the bridge (latency bench)',
    settings: { synonyms: true, prf: true },
  },
  'default-translate': { description: 'default without the chat model\'s translation of the question (the same as default without a chat model)', settings: { translateQuestion: 'off' } },
  'default+prf': { description: 'default + pseudo-relevance feedback (RM3-style terms from the top passages)', settings: { prf: true } },
  'default+dedupe': { description: 'default + near-duplicate removal', settings: { dedupe: true } },
  'default+mmr': { description: 'default + MMR diversity', settings: { mmr: true } },
  'default-headings': { description: 'default without ordering one file\'s hits by the question\'s words in their section headings', settings: { headingWeight: 0 } },
  'default-no-links': { description: 'default without following the reference graph (links table) for multi-part, relational and comparative questions', settings: { links: false } },
  'default-levels-all': { description: 'default, searching L0-L2 for every query', settings: { levels: [0, 1, 2] } },
  'default-l2-only': { description: 'default, passages (L2) only', settings: { levels: [2] } },
  'default+rerank': { description: 'default + LLM reranker (needs a chat model)', settings: { rerank: true } },
  'default+multiquery': { description: 'default + LLM multi-query expansion (needs a chat model)', settings: { queryExpansion: 'multi-query' } },
  'default+hyde': { description: 'default + HyDE (needs a chat model)', settings: { queryExpansion: 'hyde' } },
  full: {
    description: 'every stage: multi-query + HyDE, LLM rerank, MMR (needs a chat model)',
    settings: { queryExpansion: 'both', rerank: true, mmr: true },
  },
};

export function configNames(): string[] {
  return Object.keys(NAMED_CONFIGS);
}

/** Resolves a named configuration (default 'default') plus overrides; unknown names throw with the list of valid ones. */
export function resolveSettings(name = 'default', overrides: Partial<SearchSettings> = {}): SearchSettings {
  const named = NAMED_CONFIGS[name];
  if (!named) throw new Error(`Unknown search configuration "${name}". Use one of: ${configNames().join(', ')}.`);
  const settings: SearchSettings = { ...BASE_SETTINGS, ...named.settings, ...stripUndefined(overrides) };
  const env = process.env.DOCS_RAG_HYBRID_ALPHA;
  if (overrides.alpha === undefined && env !== undefined && env !== '') {
    const a = Number(env);
    if (!Number.isFinite(a) || a < 0 || a > 1) throw new Error(`DOCS_RAG_HYBRID_ALPHA must be a number between 0 and 1 (got "${env}").`);
    settings.alpha = a;
    settings.fusion = 'weighted';
  }
  if (overrides.alpha !== undefined) settings.fusion = 'weighted';
  return settings;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
