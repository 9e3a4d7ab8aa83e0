// kill -9 during each background maintenance job (index/lifecycle.ts: build-keyword-indexes, optimize,
// train-vector-index, count-links), each run as the CLI runs it: `docs-rag index --maintenance-step <kind>` in a process
// of its own, holding the writer lock as maintenance. Every kill lands while the job works (after the step marked itself
// running in meta.json); in between the index answers with every passage, the next maintenance plans the job again, and
// `docs-rag index` with its detached background maintenance completes every job. A run that starts while a job works
// stops it (SIGKILL) and completes. At the end the index holds exactly the passages, files and links of its clean build,
// every index current, nothing left due or marked running, no lock left.
// Run: npx mocha test/crash/maintenance.test.ts
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { VECTOR_INDEX_MIN_ROWS, openStore, type IndexMeta } from '../../src/rag/store';
import { STEP_MARK, planStore, type StepResult } from '../../src/rag/index/maintenance';
import type { JobKind } from '../../src/rag/index/lifecycle';
import { MAINTENANCE_PURPOSE, WRITER_LOCK_FILE, isAlive } from '../../src/rag/index/writerLock';
import { WORKSPACE, copyTree, snapshot } from './snapshot';
import { EVAL, needsShared } from '../helpers/shared';
import { ROOT } from '../helpers/run';
import { INDEXING_MALLOC_ENV } from '../../src/indexProcess/protocol';

/** Landed kills per job kind, and runs started while a job works. */
const KILLS = Number(process.env.DOCS_RAG_JOB_KILLS ?? 3);
const PREEMPTS = Number(process.env.DOCS_RAG_JOB_PREEMPTS ?? 2);
const CLI = path.join(ROOT, 'dist/cli.js');
const ENV = { ...process.env, LANCEDB_LOG: 'error' };
/**
 * A maintenance step's environment as `docs-rag index` gives its steps: the indexing malloc settings, so the step works
 * in the process started here (a command a user types relaunches itself with them in a child first: cli/relaunch.ts).
 */
const STEP_ENV = { ...ENV, ...INDEXING_MALLOC_ENV };
/** Real German laws beside the workspace, so the table passes VECTOR_INDEX_MIN_ROWS and the vector index is trained. */
const LAWS = ['gesetze/b/bp*/index.md', 'gesetze/d/db*/index.md', 'gesetze/d/dm*/index.md', 'gesetze/d/dp*/index.md', 'gesetze/d/ds*/index.md'];

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function exited(p: ChildProcess, out: { stdout: string; stderr: string }): Promise<Run> {
  return new Promise((resolve, reject) => {
    p.stdout?.on('data', (d: Buffer) => (out.stdout += d));
    p.stderr?.on('data', (d: Buffer) => (out.stderr += d));
    p.on('error', reject);
    p.on('close', (code, signal) => resolve({ code, signal, ...out }));
  });
}

/** The built CLI, as a user runs it. */
function cli(args: string[]): Promise<Run> {
  return exited(spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] }), { stdout: '', stderr: '' });
}

const lastJson = (r: Run) => JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, unknown>;
const readJson = <T>(file: string): T | null => {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return null; // absent (or, for the lock, between its holder's write and link)
  }
};
const meta = (store: string) => readJson<IndexMeta>(path.join(store, 'meta.json'));
/** What meta.json says is owed or in progress (its record of the latest step aside). */
const owed = (store: string) => Object.keys(meta(store)?.maintenance ?? {}).filter((k) => k !== 'lastStep');
const lockHolder = (store: string) => readJson<{ pid: number; purpose: string }>(path.join(store, WRITER_LOCK_FILE));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitGone(pid: number): Promise<void> {
  while (isAlive(pid)) await sleep(100);
}

/** Drops the passages table's indexes on these columns (what a job builds again), with LanceDB itself. */
async function dropIndexes(store: string, columns: string[]): Promise<void> {
  const db = await lancedb.connect(store);
  const table = await db.openTable('passages');
  for (const i of await table.listIndices()) if (i.columns.some((c) => columns.includes(c))) await table.dropIndex(i.name);
  table.close();
  db.close();
}

