// Public surface of the loaders. The indexer uses ParserPool; tests of single loaders use parseBytes.
export { formatOf } from './formats';
export { ParserPool, defaultWorkerPath, type ParseOptions, type ParserPoolOptions } from './pool';
export { parseBytes } from './parseBytes';
export { serveParses, type FollowUp } from './parseService';
