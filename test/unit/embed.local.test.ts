// The `local` embedder on the tiny generated model (test/fixtures/models/tiny-embedding): the same transformers.js
// code path a real model takes, in a worker thread; plus the generator's reproducibility and the end-to-end CLI run.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TINY_MODEL_DIR, tinyEmbeddingFiles } from '../../scripts/models/tinyEmbedding';
import { createEmbedder, LocalEmbedder } from '../../src/rag/embed';
import { orderByLength, passesByLength, TOKENS_PER_PASS } from '../../src/rag/embed/lengthPasses';
import { defaultConfig } from '../../src/rag/config';
import { ModelError } from '../../src/rag/types';
import { runCliSource } from '../helpers/run';
import { needsShared, WORKSPACE } from '../helpers/shared';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);
const make = (model: string, batchSize = 4) => new LocalEmbedder({ model, batchSize, timeoutMs: 60_000 });

describe('tiny embedding model fixture', () => {
  it('is what scripts/models/tinyEmbedding.ts generates, byte for byte', () => {
    for (const [rel, bytes] of tinyEmbeddingFiles()) {
      const file = path.join(TINY_MODEL_DIR, rel);
      assert.ok(fs.existsSync(file), `${rel} missing: run node --import tsx scripts/models/tinyEmbedding.ts`);
      assert.ok(fs.readFileSync(file).equals(bytes), `${rel} differs from the generator's output`);
    }
  });
});

describe('forward passes by length (bounded activations, little padding)', () => {
  it('groups ascending lengths so that texts × the longest stays within the budget, every text once', () => {
    const lengths = [512, 12, 300, 40, 512, 511, 8, 130, 129, 64, 512, 20];
    const passes = passesByLength(lengths, 1024);
    assert.deepEqual(passes.flat().sort((a, b) => a - b), lengths.map((_, i) => i));
    for (const pass of passes) {
      const longest = Math.max(...pass.map((i) => lengths[i]));
      assert.ok(pass.length * longest <= 1024, `pass ${pass} pads to ${pass.length} × ${longest}`);
    }
    // Short texts share a pass, each long one runs nearly alone: fewer passes than texts, more than one.
    assert.ok(passes.length < lengths.length && passes.length > 3, `${passes.length} passes`);
    assert.deepEqual(passes[0], [6, 1, 11, 3, 9, 8, 7], 'the shortest first, together (7 × 130 ≤ 1024)');
    // A text longer than the budget still runs (alone).
    assert.deepEqual(passesByLength([5000, 10], 1024), [[1], [0]]);
    assert.ok(TOKENS_PER_PASS >= 512, 'one text of a model\'s full length fits a pass');
  });

  it('orders a call\'s texts by length, stable among equals', () => {
    assert.deepEqual(orderByLength(['ccc', 'a', 'bb', 'd', '']), [4, 1, 3, 2, 0]);
  });
});

