// The LanceDB-backed index store.
export { openStore, LanceStore, VECTOR_PROBE_SHARES, VECTOR_RECALL_SAMPLE, VECTOR_TRAINING_ATTEMPTS, documentOrder } from './lanceStore';
export type { OpenStoreOptions } from './lanceStore';
export { SCHEMA_VERSION } from './schema';
export { VECTOR_INDEX_MIN_ROWS, VECTOR_MIN_RECALL, readVectorIndexInfo, describeVectorSearch, type VectorIndexInfo } from './vectorIndexInfo';
export * from './types';
