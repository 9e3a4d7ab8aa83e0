// The vector-index step after a run, in a process of its own (src/rag/index/vectorIndexStep.ts, as `docs-rag index`
// runs it): real LanceDB in a temp dir, the real CLI as the child.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TINY_MODEL_DIR } from '../../scripts/models/tinyEmbedding';
import { VECTOR_INDEX_MIN_ROWS, openStore } from '../../src/rag/store';
import { acquireWriterLock } from '../../src/rag/index/writerLock';
import { runVectorIndexStep, spawnVectorIndexStep } from '../../src/rag/index/vectorIndexStep';
import { ROOT, runCliSource } from '../helpers/run';
import * as lancedb from '@lancedb/lancedb';
import { openEngine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';

const DIM = 16;

/**
 * A store with VECTOR_INDEX_MIN_ROWS clustered rows (or uniform ones, the IVF worst case), optimized without its vector
 * index (as a run leaves it).
 */
async function storeWithoutVectorIndex(dir: string, o: { uniform?: boolean } = {}): Promise<void> {
  const store = await openStore(dir);
  // Uniform vectors in 64 dimensions: nearest neighbours scatter over the partitions (the IVF worst case).
  const dim = o.uniform ? 64 : DIM;
  await store.useEmbedder({ id: 'test', model: 'm', dimension: dim });
  let seed = 3;
  const r = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const unit = (v: Float32Array) => v.map((x) => x / Math.hypot(...v));
  const centres = Array.from({ length: 40 }, () => unit(Float32Array.from({ length: DIM }, () => r() - 0.5)));
  const updates = [];
  for (let f = 0; f < VECTOR_INDEX_MIN_ROWS / 100; f++) {
    const file = `f${f}.md`;
    const passages = Array.from({ length: 100 }, (_, i) => ({
      id: `${file}#${i}`, path: file, fileHash: `h${f}`, format: 'md' as const, level: 2 as const, chunkPath: `doc/${i}`,
      parentId: null, order: i, headingPath: ['T'], title: 'T', text: `text ${f} ${i}`, overlap: '', lang: 'en' as const,
      loc: { startLine: i + 1, endLine: i + 1 }, indexText: `text ${f} ${i}`,
    }));
    const record = { path: file, size: 1, mtimeMs: 1, hash: `h${f}`, status: 'indexed' as const, reason: '', passages: 100, pipelineKey: 'k', indexedAt: 1 };
    const vector = (i: number) => (o.uniform ? unit(Float32Array.from({ length: dim }, () => r() - 0.5)) : unit(centres[(f * 100 + i) % 40].map((x) => x + (r() - 0.5) * 0.02)));
    updates.push({ record, passages, vectors: passages.map((_, i) => vector(i)) });
  }
  await store.addNewFiles(updates);
  await store.optimize({ vectorIndex: false });
  assert.equal(await store.vectorIndexDue(), true);
  await store.close();
}

describe('vector-index step in a child process (docs-rag index --vector-index-step)', () => {
  let tmp: string;
  let dir: string;
  const args = () => ['--import', 'tsx', path.join(ROOT, 'src/cli.ts'), 'index', tmp, '--store', dir, '--vector-index-step'];

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-vstep-'));
    dir = path.join(tmp, 'store');
    await storeWithoutVectorIndex(dir);
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('skips while another process holds the writer lock, trains the due index, then finds it current', async () => {
    const release = await acquireWriterLock(dir, { purpose: 'test' });
    try {
      assert.deepEqual({ ...(await spawnVectorIndexStep(args(), { ...process.env, LANCEDB_LOG: 'error' })), ms: 0 }, { trained: false, busy: true, ms: 0 });
    } finally {
      release();
    }
    // LanceDB spills the training into the temp directory and leaves it there: the child gets one of its own, deleted
    // when it exits, so the temp directory the caller gave is empty again (an orphan of a dead parent is swept too).
    const temp = path.join(tmp, 'temp');
    fs.mkdirSync(path.join(temp, 'docs-rag-lance-999999999-x'), { recursive: true });
    fs.writeFileSync(path.join(temp, 'docs-rag-lance-999999999-x', 'ivf_0.spill'), 'left by a killed run');
    fs.writeFileSync(path.join(temp, 'unrelated'), 'kept');
    const first = await spawnVectorIndexStep(args(), { ...process.env, LANCEDB_LOG: 'error', TMPDIR: temp, TMP: temp, TEMP: temp });
    assert.equal(first.trained, true);
    assert.deepEqual(fs.readdirSync(temp), ['unrelated']);
    const store = await openStore(dir);
    try {
      assert.equal(store.vectorIndexInfo()?.rows, VECTOR_INDEX_MIN_ROWS);
      assert.equal(store.vectorIndexInfo()?.mode, 'ivf');
      assert.ok((await store.indexNames()).some((x) => x.startsWith('vector')));
      assert.equal(await store.vectorIndexDue(), false);
    } finally {
      await store.close();
    }
    assert.equal((await spawnVectorIndexStep(args(), { ...process.env, LANCEDB_LOG: 'error' })).trained, false);
  });

  it('one child trains the index and keeps it, for uniform vectors too (every partition is searched, nothing to check)', async () => {
    const other = path.join(tmp, 'uniform');
    await storeWithoutVectorIndex(other, { uniform: true });
    const step = await spawnVectorIndexStep(['--import', 'tsx', path.join(ROOT, 'src/cli.ts'), 'index', tmp, '--store', other, '--vector-index-step'], { ...process.env, LANCEDB_LOG: 'error' });
    assert.equal(step.trained, true);
    const read = JSON.parse(fs.readFileSync(path.join(other, 'vector-index.json'), 'utf8')) as { mode: string; partitions: number };
    assert.equal(read.mode, 'ivf');
    const store = await openStore(other);
    try {
      assert.equal(await store.vectorIndexDue(), false);
      assert.ok((await store.indexNames()).some((x) => x.startsWith('vector')));
    } finally {
      await store.close();
    }
  });

  it("the extension's indexing process entry (src/indexProcess/main.ts --vector-index-step) runs the same step", async () => {
    const other = path.join(tmp, 'store2');
    await storeWithoutVectorIndex(other);
    const step = await spawnVectorIndexStep(['--import', 'tsx', path.join(ROOT, 'src/indexProcess/main.ts'), '--vector-index-step', other], { ...process.env, LANCEDB_LOG: 'error' });
    assert.equal(step.trained, true);
    const store = await openStore(other);
    try {
      assert.equal(store.vectorIndexInfo()?.mode, 'ivf');
      assert.equal(await store.vectorIndexDue(), false);
    } finally {
      await store.close();
    }
  });

  it('a child that fails is reported with its reason (no result line)', async () => {
    await assert.rejects(spawnVectorIndexStep(['-e', 'process.stderr.write("boom\\n"); process.exit(3)']), /exit code 3\): boom/);
  });
});

