// HTML loader on real pages: charset handling, chrome removal, tables, and source line ranges.
import { strict as assert } from 'assert';
import { readFileSync } from 'fs';
import * as path from 'path';
import { parseBytes } from '../../src/rag/ingest';
import { READABILITY_MAX_CHARS, looksLikeProse } from '../../src/rag/ingest/html';
import { decodeText } from '../../src/rag/ingest/decode';
import type { ParsedDocument } from '../../src/rag/types';
import { REALDOCS, flatText } from './ingestHelpers';
import { needsShared } from '../helpers/shared';

const html = (name: string): Buffer => readFileSync(path.join(REALDOCS, 'html', name));
const parse = (name: string): Promise<ParsedDocument> => parseBytes(html(name), 'html', name);

describe('HTML loader', function () {
  needsShared('eval/realdocs');
  this.timeout(60_000);

  it('decodes by BOM first (UTF-16LE page declaring charset "unicode")', async () => {
    const doc = await parse('testHTML_charset_utf16le.html');
    assert.equal(doc.metadata.encoding, 'utf16le');
    assert.ok(flatText(doc).includes('This is a sample text'));
    assert.ok(!flatText(doc).includes('\u0000'));
  });

  it('falls back when the declared charset is wrong (UTF-8 declared, windows-1256 bytes)', async () => {
    const doc = await parse('testArabicMisleadingCharset.html');
    assert.equal(doc.metadata.encoding, 'windows-1256');
    assert.ok(/[\u0621-\u064A]{3}/.test(flatText(doc)));
    assert.ok(!flatText(doc).includes('\uFFFD'));
    // The declaration is honoured when it fits the bytes.
    const latin = decodeText(Buffer.from('<p>Gr\xfc\xdfe</p>', 'latin1'), 'iso-8859-1');
    assert.equal(latin.text, '<p>Grüße</p>');
    assert.deepEqual(latin.warnings, []);
    // A stale legacy declaration on UTF-8 bytes: decoded as UTF-8, with a warning.
    const stale = await parseBytes(Buffer.from('<html><head><meta charset="windows-1252"></head><body><p>Grüße aus Köln</p></body></html>', 'utf8'), 'html', 'stale.html');
    assert.ok(flatText(stale).includes('Grüße aus Köln'), flatText(stale));
    assert.ok(stale.warnings.some((w) => /declared windows-1252 but the bytes are UTF-8/.test(w)));
  });

  it('parses markup without <html> as a page body: a fragment, and a page of nothing but a script tag (no-text, not a crash)', async () => {
    const fragment = await parseBytes(Buffer.from('<p>Die Pegelmessung erfolgt stündlich.</p><h2>Anhang</h2><p>Weitere Angaben.</p>'), 'html', 'fragment.html');
    assert.deepEqual(
      fragment.blocks.map((b) => [b.kind, b.text]),
      [
        ['paragraph', 'Die Pegelmessung erfolgt stündlich.'],
        ['heading', 'Anhang'],
        ['paragraph', 'Weitere Angaben.'],
      ],
    );
    // HTML5 leaves <html> out: such a page was 'no extractable text'.
    const noHtmlTag = await parseBytes(Buffer.from('<!doctype html><head><title>Pegel</title></head><body><h1>Pegel</h1><p>Die Messung erfolgt stündlich.</p></body>'), 'html', 'page.html');
    assert.ok(flatText(noHtmlTag).includes('Die Messung erfolgt stündlich.'), flatText(noHtmlTag));
    // Like tslib.html in the tslib npm package: linkedom takes <script> for the document element, which the chrome
    // filter removes; its body getter then threw a TypeError that became the file's status.
    await assert.rejects(parseBytes(Buffer.from('<script src="tslib.js"></script>\n'), 'html', 'tslib.html'), (err: Error & { kind?: string }) => err.kind === 'no-text' && /no extractable text/.test(err.message));
  });

  it('indexes a page past READABILITY_MAX_CHARS as its whole body minus chrome (no main-content detection)', async () => {
    const para = (i: number) => `<p>Absatz ${i}: Die Pegelmessung am Nordufer erfolgt stündlich durch den Flusswart und wird im Register vermerkt.</p>`;
    const page = (n: number) =>
      `<!doctype html><html><head><title>Pegel</title></head><body><nav>Startseite Menü</nav><div class="sidebar"><a href="/a">Seitenleiste Verweis</a></div><article><h1>Pegel</h1>${Array.from({ length: n }, (_, i) => para(i)).join('')}</article><footer>Impressum</footer></body></html>`;
    const small = await parseBytes(Buffer.from(page(20)), 'html', 'small.html');
    const large = await parseBytes(Buffer.from(page(Math.ceil(READABILITY_MAX_CHARS / 100))), 'html', 'large.html');
    assert.ok(page(Math.ceil(READABILITY_MAX_CHARS / 100)).length > READABILITY_MAX_CHARS);
    // Readability keeps the article only; the large page keeps the side links too, but never the chrome.
    assert.ok(!flatText(small).includes('Seitenleiste Verweis'), 'small page: main content only');
    assert.ok(flatText(large).includes('Seitenleiste Verweis'), 'large page: the whole body');
    for (const doc of [small, large]) {
      assert.ok(flatText(doc).includes('Absatz 19: Die Pegelmessung'));
      assert.ok(!flatText(doc).includes('Startseite Menü') && !flatText(doc).includes('Impressum'), 'chrome removed');
    }
  });

  it('reads list items that hold headings or code as sections, and plain list items as one list', async () => {
    const page = `<!doctype html><html><body><main><h1>Lizenzen</h1><ul class="licenses">
<li><h3>MIT-Lizenz</h3><p>Verwendet von: pegel 1.0</p><pre class="license-text">Hiermit wird unentgeltlich jeder Person
die Erlaubnis erteilt, die Software zu nutzen.</pre></li>
<li><h3>Apache-Lizenz 2.0</h3><p>Verwendet von: flusswart 2.3</p><pre class="license-text">Lizenziert unter der Apache-Lizenz
in der Fassung 2.0 vom Januar 2004.</pre></li>
</ul><p>Weitere Hinweise:</p><ul><li>Pegel werden stündlich gemessen.</li><li>Der Flusswart trägt sie ein.</li></ul></main></body></html>`;
    const doc = await parseBytes(Buffer.from(page), 'html', 'licences.html');
    const headings = doc.blocks.filter((b) => b.kind === 'heading').map((b) => b.text);
    assert.deepEqual(headings, ['Lizenzen', 'MIT-Lizenz', 'Apache-Lizenz 2.0']);
    const apache = doc.blocks.findIndex((b) => b.text === 'Apache-Lizenz 2.0');
    assert.ok(doc.blocks.slice(apache + 1).some((b) => b.text.includes('Fassung 2.0 vom Januar 2004')), 'the licence text follows its heading');
    const lists = doc.blocks.filter((b) => b.kind === 'list');
    assert.deepEqual(lists.map((b) => b.text), ['Pegel werden stündlich gemessen.\nDer Flusswart trägt sie ein.']);
    // The section's text is found in the source again: its own lines, not the whole list's.
    const mit = doc.blocks.find((b) => b.text.startsWith('Hiermit wird'))!;
    assert.deepEqual([mit.loc.startLine, mit.loc.endLine], [2, 3]);
  });

  it('strips site chrome (navigation, scripts, footer) and keeps the article', async () => {
    const page = html('heise.html').toString('utf8');
    const doc = await parse('heise.html');
    const text = flatText(doc);
    assert.ok(text.includes('AgileBits hat Version 5.3 seines bekannten Passwortmanagers 1Password'));
    // Script code and the navigation menu of the page are not indexed.
    const scriptSnippet = /<script[^>]*>([^<]{40,})<\/script>/.exec(page)![1].trim().slice(0, 30);
    assert.ok(!text.includes(scriptSnippet), 'script content indexed');
    assert.ok(text.length < page.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').length / 2, 'boilerplate not removed');
  });

  it('keeps headings and data tables as blocks', async () => {
    const doc = await parse('factorio-fff-282.html');
    assert.ok(doc.blocks.some((b) => b.kind === 'heading' && b.text === 'The release plan (kovarex)'));
    const table = doc.blocks.find((b) => b.kind === 'table');
    assert.ok(table && table.rows!.length >= 2 && table.rows![0].length >= 2, 'table with rows and cells');
    assert.equal(table!.text, table!.rows!.map((r) => r.join(' | ')).join('\n'));
  });

  it('treats fixed-width prose in <pre> (an RFC-style draft) as text and real code as code', async () => {
    const doc = await parse('ietf-remotestorage.html');
    const intro = doc.blocks.find((b) => b.text.includes('This draft describes a protocol by which client-side applications'));
    assert.ok(intro, 'draft text missing');
    assert.equal(intro.kind, 'paragraph');
    assert.equal(looksLikeProse('function f(x) {\n  return x.map((y) => y * 2);\n}\nconst z = f([1, 2]);'), false);
    assert.equal(looksLikeProse('   The remoteStorage protocol lets a web application store data\n   on a server chosen by the user, over plain HTTP requests.'), true);
  });

  it('gives blocks the line range of the source HTML where their text is', async () => {
    for (const name of ['factorio-fff-282.html', 'wikipedia-mozilla.html', 'heise.html']) {
      const source = html(name).toString('utf8').split('\n');
      const doc = await parse(name);
      const located = doc.blocks.filter((b) => b.loc.startLine !== undefined);
      assert.ok(located.length >= doc.blocks.length * 0.8, `${name}: ${located.length}/${doc.blocks.length} located`);
      for (const b of located) {
        const range = source.slice(b.loc.startLine! - 1, b.loc.endLine).join('\n');
        const firstWord = b.text.match(/[\p{L}\p{N}]{4,}/u)?.[0];
        if (firstWord) assert.ok(range.includes(firstWord), `${name}: "${firstWord}" not in lines ${b.loc.startLine}-${b.loc.endLine}`);
        assert.ok(b.loc.quote && b.text.replace(/\s+/g, ' ').trim().startsWith(b.loc.quote), `${name}: quote "${b.loc.quote}" is not the start of the block`);
      }
    }
  });
});
