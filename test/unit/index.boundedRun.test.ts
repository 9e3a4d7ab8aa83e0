// runBounded: a few jobs in flight, in order, and with a weight budget (the indexer's bound on the bytes of the files
// being parsed at once): the items in flight never weigh more than the budget together, a heavier item runs alone, and
// light items behind a heavy one never pass it.
import * as assert from 'node:assert/strict';
import { runBounded } from '../../src/rag/index/boundedRun';

const tick = () => new Promise((r) => setTimeout(r, 5));

async function trace(weights: number[], inFlight: number, budget?: number) {
  const running = new Set<number>();
  const starts: number[] = [];
  const overlaps: number[][] = [];
  const result = await runBounded(
    weights.map((_, i) => i),
    inFlight,
    async (i) => {
      running.add(i);
      starts.push(i);
      overlaps.push([...running]);
      await tick();
      await tick();
      running.delete(i);
    },
    budget === undefined ? {} : { weight: (i) => weights[i], budget },
  );
  return { result, starts, overlaps };
}

describe('runBounded', () => {
  it('without a budget keeps `inFlight` jobs running, started in order', async () => {
    const { result, starts, overlaps } = await trace([1, 1, 1, 1, 1, 1], 3);
    assert.deepEqual(result, { cancelled: false, failure: null });
    assert.deepEqual(starts, [0, 1, 2, 3, 4, 5]);
    assert.equal(Math.max(...overlaps.map((o) => o.length)), 3);
  });

  it('with a budget: the jobs in flight weigh at most the budget, a heavier one runs alone, none passes it', async () => {
    const weights = [4, 4, 30, 1, 1, 6, 6, 2];
    const { result, starts, overlaps } = await trace(weights, 4, 10);
    assert.deepEqual(result, { cancelled: false, failure: null });
    assert.deepEqual(starts, [0, 1, 2, 3, 4, 5, 6, 7], 'in order: the light items wait behind the heavy one');
    for (const o of overlaps) {
      const total = o.reduce((s, i) => s + weights[i], 0);
      if (o.includes(2)) assert.deepEqual(o, [2], `the heavy item runs alone: ${JSON.stringify(o)}`);
      else assert.ok(total <= 10, `in flight ${JSON.stringify(o)} weigh ${total}`);
    }
    assert.ok(overlaps.some((o) => o.length >= 3), 'light items still run together');
  });

  it('stops taking items after a failure and returns it once the others are done', async () => {
    const started: number[] = [];
    const res = await runBounded([0, 1, 2, 3, 4, 5], 2, async (i) => {
      started.push(i);
      await tick();
      if (i === 1) throw new Error('boom');
    }, { weight: () => 1, budget: 2 });
    assert.equal((res.failure as Error).message, 'boom');
    assert.ok(started.length <= 3, `started ${started}`);
  });
});
