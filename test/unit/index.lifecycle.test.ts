// The lifecycle plan (src/rag/index/lifecycle.ts): facts in, ordered jobs out; one test per decision.
import * as assert from 'node:assert/strict';
import { planMaintenance, type IndexFacts, type RunFacts } from '../../src/rag/index/lifecycle';

/** A store of 280k rows, fully indexed, nothing owed. */
const settled = (over: Partial<IndexFacts> = {}): IndexFacts => ({
  rows: 280_000,
  pendingVectors: 0,
  keyword: { indexed: 280_000, unindexed: 0 },
  scalarIndexes: true,
  vectorIndexWanted: false,
  compactionDue: false,
  unverifiedFiles: false,
  linkCountsStale: false,
  ...over,
});
const run = (over: Partial<RunFacts> = {}): RunFacts => ({ rowsWritten: 0, rowsRemoved: 0, cancelled: false, ...over });
const plan = (f: IndexFacts, r?: RunFacts) => planMaintenance(f, r).map((j) => `${j.kind}:${j.phase}`);

describe('index lifecycle plan', () => {
  it('a settled index needs nothing, with or without a run', () => {
    assert.deepEqual(plan(settled()), []);
    assert.deepEqual(plan(settled(), run()), []);
  });

  it('a one-file edit leaves its fold and compaction to the background: nothing whole-table before it is searchable', () => {
    // A small table: folded and counted after every such run.
    const small = settled({ rows: 20_000, keyword: { indexed: 20_000, unindexed: 40 }, compactionDue: true, linkCountsStale: true });
    assert.deepEqual(plan(small, run({ rowsWritten: 40, rowsRemoved: 38 })), ['optimize:background', 'count-links:background']);
    // A large one: only once the rows outside the indexes reach 1 % of it (the table is rewritten once per that much change).
    const f = settled({ keyword: { indexed: 280_000, unindexed: 40 }, compactionDue: true, linkCountsStale: true });
    assert.deepEqual(plan(f, run({ rowsWritten: 40, rowsRemoved: 38 })), []);
    assert.deepEqual(plan(f), [], 'maintenance alone waits as well');
    const grown = settled({ keyword: { indexed: 280_000, unindexed: 2_800 }, compactionDue: true, linkCountsStale: true });
    assert.deepEqual(plan(grown, run({ rowsWritten: 40, rowsRemoved: 38 })), ['optimize:background', 'count-links:background']);
    // Once folded (by that optimize, re-planned without the run), the stale count follows; so after a first build's optimize.
    assert.deepEqual(plan(settled({ linkCountsStale: true })), ['count-links:background']);
    // Files a stopped write left are removed at once, whatever the share.
    assert.deepEqual(plan({ ...f, unverifiedFiles: true }, run({ rowsWritten: 40 })), ['optimize:background', 'count-links:background']);
  });

  it('a new table gets its keyword indexes inside the run, before it reports itself searchable', () => {
    const f = settled({ keyword: null, scalarIndexes: false, compactionDue: true });
    const jobs = planMaintenance(f, run({ rowsWritten: 280_000 }));
    assert.deepEqual(jobs[0], { kind: 'build-keyword-indexes', phase: 'now', reason: 'the table has no keyword index' });
    // The rebuilt indexes cover every row: the compaction the first build owes comes after, as part of the run.
    assert.deepEqual(jobs.slice(1).map((j) => `${j.kind}:${j.phase}`), ['optimize:after']);
  });

  it('a run that replaced most rows rebuilds the keyword indexes now instead of folding them in', () => {
    const f = settled({ keyword: { indexed: 100_000, unindexed: 180_000 }, compactionDue: true });
    assert.deepEqual(plan(f, run({ rowsWritten: 180_000, rowsRemoved: 180_000 })), ['build-keyword-indexes:now', 'optimize:after']);
    // The same coverage after a small run (rows appended by earlier small runs): folded in the background, not rebuilt.
    assert.deepEqual(plan(f, run({ rowsWritten: 500 })), ['optimize:background']);
  });

  it('a cancelled run does only what search needs; the rest waits for the background', () => {
    const f = settled({ keyword: { indexed: 100_000, unindexed: 180_000 }, compactionDue: true, vectorIndexWanted: true });
    assert.deepEqual(plan(f, run({ rowsWritten: 180_000, cancelled: true })), ['optimize:background', 'train-vector-index:background']);
  });

  it('the vector index is trained after the compaction, and never over placeholder vectors', () => {
    const f = settled({ vectorIndexWanted: true, compactionDue: true });
    assert.deepEqual(plan(f, run({ rowsWritten: 280_000 })), ['optimize:after', 'train-vector-index:after']);
    assert.deepEqual(plan({ ...f, pendingVectors: 10 }, run({ rowsWritten: 280_000 })), ['optimize:after']);
  });

  it('files a stopped maintenance may have left are removed by the next optimize, even with nothing else owed', () => {
    const jobs = planMaintenance(settled({ unverifiedFiles: true }));
    assert.deepEqual(jobs.map((j) => `${j.kind}:${j.phase}`), ['optimize:background']);
    assert.match(jobs[0].reason, /stopped write/);
  });

  it('maintenance alone (no run) plans everything for the background', () => {
    const f = settled({ keyword: null, scalarIndexes: false, vectorIndexWanted: true, linkCountsStale: true });
    assert.deepEqual(plan(f), ['build-keyword-indexes:background', 'train-vector-index:background', 'count-links:background']);
  });

  it('an empty index only counts its links (nothing to read)', () => {
    const empty: IndexFacts = { ...settled(), rows: 0, keyword: null, scalarIndexes: false, linkCountsStale: true };
    assert.deepEqual(plan(empty, run()), ['count-links:now']);
    assert.deepEqual(plan({ ...empty, linkCountsStale: false }, run()), []);
  });

  it('the share that makes a run large is of the table, so the same edit is small in a large index and large in a small one', () => {
    const edit = run({ rowsWritten: 400, rowsRemoved: 380 });
    const owed = { keyword: { indexed: 1000, unindexed: 400 }, compactionDue: true };
    assert.deepEqual(plan(settled({ ...owed, rows: 1400 }), edit), ['optimize:after']);
    assert.deepEqual(plan(settled({ ...owed, rows: 14_000, keyword: { indexed: 13_600, unindexed: 400 } }), edit), ['optimize:background']);
  });
});
