// Entry of dist/engine.js: the whole engine (LanceDB, loaders, search, answers) in its own bundle, so the extension's
// own bundle stays small and activation does not parse it. Loaded on first use by engineModules.ts.
export * as engine from '../rag/engine';
export * as embed from '../rag/embed/index';
export * as indexer from '../rag/index/indexer';
export * as search from '../rag/search/index';
export * as answer from '../rag/answer/index';
export * as ollamaChat from '../rag/llm/ollamaChat';
export * as types from '../rag/types';
