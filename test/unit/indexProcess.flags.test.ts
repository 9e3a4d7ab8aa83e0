// Node flags of the indexing process (src/indexProcess/protocol.ts): added to a child's execArgv unless the user set the
// same flag, and effective in a real node process (the young generation stays small).
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { INDEXING_NODE_FLAGS, withIndexingFlags } from '../../src/indexProcess/protocol';

describe('indexing process node flags', () => {
  it('adds INDEXING_NODE_FLAGS before the inherited flags; a flag the user set keeps their value', () => {
    assert.deepEqual(withIndexingFlags(['--import', 'tsx']), [...INDEXING_NODE_FLAGS, '--import', 'tsx']);
    assert.deepEqual(withIndexingFlags(['--max-semi-space-size=8']), ['--heap-growing-percent=20', '--max-semi-space-size=8']);
  });

  it('keeps V8\'s young generation small in a process started with them', () => {
    // Short-lived objects with some survivors: V8 grows the young generation towards its limit.
    const script = `const keep = []; for (let i = 0; i < 2e6; i++) { const o = { i, s: 'x' + i }; if (i % 3 === 0) keep.push(o); if (keep.length > 2e5) keep.length = 0; }
      process.stdout.write(String(require('v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size));`;
    const young = (flags: string[]) => Number(execFileSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8' }));
    const withFlags = young(withIndexingFlags([]));
    const without = young([]);
    assert.ok(withFlags <= 4 * 1024 * 1024, `new space ${withFlags} bytes with ${INDEXING_NODE_FLAGS.join(' ')}`);
    assert.ok(without > withFlags, `default new space ${without} bytes`);
  });
});
