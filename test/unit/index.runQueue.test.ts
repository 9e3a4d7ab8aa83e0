// The per-folder run queue of the extension (src/rag/index/runQueue.ts): waiting requests merge into one run, and each
// keeps its own cancellation and progress. The runner here is a test double for the indexer that the test releases.
import * as assert from 'node:assert/strict';
import { mergeRequests, RunQueue, type MergedRun } from '../../src/rag/index/runQueue';

interface Result {
  paths?: string[];
  full: boolean;
  cancelled?: boolean;
}

/** Runs that wait until the test finishes them; each run emits one progress event when it starts. */
function controlledRunner() {
  const runs: { run: MergedRun<string>; finish: () => void }[] = [];
  const runner = (run: MergedRun<string>) =>
    new Promise<Result>((resolve) => {
      const finish = () => resolve({ paths: run.paths, full: run.full, cancelled: run.signal.aborted || undefined });
      runs.push({ run, finish });
      run.onProgress(`run ${runs.length}`);
      run.signal.addEventListener('abort', finish, { once: true });
    });
  return { runs, runner };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('index: run queue (merged requests keep their own cancellation and progress)', () => {
  it('merges requests made together into one run and unites their work', async () => {
    assert.deepEqual(mergeRequests([{ paths: ['a.md'] }, { paths: ['b.md', 'a.md'] }]), { paths: ['a.md', 'b.md'], full: false });
    assert.deepEqual(mergeRequests([{ paths: ['a.md'] }, { full: true }]), { full: true });
    const { runs, runner } = controlledRunner();
    const q = new RunQueue<Result, string>(runner, (r) => r.cancelled === true);
    const a = q.request({ paths: ['a.md'] });
    const b = q.request({ paths: ['b.md'] });
    await tick();
    assert.equal(runs.length, 1);
    runs[0].finish();
    assert.deepEqual(await a, { paths: ['a.md', 'b.md'], full: false, cancelled: undefined });
    assert.equal(await b, await a);
  });

  it('tells a run whether requests wait behind it', async () => {
    const { runs, runner } = controlledRunner();
    const q = new RunQueue<Result, string>(runner, (r) => r.cancelled === true);
    const first = q.request({});
    await tick();
    assert.equal(runs[0].run.othersWaiting(), false, 'nothing waits yet');
    const second = q.request({ paths: ['c.md'] });
    assert.equal(runs[0].run.othersWaiting(), true);
    runs[0].finish();
    await first;
    await tick();
    assert.equal(runs[1].run.othersWaiting(), false, 'the waiting request is this run now');
    runs[1].finish();
    assert.deepEqual(await second, { paths: ['c.md'], full: false, cancelled: undefined });
  });

  it('a Reindex merged behind a watcher request gets progress and can be cancelled; the watcher paths still run', async () => {
    const { runs, runner } = controlledRunner();
    const q = new RunQueue<Result, string>(runner, (r) => r.cancelled === true);
    const watcher = q.request({ paths: ['changed.md'] });
    const abort = new AbortController();
    const progress: string[] = [];
    const reindex = q.request({ full: true, signal: abort.signal, onProgress: (p) => progress.push(p) });
    await tick();
    assert.equal(runs.length, 1);
    assert.deepEqual(progress, ['run 1'], 'the Reindex sees the progress of the run that does its work');
    assert.equal(runs[0].run.full, true);
    abort.abort();
    assert.equal((await reindex).cancelled, true, 'the Reindex is cancelled');
    await tick();
    assert.equal(runs.length, 2, 'the watcher paths run again');
    assert.deepEqual(runs[1].run.paths, ['changed.md']);
    assert.equal(runs[1].run.full, false);
    runs[1].finish();
    assert.deepEqual(await watcher, { paths: ['changed.md'], full: false, cancelled: undefined });
    assert.deepEqual(progress, ['run 1'], 'no progress after the Reindex was cancelled');
  });

  it('a request cancelled while it waits leaves the queue without touching the running or the other waiting work', async () => {
    const { runs, runner } = controlledRunner();
    const q = new RunQueue<Result, string>(runner, (r) => r.cancelled === true);
    const first = q.request({ paths: ['one.md'] });
    await tick();
    const abort = new AbortController();
    const queuedFull = q.request({ full: true, signal: abort.signal });
    const queuedPaths = q.request({ paths: ['two.md'] });
    abort.abort();
    await assert.rejects(queuedFull, { name: 'AbortError' });
    assert.equal(runs[0].run.signal.aborted, false, 'the running run goes on');
    runs[0].finish();
    assert.deepEqual((await first).paths, ['one.md']);
    await tick();
    assert.equal(runs.length, 2);
    assert.deepEqual(runs[1].run, { ...runs[1].run, paths: ['two.md'], full: false });
    runs[1].finish();
    assert.deepEqual((await queuedPaths).paths, ['two.md']);
    await q.idle();
    assert.equal(q.busy(), false);
  });

  it('a result that finished before the abort counts for everyone (nothing runs twice)', async () => {
    const runs: MergedRun<string>[] = [];
    let finish!: () => void;
    const q = new RunQueue<Result, string>(
      (run) =>
        new Promise<Result>((resolve) => {
          runs.push(run);
          finish = () => resolve({ paths: run.paths, full: run.full });
        }),
      (r) => r.cancelled === true,
    );
    const abort = new AbortController();
    const a = q.request({ paths: ['a.md'], signal: abort.signal });
    const b = q.request({ paths: ['b.md'] });
    await tick();
    abort.abort();
    finish();
    assert.deepEqual((await a).paths, ['a.md', 'b.md']);
    assert.deepEqual((await b).paths, ['a.md', 'b.md']);
    await q.idle();
    assert.equal(runs.length, 1);
  });
});
