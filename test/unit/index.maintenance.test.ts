// The maintenance executor (src/rag/index/maintenance.ts): each job of the lifecycle plan in a process of its own, as
// `docs-rag index` runs it, and the background runner a small run leaves: real LanceDB in a temp dir, the real CLI as
// the child.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TINY_MODEL_DIR } from '../../scripts/models/tinyEmbedding';
import { VECTOR_INDEX_MIN_ROWS, openStore } from '../../src/rag/store';
import { acquireWriterLock, isAlive } from '../../src/rag/index/writerLock';
import { planMaintenance, type Job, type JobKind } from '../../src/rag/index/lifecycle';
import { runMaintenanceJobs } from '../../src/rag/index/maintenance';
import { ROOT, runCliSource } from '../helpers/run';
import { spawn } from 'node:child_process';
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
  await store.useEmbedder({ id: 'test', model: 'm', dimension: dim, vectorLayout: 'float' });
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

const job = (kind: JobKind): Job => ({ kind, phase: 'after', reason: 'test' });
const cliStep = (folder: string, dir: string) => (kind: JobKind) => ['--import', 'tsx', path.join(ROOT, 'src/cli.ts'), 'index', folder, '--store', dir, '--maintenance-step', kind];
/** The train job run as a step of the CLI; returns what ran (and whether another process held the lock). */
const train = (folder: string, dir: string, env: NodeJS.ProcessEnv = { ...process.env, LANCEDB_LOG: 'error' }) =>
  runMaintenanceJobs([job('train-vector-index')], cliStep(folder, dir), { env });

