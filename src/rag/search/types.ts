// Seams of the retrieval pipeline.
import type { Lang, Level, Passage, SearchHit, TraceSpan } from '../types';

export type QueryType = 'factual' | 'comparative' | 'procedural' | 'relational' | 'aggregative' | 'temporal';

export interface QueryAnalysis {
  query: string;
  lang: Lang;
  type: QueryType;
  multiHop: boolean;
  /** Tokens worth matching literally (§ references, setting names, numbers). */
  exactTokens: string[];
  levels: Level[];
  flow: 'chunk' | 'summary';
  /** Weight of the vector list in weighted fusion (0 = keyword only, 1 = vector only). */
  alpha: number;
}

export interface RetrieveOptions {
  k?: number;
  /** Override the level filter chosen by query analysis. */
  levels?: Level[];
  /** Force a flow. */
  flow?: 'chunk' | 'summary';
  signal?: AbortSignal;
  /** Weight of the vector list; setting it switches to weighted fusion for this request. */
  alpha?: number;
  /** Build the answer context (augmentation + budget). Default true. */
  context?: boolean;
  /** Model context window for the budget (default: the chat model's, else 8192). */
  contextWindow?: number;
  answerLength?: 'short' | 'medium' | 'long';
  /** Explicit token budget (e.g. the smaller one after a context overflow); wins over contextWindow. */
  budgetTokens?: number;
  /** The answering model's token count (its tokenizer); without it the budget estimates from the characters. */
  countTokens?: (text: string) => Promise<number>;
}

export interface RetrievalResult {
  hits: SearchHit[];
  analysis: QueryAnalysis;
  trace: TraceSpan[];
  warnings: string[];
  /** The budgeted, augmented context for an answer (absent when not requested). */
  context?: RetrievalContext;
}

/** Anything that turns a query into ranked passages. */
export interface Retriever {
  retrieve(query: string, options?: RetrieveOptions): Promise<RetrievalResult>;
}

/** Re-scores candidates for a query. */
export interface Reranker {
  readonly id: string;
  rerank(query: string, hits: SearchHit[], signal?: AbortSignal): Promise<SearchHit[]>;
}

// ---- Additions by the retrieval pipeline (E) ----

/** A passage handed to the answer model, with why it is there. */
export interface ContextPassage {
  passage: Passage;
  /** Priority used to fill the budget (a hit's score; lower for neighbours and expanded documents). */
  score: number;
  role: 'hit' | 'parent' | 'neighbour' | 'document';
}

/** The budgeted context for an answer: augmented hits, filled greedily by score. */
export interface RetrievalContext {
  passages: ContextPassage[];
  budgetTokens: number;
  usedTokens: number;
  /** Candidates that did not fit the budget. */
  dropped: number;
}

