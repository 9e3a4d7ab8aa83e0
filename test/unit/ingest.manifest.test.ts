// Every realdocs file (except hazardous/) through the real ParserPool, judged against its MANIFEST.tsv row.
import { strict as assert } from 'assert';
import { readFileSync } from 'fs';
import * as path from 'path';
import { ParserPool } from '../../src/rag/ingest';
import { LoadError, type ParsedDocument } from '../../src/rag/types';
import { REALDOCS, flatText } from './ingestHelpers';
import { needsShared, sharedMissing } from '../helpers/shared';

interface Row {
  file: string;
  format: string;
  special: string;
  expected: string;
  expectContains: string;
}

function readManifest(): Row[] {
  const lines = readFileSync(path.join(REALDOCS, 'MANIFEST.tsv'), 'utf8').split('\n').filter((l) => l.trim());
  const header = lines[0].split('\t');
  const col = (name: string): number => {
    const i = header.indexOf(name);
    if (i < 0) throw new Error(`MANIFEST.tsv has no column ${name}`);
    return i;
  };
  return lines.slice(1).map((line) => {
    const cells = line.split('\t');
    return {
      file: cells[col('file')],
      format: cells[col('format')],
      special: cells[col('special')],
      expected: cells[col('expected_behaviour')],
      expectContains: cells[col('expect_contains')],
    };
  });
}

type Outcome = { doc: ParsedDocument } | { error: unknown };

/**
 * Rows whose expectation changed with OCR (issue 10): the MANIFEST (read-only, shared) says these image-only PDFs
 * report "no extractable text (OCR needed)"; they are now recognised, and a phrase that exists only in their pixels
 * must be in the text. Everything else is judged by the MANIFEST as written.
 */
const OCR_NOW: Record<string, string> = {
  'pdf/c02-22.pdf': 'noticed that thing plenty of times since',
  'pdf/linn.pdf': 'Each of the 100 sequences contains 32 simultaneous, polyphonic tracks',
  'pdf/masks.pdf': 'Einer der Initiatoren von Linux war der finnische Programmierer Linus Torvalds',
};

