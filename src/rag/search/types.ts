// Seams of the retrieval pipeline.
import type { Lang, Level, SearchHit, TraceSpan } from '../types';

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
}

export interface RetrievalResult {
  hits: SearchHit[];
  analysis: QueryAnalysis;
  trace: TraceSpan[];
  warnings: string[];
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
