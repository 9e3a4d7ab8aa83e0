// The indexer's parser workers (index/prepareWorker.ts): real worker threads hash, parse, chunk, extract links, count
// words and embed with the builtin embedder, encoded in the index's layout. What comes back must be exactly what the
// main thread would compute.
import { strict as assert } from 'assert';
import { createHash } from 'crypto';
import { readFileSync } from 'fs';
import * as path from 'path';
import { chunkDocument } from '../../src/rag/chunk';
import { defaultConfig } from '../../src/rag/config';
import { embedBuiltin } from '../../src/rag/embed';
import { ParserPool } from '../../src/rag/ingest';
import { prepareWorkerPath, type EmbedSpec, type PrepareSpec, type PreparedFile } from '../../src/rag/index/prepareFile';
import { extractLinks, linkSource } from '../../src/rag/links';
import { encodeVector, unpackVector, type PackedVectors } from '../../src/rag/store/vectorCodes';
import { fileWordCounts } from '../../src/rag/store/vocabulary';
import type { VectorLayout } from '../../src/rag/types';
import { REALDOCS, WORKSPACE, needsShared } from '../helpers/shared';

const opts = { timeoutMs: 60_000, maxFileSizeMB: 50 };
const sha = (abs: string) => createHash('sha256').update(readFileSync(abs)).digest('hex');

describe('prepareFile in the parser workers', function () {
  needsShared('eval/workspace');
  needsShared('eval/realdocs');
  this.timeout(120_000);
  const chunk = defaultConfig().chunk;
  let pool: ParserPool;
  before(() => {
    pool = new ParserPool(2, { workerPath: prepareWorkerPath() });
  });
  after(() => pool.close());

  const files: [string, VectorLayout][] = [['gesetze/burlg.md', 'codes'], ['cargo-book/faq.md', 'codes'], ['cargo-book/faq.md', 'float'], ['gesetze/arbzg.pdf', 'codes'], ['gesetze/entgfg.docx', 'codes']];
  for (const [rel, layout] of files) {
    it(`gives the main thread's passages, links, word counts and builtin vectors (${layout}) for ${rel}`, async () => {
      const abs = path.join(WORKSPACE, rel);
      const spec: PrepareSpec = { path: rel, chunk, builtin: { dimension: 1024, layout } };
      const got = await pool.run<PreparedFile>(abs, opts, spec);
      assert.ok('passages' in got, JSON.stringify(got).slice(0, 200));
      // The same, on this thread: parse (plain worker request), chunk, links, counts, embed.
      const doc = await pool.parse(abs, opts);
      const hash = sha(abs);
      assert.equal(got.hash, hash);
      const passages = chunkDocument(doc, { path: rel, fileHash: hash }, chunk, { embedText: embedBuiltin });
      assert.ok(passages.length > 3);
      assert.deepEqual(got.passages, passages);
      const links = extractLinks(passages, { path: rel, format: doc.format, raw: linkSource(readFileSync(abs), doc.format), titles: doc.title ? [doc.title] : [] });
      assert.deepEqual(got.links, links);
      assert.deepEqual([...got.wordCounts], [...fileWordCounts(passages)]);
      // German passages wait for their compound parts (the run's vocabulary, main thread); every other row is embedded.
      const german = passages.flatMap((p, i) => (p.lang === 'de' ? [i] : []));
      assert.deepEqual(got.unembedded, german);
      const packed = got.vectors!;
      assert.equal(packed.layout, layout);
      assert.equal(packed.count, passages.length);
      let embedded = 0;
      passages.forEach((p, i) => {
        const row = unpackVector(packed, i);
        if (p.lang === 'de') assert.ok(row instanceof Float32Array ? row.every((x) => x === 0) : row.scale === 0 && row.codes.every((x) => x === 0));
        else {
          const vector = embedBuiltin(p.indexText, 1024);
          if (layout === 'float') assert.deepEqual(row, vector);
          else assert.deepEqual(row, encodeVector(vector));
          embedded++;
        }
      });
      if (rel.startsWith('cargo-book')) assert.ok(embedded > 0 && german.length === 0);
      else assert.ok(german.length > 0 && [...got.wordCounts].length > 100);
    });
  }

  it('embeds and encodes texts sent without a file (the German passages with their compound parts)', async () => {
    const texts = ['Der Urlaub beträgt jährlich mindestens 24 Werktage. Urlaub Werk Tage', 'Cargo downloads your dependencies', ''];
    for (const layout of ['codes', 'float'] as const) {
      const packed = await pool.compute<PackedVectors>({ texts, builtin: { dimension: 1024, layout } } satisfies EmbedSpec, { timeoutMs: 60_000 });
      assert.equal(packed.count, texts.length);
      texts.forEach((t, i) => {
        const vector = embedBuiltin(t, 1024);
        assert.deepEqual(unpackVector(packed, i), layout === 'codes' ? encodeVector(vector) : vector);
      });
    }
    // Cancelled before it ran, and cancelled while queued behind a parse: rejected, the pool goes on.
    const spec: EmbedSpec = { texts, builtin: { dimension: 1024, layout: 'codes' } };
    await assert.rejects(pool.compute(spec, { timeoutMs: 60_000, signal: AbortSignal.abort() }), /abort/i);
    const one = new ParserPool(1, { workerPath: prepareWorkerPath() });
    try {
      const controller = new AbortController();
      const parse = one.run<PreparedFile>(path.join(WORKSPACE, 'gesetze/burlg.md'), opts, { path: 'burlg.md', chunk } satisfies PrepareSpec);
      const queued = one.compute(spec, { timeoutMs: 60_000, signal: controller.signal });
      controller.abort();
      await assert.rejects(queued, /abort/i);
      assert.ok('passages' in (await parse));
      assert.equal((await one.compute<PackedVectors>(spec, { timeoutMs: 60_000 })).count, texts.length);
    } finally {
      await one.close();
    }
    const plain = new ParserPool(1);
    try {
      await assert.rejects(plain.compute({ texts, builtin: { dimension: 1024, layout: 'codes' } }, { timeoutMs: 60_000 }), /follow-up step/);
    } finally {
      await plain.close();
    }
  });

  it('stops after hashing when the bytes are unchanged, and reports a loader failure with the hash', async () => {
    const abs = path.join(REALDOCS, 'pdf/invalid.pdf');
    const hash = sha(abs);
    const failed = await pool.run<PreparedFile>(abs, opts, { path: 'invalid.pdf', chunk } satisfies PrepareSpec);
    assert.ok('failure' in failed, JSON.stringify(failed));
    assert.equal(failed.hash, hash);
    assert.ok(failed.failure.message.length > 0);
    // The same file with its stored hash: not parsed at all, so it cannot fail.
    const same = await pool.run<PreparedFile>(abs, opts, { path: 'invalid.pdf', chunk, unchangedHash: hash } satisfies PrepareSpec);
    assert.deepEqual(same, { hash, unchanged: true });
    // Another stored hash: parsed again.
    const changed = await pool.run<PreparedFile>(abs, opts, { path: 'invalid.pdf', chunk, unchangedHash: 'f'.repeat(64) } satisfies PrepareSpec);
    assert.ok('failure' in changed);
  });

  it('is refused by a worker without the indexer step', async () => {
    const plain = new ParserPool(1);
    try {
      const abs = path.join(WORKSPACE, 'cargo-book/faq.md');
      await assert.rejects(plain.run(abs, opts, { path: 'faq.md', chunk }), /no follow-up step/);
    } finally {
      await plain.close();
    }
  });
});
