import * as assert from 'node:assert/strict';
import { HtmlLineLocator } from '../../src/rag/ingest/htmlLines';

describe('HtmlLineLocator (line ranges of HTML blocks)', () => {
  const page = [
    '<p>Alpha beta &amp; more</p>',
    "<SCRIPT>var x = 'gamma delta';",
    '</Script>',
    '<style>p { color: red }</STYLE>',
    '<p>Gamma delta</p>',
    '<p>İstanbul Straße</p>',
    '<pre>line one',
    'line two',
    'line three</pre>',
  ].join('\n');
  const decode = (entity: string) => (entity === '&amp;' ? '&' : entity);

  it('finds blocks in order, skipping scripts and styles whatever their case, across lines', () => {
    const locator = new HtmlLineLocator(page, decode);
    assert.deepEqual(locator.locate('Alpha beta & more'), { startLine: 1, endLine: 1 });
    // The same words inside the <SCRIPT> on line 2 are not text of the page.
    assert.deepEqual(locator.locate('Gamma delta'), { startLine: 5, endLine: 5 });
    // Letters whose lower case is longer (İ → i + combining dot) keep the lines after them right.
    assert.deepEqual(locator.locate('İstanbul Straße'), { startLine: 6, endLine: 6 });
    assert.deepEqual(locator.locate('line one\nline two\nline three'), { startLine: 7, endLine: 9 });
    // Searching goes forward only: an earlier block is not found again.
    assert.equal(locator.locate('Alpha beta'), null);
  });

  it('maps a large page (more letters than the first buffer) to the right lines', () => {
    const lines = Array.from({ length: 60_000 }, (_, i) => `<p>Paragraph number ${i} says hello ${'x'.repeat(i % 40)}</p>`);
    const locator = new HtmlLineLocator(lines.join('\n'), decode);
    for (const i of [0, 1, 29_999, 59_999]) {
      assert.deepEqual(locator.locate(`Paragraph number ${i} says hello`), { startLine: i + 1, endLine: i + 1 });
    }
  });
});
