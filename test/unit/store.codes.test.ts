// The 'codes' vector layout (store/vectorCodes.ts): what the builtin embedder's index keeps instead of 32-bit floats,
// through the real LanceDB store in a temp dir.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { Field, FixedSizeList, Schema, Uint8 } from 'apache-arrow';
import { BUILTIN_DIMENSION, BUILTIN_MODEL, embedBuiltin } from '../../src/rag/embed';
import { VECTOR_INDEX_MIN_ROWS, describeVectorSearch, openStore, readVectorIndexInfo, type LanceStore } from '../../src/rag/store';
import { CODE_SIGN_ROTATIONS, codeCandidates, codeDot, decodeVector, encodeVector, queryCode, rotate } from '../../src/rag/store/vectorCodes';
import type { FileRecord } from '../../src/rag/store/types';
import type { IndexedPassage, Level } from '../../src/rag/types';
import { EVAL, needsShared, sharedMissing } from '../helpers/shared';

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let x = 0;
  for (let i = 0; i < a.length; i++) x += a[i] * b[i];
  return x;
};

/** Deterministic text of varied words (a lexical sketch of it is what the builtin embedder stores). */
function text(seed: number, words = 40): string {
  const stems = ['urlaub', 'kündigung', 'arbeit', 'vertrag', 'frist', 'lohn', 'gesetz', 'anspruch', 'schutz', 'zeit', 'recht', 'pflicht', 'antrag', 'betrieb', 'leistung', 'dauer'];
  const ends = ['', 's', 'en', 'ung', 'zeit', 'geber', 'nehmer', 'fall', 'stelle', 'satz'];
  const out: string[] = [];
  let s = seed * 7919 + 17;
  for (let i = 0; i < words; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out.push(stems[s % stems.length] + ends[(s >>> 8) % ends.length] + (i % 7 === 0 ? String((s >>> 16) % 50) : ''));
  }
  return out.join(' ');
}

function passage(file: string, i: number, body: string, level: Level = 2): IndexedPassage {
  return {
    id: `${file}#${i}`,
    path: file,
    fileHash: `h-${file}`,
    format: 'md',
    level,
    chunkPath: `doc/section-0/chunk-${i}`,
    parentId: null,
    order: i,
    headingPath: ['Title'],
    title: 'Title',
    text: body,
    overlap: '',
    lang: 'de',
    loc: { startLine: i + 1, endLine: i + 1 },
    indexText: body,
  };
}

function record(file: string, passages: number): FileRecord {
  return { path: file, size: 100, mtimeMs: 1, hash: `h-${file}`, status: 'indexed', reason: '', passages, pipelineKey: 'builtin', indexedAt: Date.now() };
}

describe('vector codes (rotation, sign bits, 8-bit codes)', () => {
  const vectors = Array.from({ length: 60 }, (_, i) => embedBuiltin(text(i)));

  it('rotates without changing dot products or norms, and decodes close to the original', () => {
    for (let i = 0; i + 1 < vectors.length; i += 2) {
      const [a, b] = [vectors[i], vectors[i + 1]];
      assert.ok(Math.abs(dot(rotate(a), rotate(b)) - dot(a, b)) < 1e-5);
      assert.ok(Math.abs(dot(rotate(a), rotate(a)) - 1) < 1e-5);
      const code = encodeVector(a);
      assert.equal(code.bits.length, (BUILTIN_DIMENSION / 8) * CODE_SIGN_ROTATIONS);
      // Each rotation adds other hyperplanes: its bits are not a copy of the first's.
      if (CODE_SIGN_ROTATIONS > 1) assert.notDeepEqual(code.bits.subarray(128, 256), code.bits.subarray(0, 128));
      assert.equal(code.codes.length, BUILTIN_DIMENSION);
      const back = decodeVector(code.codes, code.scale, a.length);
      assert.equal(back.length, a.length);
      const cosine = dot(back, a) / Math.sqrt(dot(back, back));
      assert.ok(cosine > 0.98, `decoded cosine ${cosine}`);
    }
  });

  it('scores a query against a code within a thousandth of the exact cosine, and pads odd dimensions', () => {
    let worst = 0;
    for (let q = 0; q < 10; q++) {
      const query = embedBuiltin(text(1000 + q, 8));
      const { rotated } = queryCode(query);
      for (const v of vectors) {
        const code = encodeVector(v);
        worst = Math.max(worst, Math.abs(codeDot(rotated, code.codes, code.scale) - dot(query, v)));
      }
    }
    assert.ok(worst < 0.002, `largest error ${worst}`);
    // 384 dimensions (a small model's size) rotate in 512.
    const odd = Float32Array.from({ length: 384 }, (_, i) => Math.sin(i));
    const code = encodeVector(odd);
    assert.equal(code.bits.length, 64 * CODE_SIGN_ROTATIONS);
    const back = decodeVector(code.codes, code.scale, 384);
    assert.ok(dot(back, odd) / Math.sqrt(dot(back, back) * dot(odd, odd)) > 0.99);
    // A zero vector (a placeholder) codes to zero scale and scores 0.
    const zero = encodeVector(new Float32Array(16));
    assert.equal(zero.scale, 0);
    assert.equal(codeDot(queryCode(new Float32Array(16).fill(0.25)).rotated, zero.codes, zero.scale), 0);
  });

  it('ranks more candidates in a larger table (the sign bits misorder more rows near the k-th), within a bound', () => {
    const k = 80;
    assert.equal(codeCandidates(k, 0), 4 * k, 'a small table: 4k');
    assert.equal(codeCandidates(2, 0), 128, 'never fewer than the minimum');
    assert.equal(codeCandidates(k, 40_000), 8 * k, 'four times the rows: twice the candidates');
    assert.ok(codeCandidates(k, 275_000) > codeCandidates(k, 40_000));
    assert.equal(codeCandidates(k, 100_000_000), 32 * k, 'bounded');
  });
});

