// Model download against a local HTTP server that serves the tiny model's files: verified download that then loads,
// checksum mismatch, a transfer broken off and resumed with a Range request, no network. Nothing half-written is
// ever a model folder.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { TINY_MODEL_DIR } from '../../scripts/models/tinyEmbedding';
import { downloadedModelDir, downloadSize, ensureModelDownloaded, knownModel, LocalEmbedder, modelDownloadBase, TEST_KNOWN_MODELS_ENV, type KnownModel } from '../../src/rag/embed';
import { MULTILINGUAL_E5_SMALL } from '../../src/rag/embed/localModels';
import { ModelError } from '../../src/rag/types';
import { closedPort } from '../helpers/ollamaServer';

const read = (rel: string) => fs.readFileSync(path.join(TINY_MODEL_DIR, rel));
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** The tiny model as a downloadable model: weights and tokenizer fetched and pinned, the JSON configs inline. */
function tinyKnownModel(base: string): KnownModel {
  const remote = (p: string) => ({ path: p, source: `files/${p}`, size: read(p).length, sha256: sha(read(p)) });
  return {
    id: 'tiny-embedding',
    base,
    dtype: 'fp32',
    pooling: 'mean',
    dimension: 32,
    sumsSource: 'test',
    files: [
      remote('onnx/model.onnx'),
      remote('tokenizer.json'),
      { path: 'config.json', inline: read('config.json').toString() },
      { path: 'tokenizer_config.json', inline: read('tokenizer_config.json').toString() },
    ],
  };
}

interface Served {
  url: string;
  requests: { path: string; range?: string }[];
  /** Replaces a file's bytes. */
  alter: Map<string, Buffer>;
  /** Files whose next response is cut after this many bytes (connection destroyed). */
  cutAfter: Map<string, number>;
  close(): Promise<void>;
}

