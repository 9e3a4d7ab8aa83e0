// The format table (src/rag/formats.ts) is the one list of formats: the extension lookup, the default include glob (in
// the engine and in package.json's `docsRag.include`), the chunk sizes and the citation shape all come from it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import picomatch from 'picomatch';
import { DEFAULT_INCLUDE, defaultConfig } from '../../src/rag/config';
import { DOC_FORMATS, FORMATS, READ_EXTENSIONS, READ_KINDS, defaultIncludeGlob, locationKind } from '../../src/rag/formats';
import { formatOf } from '../../src/rag/ingest';
import { needsQuote } from '../../src/rag/chunk/locations';

// Test data: the formats as users know them (an index records its include glob, so the default must not drift).
const EXPECTED_INCLUDE = '**/*.{md,markdown,txt,html,htm,pdf,docx,pptx,xlsx,png,jpg,jpeg,tif,tiff,webp,bmp}';
const EXPECTED_LOCATIONS = { md: 'lines', txt: 'lines', html: 'lines', pdf: 'pages', docx: 'quote', pptx: 'quote', xlsx: 'quote', image: 'quote' };

describe('formats: one table', () => {
  it("package.json's docsRag.include default is the table's include glob", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8'));
    const sections = Array.isArray(pkg.contributes.configuration) ? pkg.contributes.configuration : [pkg.contributes.configuration];
    const include = sections.find((s: { properties: Record<string, unknown> }) => 'docsRag.include' in s.properties).properties['docsRag.include'].default;
    assert.deepEqual(include, [defaultIncludeGlob()]);
    assert.deepEqual(DEFAULT_INCLUDE, [defaultIncludeGlob()]);
    assert.equal(defaultIncludeGlob(), EXPECTED_INCLUDE);
  });

  it('every extension of the table is selected by the default include and read as its format', () => {
    const selected = picomatch(DEFAULT_INCLUDE, { nocase: true });
    for (const format of DOC_FORMATS) {
      for (const ext of FORMATS[format].extensions) {
        assert.ok(selected(`docs/a.${ext}`), ext);
        assert.equal(formatOf(`docs/a.${ext.toUpperCase()}`), format, ext);
      }
    }
    assert.equal(READ_EXTENSIONS.length, new Set(READ_EXTENSIONS).size, 'an extension belongs to one format');
    assert.equal(formatOf('a.doc'), null);
  });

  it('citation shape, chunk sizes and the names in messages come from the table', () => {
    assert.deepEqual(Object.fromEntries(DOC_FORMATS.map((f) => [f, locationKind(f)])), EXPECTED_LOCATIONS);
    assert.equal(locationKind('odt'), undefined);
    assert.equal(locationKind('constructor'), undefined);
    for (const f of DOC_FORMATS) {
      assert.deepEqual(defaultConfig().chunk.sizes[f], FORMATS[f].chunk, f);
      assert.equal(needsQuote(f, []), FORMATS[f].location === 'quote', f);
    }
    assert.equal(READ_KINDS, 'Markdown, text, HTML, PDF, DOCX, PPTX, XLSX, images');
  });
});
