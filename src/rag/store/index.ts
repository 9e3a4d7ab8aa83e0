// The LanceDB-backed index store.
export { openStore, LanceStore, VECTOR_INDEX_MIN_ROWS, documentOrder } from './lanceStore';
export type { OpenStoreOptions } from './lanceStore';
export { SCHEMA_VERSION } from './schema';
export * from './types';