/** Lines of a JSONL file of the shared evaluation data, parsed (empty without the data: the suite fails first). */
function jsonl(rel: string): Record<string, string>[] {
  if (sharedMissing('eval/scifact')) return [];
  return fs.readFileSync(path.join(EVAL, rel), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

describe("LanceStore with the 'codes' layout (real LanceDB in a temp dir, SciFact's abstracts)", function () {
  this.timeout(240_000);
  needsShared('eval/scifact');
  let dir: string;
  let store: LanceStore;
  const info = { id: 'builtin', model: BUILTIN_MODEL, dimension: BUILTIN_DIMENSION, vectorLayout: 'codes' as const };
  // Enough rows for the vector index: real abstracts, the questions SciFact's claims.
  const rows = Math.ceil((VECTOR_INDEX_MIN_ROWS + 100) / 100) * 100;
  const texts = jsonl('scifact/corpus.jsonl').slice(0, rows).map((d) => `${d.title}\n${d.text}`);
  const claims = jsonl('scifact/queries.jsonl').map((q) => q.text);
  const vectors = texts.map((t) => embedBuiltin(t));

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-codes-'));
    store = await openStore(dir);
    assert.equal(await store.useEmbedder(info), false);
    const updates = [];
    for (let f = 0; f < rows / 100; f++) {
      const file = `f${f}.md`;
      const ps = Array.from({ length: 100 }, (_, i) => passage(file, i, texts[f * 100 + i], i === 0 ? 1 : 2));
      updates.push({ record: record(file, 100), passages: ps, vectors: ps.map((_, i) => vectors[f * 100 + i]) });
    }
    await store.addNewFiles(updates);
    await store.optimize();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps sign bits and 8-bit codes, not floats, and indexes the bits by Hamming distance', async () => {
    const table = await (await lancedb.connect(dir)).openTable('passages');
    const fields = new Map((await table.schema()).fields.map((f) => [f.name, String(f.type)]));
    assert.equal(fields.get('vector'), `FixedSizeList[${128 * CODE_SIGN_ROTATIONS}]<Uint8>`);
    assert.equal(fields.get('vectorCodes'), 'FixedSizeList[1024]<Uint8>');
    assert.equal(fields.get('vectorScale'), 'Float32');
    const built = store.vectorIndexInfo()!;
    assert.equal(built.kind, 'ivf_bits', JSON.stringify(built));
    assert.equal((await table.listIndices()).find((i) => i.columns.includes('vector'))?.indexType, 'IvfFlat');
    assert.deepEqual(readVectorIndexInfo(dir), built);
    assert.equal(
      describeVectorSearch(built, rows),
      `IVF index of sign bits, all ${built.partitions} partitions searched by Hamming distance, candidates ranked by 8-bit codes`,
    );
  });

  it("finds what exact cosine over the floats finds: the row itself first, the indexed search the scan's hits", async () => {
    let overlap = 0;
    const queries = 20;
    for (let q = 0; q < queries; q++) {
      const query = embedBuiltin(claims[q * 7]);
      const exactTop = vectors
        .map((v, i) => ({ i, s: dot(query, v) }))
        .sort((a, b) => b.s - a.s)
        .slice(0, 10)
        .map((x) => `f${Math.floor(x.i / 100)}.md#${x.i % 100}`);
      // k as the retriever asks (its candidates per list).
      const indexed = await store.vectorSearch(query, { k: 80 });
      const scan = await store.vectorSearch(query, { k: 80, exact: true });
      assert.deepEqual(indexed.map((h) => h.passage.id), scan.map((h) => h.passage.id), `query ${q}`);
      const top = new Set(indexed.slice(0, 10).map((h) => h.passage.id));
      overlap += exactTop.filter((id) => top.has(id)).length;
      for (let i = 1; i < indexed.length; i++) assert.ok(indexed[i - 1].score >= indexed[i].score, 'ranked by score');
    }
    assert.ok(overlap / queries >= 9.5, `top-10 overlap with the exact ranking ${overlap / queries} of 10`);
    const [self] = await store.vectorSearch(vectors[4321], { k: 1 });
    assert.equal(self.passage.id, 'f43.md#21');
    assert.ok(Math.abs(self.score - 1) < 0.01, `score ${self.score}`);
  });

  it('filters by level, gives ids with the same scores, and decodes vectors on request', async () => {
    const query = embedBuiltin(claims[3]);
    const sections = await store.vectorSearch(query, { k: 10, levels: [1] });
    assert.equal(sections.length, 10);
    assert.ok(sections.every((h) => h.passage.level === 1));
    const full = await store.vectorSearch(query, { k: 30, levels: [2], withVectors: true });
    const ids = await store.vectorSearchIds(query, { k: 30, levels: [2] });
    assert.deepEqual(ids, full.map((h) => ({ id: h.passage.id, level: h.passage.level, score: h.score })));
    const i = Number(full[0].passage.path.slice(1, -3)) * 100 + full[0].passage.order;
    assert.ok(dot(full[0].vector!, vectors[i]) > 0.99);
    const got = await store.getVectors([full[0].passage.id]);
    assert.ok(dot(got.get(full[0].passage.id)!, vectors[i]) > 0.99);
  });

  it('an index written before layouts existed keeps its floats (meta without a layout reads as float)', async () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-codes-old-'));
    try {
      const s = await openStore(other);
      const floats = { id: 'test', model: 'm', dimension: 8, vectorLayout: 'float' as const };
      await s.useEmbedder(floats);
      await s.addNewFiles([{ record: record('a.md', 1), passages: [passage('a.md', 0, 'eins')], vectors: [new Float32Array(8).fill(Math.SQRT1_2 / 2)] }]);
      const metaFile = path.join(other, 'meta.json');
      const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8'));
      delete meta.embedder.vectorLayout;
      fs.writeFileSync(metaFile, JSON.stringify(meta));
      const reopened = await openStore(other);
      assert.equal(reopened.meta()!.embedder.vectorLayout, 'float');
      assert.equal(await reopened.useEmbedder(floats), false, 'same embedder, same layout: kept');
      assert.equal((await reopened.vectorSearch(new Float32Array(8).fill(Math.SQRT1_2 / 2), { k: 1 }))[0].passage.text, 'eins');
      assert.equal(await reopened.useEmbedder({ ...floats, vectorLayout: 'codes' }), true, 'another layout: rebuilt');
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it('rebuilds a codes index whose columns were written with other code parameters instead of failing its searches', async () => {
    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-codes-width-'));
    try {
      const s = await openStore(other);
      await s.useEmbedder(info);
      await s.addNewFiles([{ record: record('a.md', 1), passages: [passage('a.md', 0, text(1))], vectors: [vectors[1]] }]);
      await s.close();
      // The same table with a sign-bit column of half the width, as fewer rotations would write it.
      const db = await lancedb.connect(other);
      const old = await db.openTable('passages');
      const schema = await old.schema();
      const width = (schema.fields.find((f) => f.name === 'vector')!.type as FixedSizeList).listSize;
      const narrower = new Schema(schema.fields.map((f) => (f.name === 'vector' ? new Field('vector', new FixedSizeList(width / 2, new Field('item', new Uint8(), true)), false) : f)));
      const plain = (v: unknown) => (v && typeof v === 'object' && 'toArray' in v ? Array.from((v as { toArray(): ArrayLike<number> }).toArray()) : v);
      const rows = (await old.query().toArray()).map((r) => {
        const row = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, plain(v)]));
        return { ...row, vector: (row.vector as number[]).slice(0, width / 2) };
      });
      old.close();
      await db.dropTable('passages');
      await db.createTable('passages', rows, { schema: narrower });
      const reopened = await openStore(other);
      assert.deepEqual(await reopened.vectorSearch(vectors[1], { k: 1 }), [], 'a reader searches such an index by keywords only');
      assert.equal(await reopened.useEmbedder(info), true, 'columns of another width: rebuilt');
      await reopened.addNewFiles([{ record: record('a.md', 1), passages: [passage('a.md', 0, text(1))], vectors: [vectors[1]] }]);
      assert.equal((await reopened.vectorSearch(vectors[1], { k: 1 }))[0].passage.id, 'a.md#0');
      assert.equal(await reopened.useEmbedder(info), false, 'rebuilt columns: kept');
      await reopened.close();
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });
});