describe('maintenance steps in child processes (docs-rag index --maintenance-step)', () => {
  let tmp: string;
  let dir: string;

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-vstep-'));
    dir = path.join(tmp, 'store');
    await storeWithoutVectorIndex(dir);
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('skips while another process holds the writer lock, trains the due index, then finds it current', async () => {
    const release = await acquireWriterLock(dir, { purpose: 'test' });
    try {
      const busy = await train(tmp, dir);
      assert.equal(busy.busy, true);
      assert.deepEqual(busy.ran, []);
    } finally {
      release();
    }
    // LanceDB spills the training into the temp directory and leaves it there: the child gets one of its own, deleted
    // when it exits, so the temp directory the caller gave is empty again (an orphan of a dead parent is swept too).
    const temp = path.join(tmp, 'temp');
    fs.mkdirSync(path.join(temp, 'docs-rag-lance-999999999-x'), { recursive: true });
    fs.writeFileSync(path.join(temp, 'docs-rag-lance-999999999-x', 'ivf_0.spill'), 'left by a killed run');
    fs.writeFileSync(path.join(temp, 'unrelated'), 'kept');
    const first = await train(tmp, dir, { ...process.env, LANCEDB_LOG: 'error', TMPDIR: temp, TMP: temp, TEMP: temp });
    assert.deepEqual(first.ran.map((j) => j.kind), ['train-vector-index']);
    assert.ok(first.ran[0].peakRssMB! > 0, 'measured in the step');
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
    assert.deepEqual((await train(tmp, dir)).ran, [], 'no longer planned: the step does nothing');
  });

  it('one child trains the index and keeps it, for uniform vectors too (every partition is searched, nothing to check)', async () => {
    const other = path.join(tmp, 'uniform');
    await storeWithoutVectorIndex(other, { uniform: true });
    assert.equal((await train(tmp, other)).ran.length, 1);
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

  it("the extension's indexing process entry (src/indexProcess/main.ts --maintenance-step) runs the same step", async () => {
    const other = path.join(tmp, 'store2');
    await storeWithoutVectorIndex(other);
    const step = await runMaintenanceJobs([job('train-vector-index')], (kind) => ['--import', 'tsx', path.join(ROOT, 'src/indexProcess/main.ts'), '--maintenance-step', other, kind], {
      env: { ...process.env, LANCEDB_LOG: 'error' },
    });
    assert.deepEqual(step.ran.map((j) => j.kind), ['train-vector-index']);
    const store = await openStore(other);
    try {
      assert.equal(store.vectorIndexInfo()?.mode, 'ivf');
      assert.equal(await store.vectorIndexDue(), false);
    } finally {
      await store.close();
    }
  });

  it('a step that fails ends the sequence with its reason (no result line); nothing after it runs', async () => {
    const r = await runMaintenanceJobs([job('optimize'), job('train-vector-index')], () => ['-e', 'process.stderr.write("boom\\n"); process.exit(3)']);
    assert.match(r.stopped ?? '', /exit code 3\): boom/);
    assert.deepEqual(r.ran, []);
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

  it('a local-model first build plans its compaction and vector index after its fill, as part of the run', async () => {
    const folder = path.join(tmp, 'docs');
    const dir = path.join(tmp, 'store-local');
    const engine = await openEngine({ folder, storeDir: dir, config: { embed: { provider: 'local', localModel: TINY_MODEL_DIR } }, embedderOverride: true });
    let r;
    try {
      r = await indexFolder(engine, { maintenance: 'caller' });
    } finally {
      await engine.close();
    }
    assert.deepEqual(r.vectors, { filled: r.chunks, total: r.chunks });
    assert.deepEqual(r.maintenance?.map((j) => `${j.kind}:${j.phase}`), ['optimize:after', 'train-vector-index:after', 'count-links:after']);
    const store = await openStore(dir);
    try {
      // Meanwhile searchable by keyword (rows the fill moved out of the keyword indexes are searched flat until then).
      const hits = await store.fullTextSearch('cargo registry', { k: 5 });
      assert.equal(hits.length, 5);
    } finally {
      await store.close();
    }
  });

  it('reports the time to searchable, runs the maintenance in children after the run, and plans nothing next time', async () => {
    const folder = path.join(tmp, 'docs');
    const store = path.join(tmp, 'store');
    const env = { ...process.env, LANCEDB_LOG: 'error' };
    const first = await runCliSource(['index', folder, '--store', store, '--json'], env);
    assert.equal(first.code, 0, first.stderr);
    const r = JSON.parse(first.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
    assert.ok(Number(r.chunks) >= VECTOR_INDEX_MIN_ROWS, `only ${r.chunks} passages`);
    const ran = r.maintenance as { kind: string; ms: number; peakRssMB: number }[];
    assert.deepEqual(ran.map((j) => j.kind), ['optimize', 'train-vector-index', 'count-links']);
    assert.ok(Number(r.searchableMs) + ran.reduce((n, j) => n + j.ms, 0) <= Number(r.ms), JSON.stringify(r));
    // Measured in the steps' own processes (pids other than the run's): present and positive.
    assert.ok(ran.every((j) => j.peakRssMB > 0) && Number(r.runRssMB) > 0);
    assert.equal(r.backgroundMaintenance, undefined, 'a first build leaves nothing to the background');
    const info = JSON.parse(fs.readFileSync(path.join(store, 'vector-index.json'), 'utf8')) as { rows: number };
    assert.equal(info.rows, Number(r.chunks));
    const again = await runCliSource(['index', folder, '--store', store, '--json'], env);
    assert.equal(again.code, 0, again.stderr);
    const r2 = JSON.parse(again.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
    assert.equal(r2.unchanged, 450);
    assert.equal(r2.maintenance, undefined, 'no child started when nothing is due');
    assert.equal(r2.backgroundMaintenance, undefined);
  });

  it('a one-file edit is searchable at once; its whole-table fold runs detached in the background and leaves the table folded', async () => {
    const folder = path.join(tmp, 'docs');
    const store = path.join(tmp, 'store');
    const env = { ...process.env, LANCEDB_LOG: 'error' };
    fs.appendFileSync(path.join(folder, 'doc-7.md'), '\n\n## Appendix\n\nA quokka crossed the registry.\n');
    const edit = await runCliSource(['index', folder, '--store', store, '--json'], env);
    assert.equal(edit.code, 0, edit.stderr);
    const r = JSON.parse(edit.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
    assert.equal(r.updated, 1);
    assert.equal(r.maintenance, undefined, 'nothing whole-table on the path of the edit');
    const bg = r.backgroundMaintenance as { pid: number; jobs: string[] };
    assert.ok(bg.jobs.includes('optimize'), JSON.stringify(bg));
    let s = await openStore(store);
    try {
      assert.equal((await s.fullTextSearch('quokka', { k: 3, lang: 'en' }))[0]?.passage.path, 'doc-7.md');
    } finally {
      await s.close();
    }
    // The detached runner ends by itself with every row under the indexes.
    const until = Date.now() + 120_000;
    while (isAlive(bg.pid) && Date.now() < until) await new Promise((res) => setTimeout(res, 200));
    assert.equal(isAlive(bg.pid), false, 'the background maintenance ended');
    s = await openStore(store);
    try {
      assert.equal((await s.keywordIndexCoverage())?.unindexed, 0);
      assert.deepEqual(planMaintenance(await s.maintenanceFacts()), [], 'nothing left to do');
    } finally {
      await s.close();
    }
  });

  it('a run stops the background maintenance that holds the writer lock instead of waiting for it', async () => {
    const folder = path.join(tmp, 'small');
    const store = path.join(tmp, 'store-small');
    fs.mkdirSync(folder);
    for (let f = 0; f < 3; f++) fs.writeFileSync(path.join(folder, `doc-${f}.md`), `# Document ${f}\n\nA few words about crates ${f}.\n`);
    const built = await runCliSource(['index', folder, '--store', store, '--json'], { ...process.env, LANCEDB_LOG: 'error' });
    assert.equal(built.code, 0, built.stderr);
    // A process holding the lock as maintenance (as a background step does), alive until killed.
    const holder = spawn(process.execPath, ['--import', 'tsx', '-e', `
      const { acquireWriterLock, MAINTENANCE_PURPOSE } = require(${JSON.stringify(path.join(ROOT, 'src/rag/index/writerLock.ts'))});
      acquireWriterLock(${JSON.stringify(store)}, { purpose: MAINTENANCE_PURPOSE }).then(() => { process.stdout.write('held\\n'); setInterval(() => {}, 1000); });
    `], { stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((res) => holder.on('exit', (_c, sig) => res(sig)));
    await new Promise<void>((res) => holder.stdout!.on('data', (d: Buffer) => d.toString().includes('held') && res()));
    fs.appendFileSync(path.join(folder, 'doc-1.md'), '\n\nA wombat in the index.\n');
    const run = await runCliSource(['index', folder, '--store', store, '--json', '--maintenance', 'skip', '--no-wait'], { ...process.env, LANCEDB_LOG: 'error' });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout.trim().split('\n').pop()!).updated, 1);
    assert.equal(await exited, 'SIGKILL');
    const s = await openStore(store);
    try {
      assert.equal((await s.fullTextSearch('wombat', { k: 3, lang: 'en' }))[0]?.passage.path, 'doc-1.md');
    } finally {
      await s.close();
    }
  });
});