describe('docs-rag index: searchable first, then the vector index in its own process', () => {
  let tmp: string;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-vcli-'));
    // 450 Markdown files of 12 sections: more than VECTOR_INDEX_MIN_ROWS passages (documents, sections, paragraphs).
    const words = ['cargo', 'crate', 'registry', 'build', 'package', 'module', 'index', 'search', 'query', 'vector', 'token', 'field', 'table', 'store', 'parse', 'chunk'];
    let seed = 9;
    const r = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const sentence = () => Array.from({ length: 14 }, () => words[Math.floor(r() * words.length)]).join(' ') + '.';
    fs.mkdirSync(path.join(tmp, 'docs'));
    for (let f = 0; f < 450; f++) {
      const sections = Array.from({ length: 12 }, (_, s) => `## Section ${f}-${s}\n\n${sentence()} ${sentence()}\n\n${sentence()} ${sentence()}\n`);
      fs.writeFileSync(path.join(tmp, 'docs', `doc-${f}.md`), `# Document ${f}\n\n${sections.join('\n')}`);
    }
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('a local-model first build hands the compaction after its fill to the vector-index step too', async () => {
    const folder = path.join(tmp, 'docs');
    const dir = path.join(tmp, 'store-local');
    const engine = await openEngine({ folder, storeDir: dir, config: { embed: { provider: 'local', localModel: TINY_MODEL_DIR } }, embedderOverride: true });
    let r;
    try {
      r = await indexFolder(engine, { vectorIndex: 'caller' });
    } finally {
      await engine.close();
    }
    assert.deepEqual(r.vectors, { filled: r.chunks, total: r.chunks });
    assert.equal(r.vectorIndex, 'due');
    const store = await openStore(dir);
    try {
      assert.equal(store.compactionDeferred(), true, 'left to the step');
      // Meanwhile searchable by keyword (rows the fill moved out of the keyword indexes are searched flat until then).
      const hits = await store.fullTextSearch('cargo registry', { k: 5 });
      assert.equal(hits.length, 5);
    } finally {
      await store.close();
    }
  });

  it('reports the time to searchable, trains the vector index in a child after the run, and finds it current next time', async () => {
    const folder = path.join(tmp, 'docs');
    const store = path.join(tmp, 'store');
    const env = { ...process.env, LANCEDB_LOG: 'error' };
    const first = await runCliSource(['index', folder, '--store', store, '--json'], env);
    assert.equal(first.code, 0, first.stderr);
    const r = JSON.parse(first.stdout.trim().split('\n').pop()!) as Record<string, number | string>;
    assert.ok(Number(r.chunks) >= VECTOR_INDEX_MIN_ROWS, `only ${r.chunks} passages`);
    assert.equal(r.vectorIndex, 'built');
    assert.ok(Number(r.searchableMs) + Number(r.vectorIndexMs) <= Number(r.ms), JSON.stringify(r));
    // Measured in the child's own process (a pid other than the run's): present and positive.
    assert.ok(Number(r.vectorIndexRssMB) > 0 && Number(r.runRssMB) > 0);
    const info = JSON.parse(fs.readFileSync(path.join(store, 'vector-index.json'), 'utf8')) as { rows: number };
    assert.equal(info.rows, Number(r.chunks));
    const again = await runCliSource(['index', folder, '--store', store, '--json'], env);
    assert.equal(again.code, 0, again.stderr);
    const r2 = JSON.parse(again.stdout.trim().split('\n').pop()!) as Record<string, number | string>;
    assert.equal(r2.unchanged, 450);
    assert.equal(r2.vectorIndex, 'current');
    assert.equal(r2.vectorIndexMs, undefined, 'no child started when nothing is due');
  });

  it("a large first build leaves its compaction to the step, which runs it in a process before the training's", async () => {
    const folder = path.join(tmp, 'docs');
    const dir = path.join(tmp, 'store-handover');
    const engine = await openEngine({ folder, storeDir: dir });
    let r;
    try {
      r = await indexFolder(engine, { vectorIndex: 'caller' });
    } finally {
      await engine.close();
    }
    assert.equal(r.vectorIndex, 'due');
    assert.equal(r.timings?.compact, undefined, 'not compacted by the run');
    const fragments = async () => {
      const db = await lancedb.connect(dir);
      const t = await db.openTable('passages');
      try {
        return (await t.stats()).fragmentStats.numFragments;
      } finally {
        t.close();
        db.close();
      }
    };
    const before = await fragments();
    assert.ok(before > 2, `${before} fragments`);
    let store = await openStore(dir);
    assert.equal(store.compactionDeferred(), true);
    await store.close();

    const step = await spawnVectorIndexStep(['--import', 'tsx', path.join(ROOT, 'src/cli.ts'), 'index', folder, '--store', dir, '--vector-index-step'], { ...process.env, LANCEDB_LOG: 'error' });
    assert.equal(step.compacted, true);
    assert.equal(step.trained, true);
    assert.ok((await fragments()) < before);
    store = await openStore(dir);
    try {
      assert.equal(store.compactionDeferred(), false);
      assert.equal((await store.keywordIndexCoverage())?.unindexed, 0);
      assert.equal(store.vectorIndexInfo()?.rows, r.chunks);
      assert.equal(await store.vectorIndexDue(), false);
    } finally {
      await store.close();
    }
  });
});
