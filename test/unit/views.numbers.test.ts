// Counts in the UI follow the display language's digit grouping: a real team's index has six-digit passage counts.
import * as assert from 'node:assert/strict';
import { formatCount } from '../../src/views/numbers';

describe('views: counts in the display language', () => {
  it('groups digits as English and German write them, and falls back to English for a tag Intl rejects', () => {
    assert.equal(formatCount(275645, 'en'), '275,645');
    assert.equal(formatCount(275645, 'de'), '275.645');
    assert.equal(formatCount(999, 'de'), '999');
    assert.equal(formatCount(1234567, 'en-US'), '1,234,567');
    assert.equal(formatCount(275645, 'not a tag!'), '275,645');
  });
});
