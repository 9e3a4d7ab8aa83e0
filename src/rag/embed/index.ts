// Embedder factory: 'builtin' (zero-setup lexical sketch, in-process), 'ollama' (semantic, needs Ollama) or 'local'
// (semantic, an ONNX model in a worker thread; downloaded once or taken from a folder).
import type { EmbedConfig } from '../config';
import type { Embedder } from '../types';
import { BuiltinEmbedder } from './builtin';
import { LocalEmbedder } from './local';
import { OllamaEmbedder } from './ollama';

export { BUILTIN_DIMENSION, BUILTIN_MODEL, BuiltinEmbedder, embedBuiltin } from './builtin';
export { OllamaEmbedder, type OllamaEmbedderOptions } from './ollama';
export { LocalEmbedder, resolveLocalModel, type LocalEmbedderOptions } from './local';
export { KNOWN_MODELS, downloadSize, knownModel, modelDownloadBase, TEST_KNOWN_MODELS_ENV, type KnownModel } from './localModels';
export { defaultModelCacheDir, downloadedModelDir, ensureModelDownloaded, type DownloadProgress } from './modelDownload';
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
  if (config.provider === 'local') {
    return new LocalEmbedder({
      model: config.localModel,
      cacheDir: config.modelCacheDir,
      batchSize: config.localBatchSize,
      timeoutMs: config.timeoutMs,
      threads: config.localThreads,
      queryPrefix: config.queryPrefix,
      documentPrefix: config.documentPrefix,
    });
  }
  return new BuiltinEmbedder();
}