async function serveTiny(): Promise<Served> {
  const requests: Served['requests'] = [];
  const alter = new Map<string, Buffer>();
  const cutAfter = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent((req.url ?? '').replace(/^\/files\//, ''));
    requests.push({ path: rel, range: req.headers.range });
    const file = path.join(TINY_MODEL_DIR, rel);
    if (!rel || !fs.existsSync(file)) {
      res.writeHead(404).end('not found');
      return;
    }
    const body = alter.get(rel) ?? fs.readFileSync(file);
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const from = m ? Number(m[1]) : 0;
    const slice = body.subarray(from);
    res.writeHead(m ? 206 : 200, { 'content-length': slice.length, ...(m ? { 'content-range': `bytes ${from}-${body.length - 1}/${body.length}` } : {}) });
    const cut = cutAfter.get(rel);
    if (cut !== undefined) {
      cutAfter.delete(rel);
      res.write(slice.subarray(0, cut), () => res.destroy());
      return;
    }
    res.end(slice);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    alter,
    cutAfter,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('local model download (local HTTP server with the tiny model)', function () {
  this.timeout(60_000);
  let served: Served;
  let cache: string;
  beforeEach(async () => {
    served = await serveTiny();
    cache = fs.mkdtempSync(path.join(os.tmpdir(), 'model-cache-'));
  });
  afterEach(async () => {
    await served.close();
    fs.rmSync(cache, { recursive: true, force: true });
  });

  it('downloads every file, verifies it, reports progress, and the folder then loads; a second call fetches nothing', async () => {
    const model = tinyKnownModel(served.url);
    const progress: number[] = [];
    const dir = await ensureModelDownloaded(model, { cacheDir: cache, onProgress: (p) => progress.push(p.received) });
    assert.equal(dir, path.join(cache, 'tiny-embedding'));
    assert.equal(downloadedModelDir(model, cache), dir);
    assert.ok(!fs.existsSync(path.join(cache, 'tiny-embedding.partial')));
    for (const f of ['onnx/model.onnx', 'tokenizer.json', 'config.json']) assert.ok(read(f).equals(fs.readFileSync(path.join(dir, f))), f);
    assert.equal(progress.at(-1), read('onnx/model.onnx').length + read('tokenizer.json').length);
    const e = new LocalEmbedder({ model: dir, batchSize: 4, timeoutMs: 60_000 });
    try {
      const [v] = await e.embed(['Urlaub']);
      assert.equal(v.length, 32);
    } finally {
      await e.close();
    }
    const before = served.requests.length;
    await ensureModelDownloaded(model, { cacheDir: cache });
    assert.equal(served.requests.length, before);
  });

  it('refuses a file whose checksum does not match: deleted, clear message, no model folder', async () => {
    const model = tinyKnownModel(served.url);
    const bad = Buffer.from(read('tokenizer.json'));
    bad[10] ^= 1;
    served.alter.set('tokenizer.json', bad);
    await assert.rejects(ensureModelDownloaded(model, { cacheDir: cache }), (err: unknown) => {
      return err instanceof ModelError && /Checksum mismatch for tokenizer\.json/.test(err.message) && /run again/.test(err.message);
    });
    assert.equal(downloadedModelDir(model, cache), undefined);
    assert.ok(!fs.existsSync(path.join(cache, 'tiny-embedding')));
    assert.ok(!fs.existsSync(path.join(cache, 'tiny-embedding.partial', 'tokenizer.json.part')));
    assert.ok(!fs.existsSync(path.join(cache, 'tiny-embedding.partial', 'tokenizer.json')));
  });

  it('keeps the part of a broken-off transfer and resumes it with a Range request', async () => {
    const model = tinyKnownModel(served.url);
    served.cutAfter.set('onnx/model.onnx', 5000);
    await assert.rejects(ensureModelDownloaded(model, { cacheDir: cache }), (err: unknown) => err instanceof ModelError && /broke off/.test(err.message));
    const part = path.join(cache, 'tiny-embedding.partial', 'onnx/model.onnx.part');
    assert.equal(fs.statSync(part).size, 5000);
    assert.equal(downloadedModelDir(model, cache), undefined, 'nothing half-written is a model folder');
    const dir = await ensureModelDownloaded(model, { cacheDir: cache });
    const resumed = served.requests.filter((r) => r.path === 'onnx/model.onnx');
    assert.deepEqual(resumed.map((r) => r.range), [undefined, 'bytes=5000-']);
    assert.ok(read('onnx/model.onnx').equals(fs.readFileSync(path.join(dir, 'onnx/model.onnx'))));
  });

  it('downloads from a mirror (host): its origin replaces the base\'s, the path stays, the pins still hold', async () => {
    const model = tinyKnownModel('https://models.invalid');
    const dir = await ensureModelDownloaded(model, { cacheDir: cache, host: `${served.url}/` });
    assert.deepEqual(
      served.requests.map((r) => r.path),
      ['onnx/model.onnx', 'tokenizer.json'],
    );
    assert.equal(downloadedModelDir(model, cache), dir);
    const bad = Buffer.from(read('tokenizer.json'));
    bad[3] ^= 1;
    served.alter.set('tokenizer.json', bad);
    const other = { ...model, id: 'tiny-embedding-2' };
    await assert.rejects(ensureModelDownloaded(other, { cacheDir: cache, host: served.url }), /Checksum mismatch for tokenizer\.json/);
  });

  it('without network says so and names the fixes (retry, --model <dir>, builtin)', async () => {
    const model = tinyKnownModel(`http://127.0.0.1:${await closedPort()}`);
    await assert.rejects(ensureModelDownloaded(model, { cacheDir: cache }), (err: unknown) => {
      return (
        err instanceof ModelError &&
        err.kind === 'unreachable' &&
        /ECONNREFUSED/.test(err.message) &&
        /--model <dir>/.test(err.message) &&
        /docsRag\.local\.modelPath/.test(err.message) &&
        /builtin/.test(err.message)
      );
    });
    assert.equal(downloadedModelDir(model, cache), undefined);
  });
});

describe('known models', () => {
  it('pins the int8 export that is safe on every x86 CPU (onnx/model_quantized.onnx at a fixed revision), about 135 MB', () => {
    const m = MULTILINGUAL_E5_SMALL;
    assert.match(m.base, /^https:\/\/huggingface\.co\/Xenova\/multilingual-e5-small\/resolve\/[0-9a-f]{40}$/);
    assert.equal(m.dtype, 'q8');
    const weights = m.files.find((f) => f.path.startsWith('onnx/'));
    assert.deepEqual([weights?.path, weights?.source], ['onnx/model_quantized.onnx', 'onnx/model_quantized.onnx']);
    assert.ok(m.files.every((f) => !/avx|vnni|arm64/i.test(f.source ?? '')), 'no CPU-specific export');
    for (const f of m.files.filter((x) => x.source)) assert.ok(f.size && /^[0-9a-f]{64}$/.test(f.sha256 ?? ''), `${f.path} pinned`);
    assert.equal(Math.round(downloadSize(m) / 1e6), 135);
  });

  it('a mirror host keeps the model\'s path: /<owner>/<repo>/resolve/<revision>', () => {
    assert.equal(modelDownloadBase(MULTILINGUAL_E5_SMALL, ' https://hf-mirror.example/ '), MULTILINGUAL_E5_SMALL.base.replace('https://huggingface.co', 'https://hf-mirror.example'));
    assert.equal(modelDownloadBase(MULTILINGUAL_E5_SMALL, ''), MULTILINGUAL_E5_SMALL.base);
  });

  it(`${TEST_KNOWN_MODELS_ENV} adds models for the tests, and never replaces a built-in one`, () => {
    const saved = process.env[TEST_KNOWN_MODELS_ENV];
    try {
      assert.equal(knownModel('tiny-embedding'), undefined);
      process.env[TEST_KNOWN_MODELS_ENV] = JSON.stringify([tinyKnownModel('http://127.0.0.1:9'), { ...MULTILINGUAL_E5_SMALL, base: 'http://evil.invalid' }]);
      assert.equal(knownModel('tiny-embedding')?.dimension, 32);
      assert.equal(knownModel('multilingual-e5-small'), MULTILINGUAL_E5_SMALL);
      process.env[TEST_KNOWN_MODELS_ENV] = 'not json';
      assert.equal(knownModel('tiny-embedding'), undefined);
    } finally {
      if (saved === undefined) delete process.env[TEST_KNOWN_MODELS_ENV];
      else process.env[TEST_KNOWN_MODELS_ENV] = saved;
    }
  });
});