describe('loaders against realdocs/MANIFEST.tsv', function () {
  needsShared('eval/realdocs');
  this.timeout(600_000);
  // Read at load time (a test per row); without the shared data the suite fails in its first hook.
  const rows = sharedMissing('eval/realdocs') ? [] : readManifest().filter((r) => !r.file.startsWith('hazardous/'));
  const outcomes = new Map<string, Outcome>();
  let pool: ParserPool;

  before(async () => {
    pool = new ParserPool(2);
    await Promise.all(
      rows.map(async (r) => {
        try {
          // Recognising a page takes seconds, more on a loaded machine: the deadline (per page for OCR) is generous there.
          const timeoutMs = OCR_NOW[r.file] ? 240_000 : 30_000;
          outcomes.set(r.file, { doc: await pool.parse(path.join(REALDOCS, r.file), { timeoutMs, maxFileSizeMB: 50 }) });
        } catch (error) {
          outcomes.set(r.file, { error });
        }
      }),
    );
  });
  after(() => pool?.close());

  it('covers every non-hazardous row of the manifest', () => {
    assert.ok(rows.length >= 50, `expected ≥ 50 rows, got ${rows.length}`);
  });

  for (const row of rows) {
    if (OCR_NOW[row.file]) {
      it(`${row.file}: image only, now recognised by OCR; contains "${OCR_NOW[row.file]}"`, () => {
        const o = outcomes.get(row.file)!;
        assert.ok('doc' in o, `failed: ${'error' in o ? String((o.error as Error).message) : ''}`);
        assert.equal(o.doc.metadata.ocrPages, '1');
        assert.ok(o.doc.blocks.every((b) => b.loc.page === 1 && typeof b.loc.ocrConfidence === 'number'));
        assert.ok(flatText(o.doc).includes(OCR_NOW[row.file]), flatText(o.doc));
      });
      continue;
    }
    const quoted = /"(no extractable text[^"]*)"/.exec(row.expected)?.[1];
    if (row.expectContains) {
      it(`${row.file}: parses and contains "${row.expectContains}"`, () => {
        const o = outcomes.get(row.file)!;
        assert.ok('doc' in o, `failed: ${'error' in o ? String((o.error as Error).message) : ''}`);
        assert.equal(o.doc.format, row.format);
        const phrase = row.expectContains.normalize('NFC').replace(/\s+/g, ' ');
        assert.ok(flatText(o.doc).includes(phrase), `"${phrase}" not in extracted text`);
      });
    } else if (/must fail/i.test(row.expected)) {
      const kind = /password|encrypted/i.test(`${row.special} ${row.expected}`) ? 'password-protected' : 'corrupt';
      it(`${row.file}: fails per file with LoadError '${kind}'`, () => {
        const o = outcomes.get(row.file)!;
        assert.ok('error' in o, 'expected a per-file failure, got a document');
        assert.ok(o.error instanceof LoadError, `expected LoadError, got ${String(o.error)}`);
        assert.equal(o.error.kind, kind, o.error.message);
        if (kind === 'password-protected') assert.equal(o.error.message, 'skipped: password-protected');
        else assert.ok(o.error.message.length > 20, 'reason should say what is wrong');
      });
    } else if (quoted) {
      it(`${row.file}: reports no-text "${quoted}"`, () => {
        const o = outcomes.get(row.file)!;
        assert.ok('error' in o, 'expected a no-text outcome, got a document');
        assert.ok(o.error instanceof LoadError, `expected LoadError, got ${String(o.error)}`);
        assert.equal(o.error.kind, 'no-text');
        assert.equal(o.error.message, quoted);
      });
    } else {
      it(`${row.file}: settles with a document or a per-file LoadError (no crash)`, () => {
        const o = outcomes.get(row.file)!;
        if ('error' in o) assert.ok(o.error instanceof LoadError, `expected LoadError, got ${String(o.error)}`);
        else assert.ok(o.doc.blocks.length > 0);
      });
    }
  }

  it('ArabicCIDTrueType.pdf: presentation forms are NFKC-normalised to base Arabic letters', () => {
    const o = outcomes.get('pdf/ArabicCIDTrueType.pdf')!;
    assert.ok('doc' in o);
    const text = flatText(o.doc);
    assert.ok(!/[\uFB50-\uFDFF\uFE70-\uFEFE]/.test(text), 'presentation forms left in the text');
    assert.ok(text.includes('العربية'), text);
  });

  it('testArabicMisleadingCharset.html: the real encoding (windows-1256) is detected and a warning says so', () => {
    const o = outcomes.get('html/testArabicMisleadingCharset.html')!;
    assert.ok('doc' in o);
    const text = flatText(o.doc);
    assert.ok(!text.includes('\uFFFD'), 'replacement characters in the text');
    assert.ok(text.includes('اللغة العربية'), text);
    assert.ok(o.doc.warnings.some((w) => /windows-1256/.test(w)), o.doc.warnings.join('; '));
  });

  it('truetype_font_nomapping.pdf: "succeeds" but warns that the text looks unreadable', () => {
    const o = outcomes.get('pdf/truetype_font_nomapping.pdf')!;
    assert.ok('doc' in o);
    assert.ok(o.doc.warnings.some((w) => /unreadable/.test(w)), o.doc.warnings.join('; '));
  });

  it('PDFs that pdf.js recovers (truncated download, broken xref) still give their text', () => {
    for (const f of ['pdf/TAMReview.truncated.pdf', 'pdf/issue9418.pdf', 'pdf/xref_command_missing.pdf']) {
      const o = outcomes.get(f)!;
      assert.ok('doc' in o, f);
      assert.ok(o.doc.blocks.every((b) => typeof b.loc.page === 'number' && b.loc.page >= 1), f);
    }
  });
});