describe('LocalEmbedder (tiny ONNX model, transformers.js, worker thread)', function () {
  this.timeout(120_000);
  let tmp: string;
  const embedders: LocalEmbedder[] = [];
  const open = (model: string, batchSize?: number) => {
    const e = make(model, batchSize);
    embedders.push(e);
    return e;
  };
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'local-embed-'));
  });
  after(async () => {
    for (const e of embedders) await e.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('loads the folder, learns the dimension and returns L2-normalised vectors in input order, batched', async () => {
    const e = open(TINY_MODEL_DIR, 2);
    await e.init();
    assert.equal(e.id, 'local');
    assert.equal(e.model, TINY_MODEL_DIR);
    assert.equal(e.dimension, 32);
    const texts = ['Der Urlaub beträgt 24 Werktage.', 'cargo build --release', 'abc', 'Kündigungsschutz', 'xyz'];
    const all = await e.embed(texts);
    assert.equal(all.length, 5);
    for (const v of all) assert.ok(Math.abs(dot(v, v) - 1) < 1e-5);
    // Each text alone gives the same vector as inside a (padded) batch: pooling honours the attention mask.
    for (let i = 0; i < texts.length; i++) {
      const [alone] = await e.embed([texts[i]]);
      assert.ok(dot(alone, all[i]) > 0.9999, `text ${i}`);
    }
    assert.ok(dot(all[0], all[1]) < 0.99, 'different texts, different vectors');
  });

  it('cuts a batch into forward passes of at most TOKENS_PER_PASS padded tokens, with the vectors of each text alone', async () => {
    // 16 texts in one batch: a few long ones (the model's full 512 tokens) among short ones. As one pass they would pad to
    // 16 × 512 tokens; cut by length, no pass exceeds the budget (each long text runs alone).
    const long = (n: number) => Array.from({ length: 60 }, (_, k) => `Satz ${n}.${k} über Urlaub und Kündigung`).join(' ');
    const texts = Array.from({ length: 16 }, (_, i) => (i % 5 === 0 ? long(i) : `kurzer Text ${i}`));
    const e = open(TINY_MODEL_DIR, 16);
    const vectors = await e.embed(texts);
    assert.ok(e.largestPass > 0 && e.largestPass <= TOKENS_PER_PASS, `largest pass ${e.largestPass} padded tokens`);
    // The same vectors as each text alone (order restored across passes).
    for (const i of [0, 1, 5, 15]) assert.ok(dot((await e.embed([texts[i]]))[0], vectors[i]) > 0.9999, `text ${i}`);
  });

  it('runs the model off the calling thread: onnxruntime is never loaded here', async () => {
    const e = open(TINY_MODEL_DIR);
    await e.embed(['ein Satz']);
    const loaded = Object.keys(require.cache).filter((k) => /onnxruntime-node|@huggingface[\\/]transformers/.test(k));
    assert.deepEqual(loaded, []);
  });

  it('adds the task prefixes of a prefix model (e5: "query: " / "passage: ") by the folder name', async () => {
    const e5 = path.join(tmp, 'tiny-multilingual-e5');
    fs.cpSync(TINY_MODEL_DIR, e5, { recursive: true });
    const prefixed = open(e5);
    const plain = open(TINY_MODEL_DIR);
    const [q] = await prefixed.embedQueries(['Urlaub']);
    const [d] = await prefixed.embed(['Urlaub']);
    assert.ok(dot(q, (await plain.embed(['query: Urlaub']))[0]) > 0.9999);
    assert.ok(dot(d, (await plain.embed(['passage: Urlaub']))[0]) > 0.9999);
    assert.ok(dot(q, d) < 0.9999, 'query and document differ');
    // The tiny model's own folder name carries no prefix.
    assert.ok(dot((await plain.embedQueries(['Urlaub']))[0], (await plain.embed(['Urlaub']))[0]) > 0.9999);
  });

  it('runs a q8 export (onnx/model_quantized.onnx: int8 weights, dynamic quantisation) as the fp32 model within rounding', async () => {
    // Two encoder layers, so the quantised MatMuls run too; the same seed gives the same weights, rounded to 8 bits.
    const shape = { dim: 32, layers: 2, heads: 2, intermediate: 64 };
    const write = (dir: string, quantized: boolean) => {
      for (const [rel, bytes] of tinyEmbeddingFiles({ ...shape, quantized })) {
        fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
        fs.writeFileSync(path.join(dir, rel), bytes);
      }
    };
    write(path.join(tmp, 'q8'), true);
    write(path.join(tmp, 'fp32'), false);
    assert.ok(!fs.existsSync(path.join(tmp, 'q8/onnx/model.onnx')), 'only the quantised graph: the embedder must pick it');
    const q8 = open(path.join(tmp, 'q8'));
    const fp32 = open(path.join(tmp, 'fp32'));
    const texts = ['Der Urlaub beträgt 24 Werktage.', 'cargo build --release', 'Kündigungsschutz'];
    const [a, b] = [await q8.embed(texts), await fp32.embed(texts)];
    assert.equal(q8.dimension, 32);
    for (let i = 0; i < texts.length; i++) {
      assert.ok(dot(a[i], b[i]) > 0.98, `text ${i}: cosine ${dot(a[i], b[i])}`);
      assert.ok(dot(a[i], b[i]) < 0.999999, `text ${i}: the q8 graph ran the int8 weights, not a float copy`);
    }
    assert.ok(dot(a[0], a[1]) < 0.99, 'different texts, different vectors');
  });

  it('is what createEmbedder builds for provider local', async () => {
    const e = createEmbedder({ ...defaultConfig().embed, provider: 'local', localModel: TINY_MODEL_DIR });
    assert.ok(e instanceof LocalEmbedder);
    embedders.push(e as LocalEmbedder);
    await e.init();
    assert.equal(e.dimension, 32);
  });

  it('names what is missing in an incomplete folder, and a broken model file, with the fix', async () => {
    const broken = path.join(tmp, 'broken');
    fs.cpSync(TINY_MODEL_DIR, broken, { recursive: true });
    fs.rmSync(path.join(broken, 'onnx'), { recursive: true });
    await assert.rejects(open(broken).init(), (err: unknown) => err instanceof ModelError && err.kind === 'model-missing' && /onnx\/model\.onnx/.test(err.message));
    fs.mkdirSync(path.join(broken, 'onnx'));
    fs.writeFileSync(path.join(broken, 'onnx/model.onnx'), 'not a model');
    await assert.rejects(open(broken).init(), (err: unknown) => err instanceof ModelError && /Cannot load the embedding model/.test(err.message) && /builtin/.test(err.message));
    await assert.rejects(open('no-such-model').init(), (err: unknown) => err instanceof ModelError && /not a known model name/.test(err.message));
    // A known model that is not downloaded: says how to get it, fetches nothing.
    await assert.rejects(
      new LocalEmbedder({ model: 'multilingual-e5-small', cacheDir: path.join(tmp, 'empty-cache'), batchSize: 4, timeoutMs: 1000 }).init(),
      (err: unknown) => err instanceof ModelError && /not downloaded yet/.test(err.message) && /--model <dir>/.test(err.message),
    );
    assert.ok(!fs.existsSync(path.join(tmp, 'empty-cache', 'multilingual-e5-small')));
  });
});