/** What an index reads back in between: every passage, keyword hits in both languages, vector hits, passages by id. */
async function assertAnswers(store: string, rows: number, what: string): Promise<void> {
  const s = await openStore(store);
  try {
    assert.equal(await s.countPassages(), rows, `${what}: every passage is still there, none twice`);
    const de = await s.fullTextSearch('Arbeitszeit Verordnung', { k: 5 });
    const en = await s.fullTextSearch('cargo build registry', { k: 5, lang: 'en' });
    assert.ok(de.length > 0 && en.length > 0, `${what}: keyword search answers`);
    const [got] = await s.getPassages([de[0].passage.id]);
    assert.equal(got?.id, de[0].passage.id, `${what}: a hit reads back`);
    const vec = (await s.getVectors([en[0].passage.id])).get(en[0].passage.id);
    assert.ok(vec, `${what}: the hit has its vector`);
    assert.ok((await s.vectorSearch(vec, { k: 5 })).length > 0, `${what}: vector search answers`);
  } finally {
    await s.close();
  }
}

describe('crash safety: kill -9 during the index maintenance jobs', function () {
  needsShared('eval/workspace', 'eval/scale');
  this.timeout(1_800_000);
  let work: string;
  let folder: string;
  let store: string;
  const edited = () => path.join(folder, 'cargo-book/faq.md');
  let original: string;
  /** Passages of the folder as its last run indexed it. */
  let rows = 0;

  before(() => {
    assert.ok(fs.existsSync(CLI), `${CLI} is missing: build it first (node esbuild.mjs)`);
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-jobs-kill9-'));
    folder = path.join(work, 'docs');
    store = path.join(work, 'store');
    copyTree(WORKSPACE, folder, (rel) => !rel.endsWith('.jsonl'));
    const laws = path.join(folder, 'laws');
    fs.mkdirSync(laws);
    const tar = spawnSync('tar', ['-xzf', path.join(EVAL, 'scale/gesetze-md.tar.gz'), '-C', laws, '--wildcards', ...LAWS], { encoding: 'utf8' });
    assert.equal(tar.status, 0, tar.stderr);
    original = fs.readFileSync(edited(), 'utf8');
  });
  after(() => work && fs.rmSync(work, { recursive: true, force: true }));

  /** A one-file edit (or its undoing) indexed by a run that leaves its maintenance due: what a saved file does. */
  async function editRun(round: number | 'undo', extra: string[] = []): Promise<Run> {
    fs.writeFileSync(edited(), round === 'undo' ? original : `${original}\n\nRound ${round}: a paragraph about a quokka in the registry.\n`);
    const r = await cli(['index', folder, '--store', store, '--json', '--maintenance', 'skip', ...extra]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(lastJson(r).updated, 1, r.stdout);
    rows = Number(lastJson(r).chunks);
    return r;
  }

  /** `docs-rag index` as a user runs it next: its background maintenance (a detached runner) ends with nothing due. */
  async function userRun(): Promise<void> {
    const r = await cli(['index', folder, '--store', store, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(Number(lastJson(r).chunks), rows);
    const bg = lastJson(r).backgroundMaintenance as { pid: number } | undefined;
    if (bg) await waitGone(bg.pid);
    assert.deepEqual(await planStore(store), [], 'the next maintenance did every job');
    assert.deepEqual(owed(store), [], 'nothing left due or marked running');
  }

  /** Makes `kind` due again after a step finished it before its kill. */
  async function makeDue(kind: JobKind, round: number): Promise<void> {
    if (kind === 'build-keyword-indexes') await dropIndexes(store, ['path', 'id']);
    else if (kind === 'train-vector-index') {
      await dropIndexes(store, ['vector']);
      fs.rmSync(path.join(store, 'vector-index.json'), { force: true });
    } else await editRun(round);
    assert.ok((await planStore(store)).some((j) => j.kind === kind), `${kind} is due`);
  }

  /**
   * Starts the step of `kind` (as a background runner does) and SIGKILLs it a random 0..windowMs after it marked itself
   * running in meta.json. Returns the kill's moment after the mark, or, when the step finished its job first, how long
   * the job took (StepResult.ms).
   */
  async function killStep(kind: JobKind, windowMs: number): Promise<{ killedAt: number; pid: number } | { finishedIn: number }> {
    const p = spawn(process.execPath, [CLI, 'index', folder, '--store', store, '--maintenance-step', kind], { cwd: ROOT, env: STEP_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    const done = exited(p, { stdout: '', stderr: '' });
    let ended = false;
    void done.then(() => (ended = true));
    // Evidence the job works: the step holds the writer lock as preemptible maintenance and says so in meta.json.
    const working = () => {
      const m = meta(store)?.maintenance;
      const holder = lockHolder(store);
      return m?.running?.pid === p.pid && m?.lastStep?.kind === kind && holder?.pid === p.pid && holder?.purpose === MAINTENANCE_PURPOSE;
    };
    while (!ended && !working()) await sleep(10);
    const marked = Date.now();
    if (!ended) {
      await sleep(Math.random() * windowMs);
      p.kill('SIGKILL');
    }
    const r = await done;
    const killedAt = Date.now() - marked;
    // Killed while its job worked: the mark still names it (a kill after the job cleared it counts as finished).
    if (r.signal === 'SIGKILL' && meta(store)?.maintenance?.running?.pid === p.pid) return { killedAt, pid: p.pid! };
    const line = r.stdout.split('\n').find((l) => l.startsWith(STEP_MARK));
    if (!line) {
      // Killed after its job, before it printed its result.
      assert.equal(r.signal, 'SIGKILL', r.stderr);
      return { finishedIn: killedAt };
    }
    const result = JSON.parse(line!.slice(STEP_MARK.length)) as StepResult;
    assert.equal(result.ran, true, `the step of ${kind} found its job due`);
    return { finishedIn: result.ms };
  }

  it('every job survives kills at random moments of its work, a run stops a working job, and the index equals a clean build', async () => {
    const t0 = Date.now();
    const took: string[] = [];
    const lap = (what: string) => took.push(`${what} ${Math.round((Date.now() - t0) / 1000)} s`);
    // A first build whose maintenance is left due (as a run killed right after its text leaves it). Its passages,
    // files and links before any job ran are the clean build every later state must come back to (no job changes them).
    const first = await cli(['index', folder, '--store', store, '--json', '--maintenance', 'skip']);
    assert.equal(first.code, 0, first.stderr);
    rows = Number(lastJson(first).chunks);
    const built = rows;
    assert.ok(rows >= VECTOR_INDEX_MIN_ROWS, `${rows} passages: the vector index is trained from ${VECTOR_INDEX_MIN_ROWS}`);
    const want = await snapshot(store);
    assert.ok(want.links.length > 0, 'the build has links');
    assert.deepEqual((await planStore(store)).map((j) => j.kind), ['optimize', 'train-vector-index', 'count-links']);
    lap('build');

    const kills: string[] = [];
    let round = 0;
    // The jobs a first build leaves, in the order a background runner meets them; then the keyword indexes (due only
    // when missing: dropped here, as a run killed between its first write and its indexes leaves them).
    for (const kind of ['train-vector-index', 'optimize', 'count-links', 'build-keyword-indexes'] as JobKind[]) {
      if (kind === 'build-keyword-indexes') await makeDue(kind, ++round);
      // The kill lands a random moment into the job: up to its length, learnt from a step that finished first.
      let window = 5_000;
      let landed = 0;
      let finished = 0;
      while (landed < KILLS) {
        assert.ok(finished <= 2 * KILLS, `only ${landed} of ${KILLS} kills landed in ${kind} (${finished} steps finished first)`);
        const step = await killStep(kind, window);
        if ('finishedIn' in step) {
          finished++;
          kills.push(`(${kind} finished in ${step.finishedIn} ms)`);
          window = Math.min(window, step.finishedIn * 0.8);
          await makeDue(kind, ++round);
          continue;
        }
        landed++;
        kills.push(`${kind} ${step.killedAt} ms into its job`);
        // The lock is left to the dead step (the next writer reclaims it), and meta.json still names it.
        const holder = lockHolder(store);
        assert.ok(!holder || (holder.pid === step.pid && !isAlive(holder.pid)), JSON.stringify(holder));
        await assertAnswers(store, rows, `after a kill in ${kind}`);
        // The next maintenance (the next kill's step plans as a background runner does): the dead step's mark is
        // cleared, what it may have left is swept (optimize, deleting unverified files), and its job is planned again.
        const plan = (await planStore(store)).map((j) => j.kind);
        assert.equal(meta(store)?.maintenance?.running, undefined);
        assert.equal(meta(store)?.maintenance?.unverified, true);
        assert.ok(plan.includes('optimize'), plan.join());
        // Planned again unless the kill came after its work was recorded (then its facts no longer call for it).
        if (!plan.includes(kind)) kills[kills.length - 1] += ' (after its work was recorded)';
      }
      lap(kind);
      if (kind === 'count-links') {
        // Then what a user runs next: `docs-rag index`, whose background maintenance completes every job.
        await userRun();
        await assertAnswers(store, rows, 'after the maintenance that followed the kills');
        lap('user run');
      }
    }

    // A run that starts while a job works stops it (SIGKILL) and completes (its --no-wait would fail on a writer it had
    // to wait for); the first such run also builds the keyword indexes the kills above left unfinished, as a job of its
    // own. The job: the longest, the vector index trained anew, as the background runner starts it.
    const preempted: string[] = [];
    let tries = 0;
    let window = 1_000;
    while (preempted.length < PREEMPTS) {
      assert.ok(++tries <= 4 * PREEMPTS, `only ${preempted.length} of ${PREEMPTS} runs met a working maintenance job`);
      if (!(await planStore(store)).some((j) => j.kind === 'train-vector-index')) {
        await dropIndexes(store, ['vector']);
        fs.rmSync(path.join(store, 'vector-index.json'), { force: true });
      }
      const step = spawn(process.execPath, [CLI, 'index', folder, '--store', store, '--maintenance-step', 'train-vector-index'], { cwd: ROOT, env: STEP_ENV, stdio: ['ignore', 'pipe', 'pipe'] });
      let stepEnded = false;
      const stepDone = exited(step, { stdout: '', stderr: '' }).finally(() => (stepEnded = true));
      while (!stepEnded && meta(store)?.maintenance?.running?.pid !== step.pid) await sleep(10);
      const delay = Math.round(Math.random() * window);
      await sleep(delay);
      // The run saves an edit, then the next one undoes it (the last leaves the folder as it was built).
      const run = await editRun(tries % 2 === 1 ? ++round : 'undo', ['--no-wait']);
      const r = await stepDone;
      // The run found the stopped step's mark (its pid dead) and cleared it: what the step may have left is swept by
      // the next optimize. A step that had finished first: try again, sooner.
      assert.equal(meta(store)?.maintenance?.running, undefined);
      if (r.signal === 'SIGKILL') {
        assert.equal(meta(store)?.maintenance?.unverified, true);
        preempted.push(`a run started ${delay} ms into the job (the run took ${lastJson(run).ms} ms)`);
      } else {
        assert.equal(r.code, 0, r.stderr);
        window /= 2;
      }
      await assertAnswers(store, rows, 'after a run that started during the maintenance');
    }
    lap('preemption');

    // The folder as it was built; the last run and its maintenance leave the index as the clean build was.
    if (fs.readFileSync(edited(), 'utf8') !== original) await editRun('undo');
    await userRun();
    lap('last run');
    console.log(`      ${kills.filter((k) => !k.startsWith('(')).length} kills: ${kills.join('; ')}`);
    console.log(`      ${preempted.length} of ${tries} runs stopped a working job: ${preempted.join('; ')}`);
    console.log(`      ${took.join(', ')}`);

    const got = await snapshot(store);
    assert.deepEqual(got.duplicateIds, []);
    assert.equal(rows, built);
    assert.equal(got.passages.length, rows);
    assert.deepEqual(got.passages, want.passages);
    assert.deepEqual(got.ids, want.ids);
    assert.deepEqual(got.files, want.files);
    assert.deepEqual(got.links, want.links);
    assert.equal(got.resolvedLinks, want.resolvedLinks);
    // The maintenance's own products: every index (both keyword indexes, the scalar ones, the vector index, trained and
    // current), every row under the keyword indexes, every vector filled, the link counts recorded as they are; nothing
    // due, nothing marked running, no lock left.
    const s = await openStore(store);
    try {
      assert.deepEqual((await s.indexNames()).sort(), ['fts_de_idx', 'fts_en_idx', 'id_idx', 'path_idx', 'vector_idx']);
      assert.equal((await s.keywordIndexCoverage())?.unindexed, 0);
      assert.equal(s.vectorIndexInfo()?.mode, 'ivf');
      assert.equal(await s.vectorIndexDue(), false);
      assert.deepEqual(await s.vectorCounts(), { filled: rows, total: rows });
      assert.deepEqual(s.meta()?.linkCounts?.counts, await s.linkCounts());
    } finally {
      await s.close();
    }
    assert.deepEqual(owed(store), []);
    assert.equal(lockHolder(store), null, 'no lock left behind');
  });
});
