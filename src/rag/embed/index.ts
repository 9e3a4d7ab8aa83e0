// Embedder factory: 'builtin' (zero-setup lexical sketch, in-process) or 'ollama' (semantic, needs Ollama).
import type { EmbedConfig } from '../config';
import type { Embedder } from '../types';
import { BuiltinEmbedder } from './builtin';
import { OllamaEmbedder } from './ollama';

export { BUILTIN_DIMENSION, BUILTIN_MODEL, BuiltinEmbedder, embedBuiltin } from './builtin';
export { OllamaEmbedder, type OllamaEmbedderOptions } from './ollama';
export { taskPrefixes, type TaskPrefixes } from './prefixes';

export function createEmbedder(config: EmbedConfig): Embedder {
  if (config.provider === 'ollama') {
    return new OllamaEmbedder({
      host: config.ollamaHost,
      model: config.model,
      batchSize: config.batchSize,
      timeoutMs: config.timeoutMs,
      queryPrefix: config.queryPrefix,
      documentPrefix: config.documentPrefix,
    });
  }
  return new BuiltinEmbedder();
}