describe('docs-rag index/search/status with --embedder local (tiny model, child process)', function () {
  this.timeout(600_000);
  needsShared('eval/workspace');
  let store: string;
  before(() => {
    store = fs.mkdtempSync(path.join(os.tmpdir(), 'local-cli-'));
  });
  after(() => fs.rmSync(store, { recursive: true, force: true }));

  it('indexes the workspace offline, status names local with model and dimension, search --trace embeds the query', async () => {
    const model = path.relative(path.resolve(__dirname, '../..'), TINY_MODEL_DIR);
    const idx = await runCliSource(['index', WORKSPACE, '--store', store, '--embedder', 'local', '--model', model]);
    assert.equal(idx.code, 0, idx.stderr);
    assert.match(idx.stdout, /Indexed: 70 documents/);
    assert.doesNotMatch(idx.stdout, /not indexed/);
    const status = await runCliSource(['status', '--folder', WORKSPACE, '--store', store, '--json']);
    const s = JSON.parse(status.stdout);
    assert.deepEqual(s.embedder, { id: 'local', model: TINY_MODEL_DIR, dimension: 32, vectorLayout: 'float' });
    // Reopened from the index's record: no flags needed.
    const search = await runCliSource(['search', '--folder', WORKSPACE, '--store', store, '--trace', 'Wie viele Urlaubstage stehen mir zu?']);
    assert.equal(search.code, 0, search.stderr);
    assert.match(search.stdout, /^embedding\s+[\d.]+ ms\s+texts=1 queries=1 documents=0\s+\[local:tiny-embedding\]/m);
    const hits = Number(/^vector\s+[\d.]+ ms\s+queries=1 hits=(\d+)/m.exec(search.stdout)?.[1] ?? 0);
    assert.ok(hits > 0, search.stdout);
  });
});
