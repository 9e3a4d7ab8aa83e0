// Entry of dist/engine.js: what the extension host runs of the engine — the answer stage, the chat adapters, the
// embedders' model download — in its own bundle, so the extension's bundle stays small and activation does not parse
// it. No LanceDB, no loaders, no search pipeline: those run in the search and indexing processes. Loaded on first use
// by engineModules.ts.
export * as embed from '../rag/embed/index';
export * as answer from '../rag/answer/index';
export * as ollamaChat from '../rag/llm/ollamaChat';
export * as types from '../rag/types';
