// Entry point of the retrieval pipeline: `createRetriever(engine, {config, chatModel, overrides})`.
import { detectLanguage } from '../text/language';
import type { ChatModel, Lang } from '../types';
import { resolveSettings, type SearchSettings } from './configs';
import { PipelineRetriever, type SearchEngine } from './retriever';
import type { Reranker } from './types';

export interface CreateRetrieverOptions {
  /** Named configuration (see configs.ts); default 'default'. */
  config?: string;
  /** Enables the LLM stages the configuration asks for; without it they are skipped with a trace note. */
  chatModel?: ChatModel;
  overrides?: Partial<SearchSettings>;
  reranker?: Reranker;
  /** Language detector for queries without clear cues (default: the chunker's detectLanguage). */
  detect?: (text: string) => Lang;
}

export function createRetriever(engine: SearchEngine, options: CreateRetrieverOptions = {}): PipelineRetriever {
  const settings = resolveSettings(options.config ?? 'default', options.overrides);
  return new PipelineRetriever({ engine, settings, chatModel: options.chatModel, reranker: options.reranker, detect: options.detect ?? detectLanguage });
}

export { BASE_SETTINGS, NAMED_CONFIGS, configNames, resolveSettings, type SearchSettings } from './configs';
export { PipelineRetriever, type SearchEngine } from './retriever';
export type * from './types';
