// The index command's progress line in a terminal that reports no width: it must never fail the run.
import * as assert from 'node:assert/strict';
import { lineWidth } from '../../src/cli/index';

describe('docs-rag index progress line width', () => {
  it('a terminal of 0 columns (as under `script`) or none gets a usable width, never a negative one', () => {
    assert.equal(lineWidth(0), 100);
    assert.equal(lineWidth(undefined), 100);
    assert.equal(lineWidth(1), 100);
    assert.equal(lineWidth(80), 79);
    // What the progress line does with it: padding and a blank line of that width (a negative count threw RangeError).
    for (const c of [0, 1, 80]) assert.doesNotThrow(() => ' '.repeat(lineWidth(c)) + 'x'.padEnd(lineWidth(c)));
  });
});
