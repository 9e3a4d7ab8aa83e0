// The tiny generated embedding model (test/fixtures/models/tiny-embedding) as a downloadable known model, for the
// real-VS-Code tests of the model download offer. The runner puts it into the server's environment as
// DOCS_RAG_TEST_KNOWN_MODELS (read by src/rag/embed/localModels.ts, tests only), so the extension and its index and
// search processes know it by name; its sizes and SHA-256 are those of the fixture files. Its base names a closed local
// port: without the mirror setting (docsRag.local.modelHost) pointing at the test's server, nothing is reachable, and
// no test ever reaches the internet.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const TEST_MODEL_ID = 'docs-rag-test-tiny';
/** The path a mirror serves the files under: `<host><TEST_MODEL_PATH>/<file>`. */
export const TEST_MODEL_PATH = '/docs-rag-test/tiny-embedding/resolve/main';
export const TEST_MODEL_FILES = ['onnx/model.onnx', 'tokenizer.json', 'config.json', 'tokenizer_config.json'];

export function tinyModelDir(repo: string): string {
  return path.join(repo, 'test/fixtures/models/tiny-embedding');
}

/** The KnownModel entry (src/rag/embed/localModels.ts) of the tiny model, every file fetched and pinned. */
export function testKnownModel(repo: string): object {
  const dir = tinyModelDir(repo);
  return {
    id: TEST_MODEL_ID,
    base: `http://127.0.0.1:9${TEST_MODEL_PATH}`,
    dtype: 'fp32',
    pooling: 'mean',
    dimension: 32,
    sumsSource: 'the generated fixture files (tests only)',
    files: TEST_MODEL_FILES.map((p) => {
      const bytes = fs.readFileSync(path.join(dir, p));
      return { path: p, source: p, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
    }),
  };
}
