// The LanceDB-backed index store.
export { openStore, LanceStore, VECTOR_INDEX_MIN_ROWS, VECTOR_MIN_RECALL, VECTOR_PROBE_SHARES, VECTOR_RECALL_SAMPLE, VECTOR_TRAINING_ATTEMPTS, documentOrder, type VectorIndexInfo } from './lanceStore';
export type { OpenStoreOptions } from './lanceStore';
export { SCHEMA_VERSION } from './schema';
export { readVectorIndexInfo, describeVectorSearch } from './vectorIndexInfo';
export * from './types';
