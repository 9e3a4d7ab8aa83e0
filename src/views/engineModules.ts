// Lazy loading of the engine: LanceDB and the loaders are only required on first use, so `activate` stays fast.
// The bundler turns these dynamic imports into lazily initialised modules inside dist/extension.js.

export type EngineModule = typeof import('../rag/engine');
export type IndexerModule = typeof import('../rag/index/indexer');
export type SearchModule = typeof import('../rag/search/index');
export type AnswerModule = typeof import('../rag/answer/index');

export interface EngineModules {
  engine: EngineModule;
  indexer: IndexerModule;
  search: SearchModule;
  answer: AnswerModule;
}

let loading: Promise<EngineModules> | undefined;

export function loadEngineModules(): Promise<EngineModules> {
  loading ??= Promise.all([
    import('../rag/engine'),
    import('../rag/index/indexer'),
    import('../rag/search/index'),
    import('../rag/answer/index'),
  ]).then(([engine, indexer, search, answer]) => ({ engine, indexer, search, answer }));
  return loading;
}
