// The LanceDB-backed index store.
export { openStore, LanceStore, documentOrder } from './lanceStore';
export type { OpenStoreOptions } from './lanceStore';
export { SCHEMA_VERSION } from './schema';
export { VECTOR_INDEX_MIN_ROWS, readVectorIndexInfo, describeVectorSearch, type VectorIndexInfo } from './vectorIndexInfo';
export * from './types';
