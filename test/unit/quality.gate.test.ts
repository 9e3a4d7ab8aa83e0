// The retrieval quality gate (src/rag/eval/gate.ts) can fail: its comparison on a deliberately degraded default (keyword
// list disabled) fails against the checked-in baseline, while the shipped default passes on the same set. Real indexer,
// store and retriever on Cranfield (1,400 documents, 225 queries).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { GATE_SETS, compareGate, measureGate, renderGate, type GateBaseline } from '../../src/rag/eval/gate';

const ROOT = path.resolve(__dirname, '../..');
const SHARED = process.env.DOCS_RAG_SHARED ?? path.resolve(ROOT, '../shared');
const baseline = () => JSON.parse(fs.readFileSync(path.join(ROOT, 'test/quality/baseline.json'), 'utf8')) as GateBaseline;

describe('retrieval quality gate', function () {
  this.timeout(600_000);

  it('the baseline covers every gate set and names the commit it was measured at', () => {
    const b = baseline();
    assert.match(b.commit, /^[0-9a-f]{7,}/);
    assert.deepEqual(Object.keys(b.sets).sort(), GATE_SETS.map((s) => s.name).sort());
  });

  it('compares by the rules: below the baseline by more than 0.005 on a set of ≥ 200 questions or 0.01 on a smaller one fails, and on a public set more than 0.005 below bm25', () => {
    const b: GateBaseline = {
      commit: 'x',
      measuredAt: '',
      command: '',
      sets: { dev: { queries: 30, default: 0.7, bm25: 0.6 }, cisi: { queries: 76, default: 0.4, bm25: 0.39 }, 'xquad-mixed': { queries: 632, default: 0.65, bm25: 0.63 } },
    };
    const run = (dev: number, cisi: number, cisiBm25 = 0.39, mixed = 0.65) =>
      compareGate(
        { ms: 0, sets: { dev: { queries: 30, default: dev, bm25: 0.6 }, cisi: { queries: 76, default: cisi, bm25: cisiBm25 }, 'xquad-mixed': { queries: 632, default: mixed, bm25: 0.63 } } },
        b,
      );
    assert.equal(run(0.69, 0.39).ok, true);
    assert.equal(run(0.689, 0.4).ok, false);
    assert.deepEqual(run(0.7, 0.39, 0.396).rows.map((r) => r.failures.length), [0, 1, 0]);
    assert.equal(run(0.7, 0.4, 0.39, 0.645).ok, true);
    assert.deepEqual(run(0.7, 0.4, 0.39, 0.644).rows.map((r) => r.failures.length), [0, 0, 1], 'a large set fails at 0.006 below its baseline');
    assert.equal(compareGate({ ms: 0, sets: { scifact: { queries: 1, default: 1, bm25: 0 } } }, b).ok, false, 'no baseline figure fails');
  });

  it('reports the question-weighted mean over the measured sets', () => {
    const b: GateBaseline = { commit: 'x', measuredAt: '', command: '', sets: { dev: { queries: 30, default: 0.7, bm25: 0.6 }, cisi: { queries: 90, default: 0.3, bm25: 0.2 } } };
    const r = compareGate({ ms: 0, sets: { dev: { queries: 30, default: 0.8, bm25: 0.6 }, cisi: { queries: 90, default: 0.4, bm25: 0.2 } } }, b);
    assert.equal(r.mean.queries, 120);
    assert.ok(Math.abs(r.mean.default - 0.5) < 1e-9);
    assert.ok(Math.abs(r.mean.bm25 - 0.3) < 1e-9);
    assert.ok(Math.abs(r.mean.baseline! - 0.4) < 1e-9);
    assert.match(renderGate(r, b), /\| question-weighted mean \| 120 \| 0\.400 \| 0\.500 \| \+0\.100 \|/);
  });

  it('fails on a default with the keyword list disabled, and passes with the shipped default (real index)', async function () {
    if (!fs.existsSync(path.join(SHARED, 'eval/cranfield/corpus.jsonl'))) this.skip();
    const degraded = compareGate(await measureGate({ shared: SHARED, sets: ['cranfield'], defaultOverrides: { keyword: false } }), baseline());
    process.stdout.write(renderGate(degraded, baseline()));
    assert.equal(degraded.ok, false);
    assert.equal(degraded.rows[0].failures.length, 2, 'below the baseline and below bm25');
    const shipped = compareGate(await measureGate({ shared: SHARED, sets: ['cranfield'] }), baseline());
    assert.equal(shipped.ok, true, renderGate(shipped, baseline()));
  });
});
