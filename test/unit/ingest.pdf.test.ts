// PDF loader on real files: reading order on a two-column paper, hyphenation repair, pages, outcomes.
import { strict as assert } from 'assert';
import { readFileSync } from 'fs';
import * as path from 'path';
import { extractText } from 'unpdf';
import { parseBytes } from '../../src/rag/ingest';
import { DEFAULT_OCR } from '../../src/rag/ingest/ocr';
import { buildFragments, composeSpacingAccents, dropRunningLines, joinLines, orderFragments, type LineFragment } from '../../src/rag/ingest/pdfLayout';
import { LoadError, type ParsedDocument } from '../../src/rag/types';
import { REALDOCS } from './ingestHelpers';
import { needsShared } from '../helpers/shared';

const pdf = (name: string): Buffer => readFileSync(path.join(REALDOCS, 'pdf', name));
const pageText = (doc: ParsedDocument, page: number): string =>
  doc.blocks
    .filter((b) => b.loc.page === page)
    .map((b) => b.text)
    .join('\n');

describe('PDF loader', function () {
  needsShared('eval/realdocs');
  this.timeout(60_000);
  let highlights: ParsedDocument;
  before(async () => {
    highlights = await parseBytes(pdf('highlights.pdf'), 'pdf', 'highlights.pdf');
  });

  it('reads a two-column paper column by column (sentences that wrap inside a column stay whole, in order)', () => {
    const p1 = pageText(highlights, 1);
    const leftColumn = 'Dynamic languages such as JavaScript, Python, and Ruby, are popular since they are expressive, accessible to non-experts, and make deployment as easy as distributing a source file.';
    const rightColumn = 'We present a trace-based compilation technique for dynamic languages that reconciles speed of compilation with excellent performance of the generated machine code.';
    assert.ok(p1.includes(leftColumn), 'left-column sentence broken up');
    assert.ok(p1.includes(rightColumn), 'right-column sentence broken up');
    const abstract = p1.indexOf('Dynamic languages such as JavaScript are more difficult to compile');
    const intro = p1.indexOf(leftColumn);
    const right = p1.indexOf(rightColumn);
    assert.ok(abstract >= 0 && abstract < intro && intro < right, `order ${abstract} < ${intro} < ${right}`);
    assert.equal(highlights.metadata.twoColumnPages, '14');
  });

  it('orders interleaved two-column fragments left column first, bands cut at full-width lines', () => {
    const frag = (text: string, x0: number, x1: number, y: number): LineFragment => ({ text, x0, x1, y, size: 10 });
    const stream: LineFragment[] = [frag('TITLE spanning both columns', 100, 500, 760)];
    for (let i = 0; i < 6; i++) {
      stream.push(frag(`left ${i}`, 50, 290, 700 - i * 12), frag(`right ${i}`, 320, 560, 700 - i * 12));
    }
    const { ordered, columns } = orderFragments(stream, 0, 612);
    assert.equal(columns, 2);
    assert.deepEqual(
      ordered.map((f) => f.text),
      ['TITLE spanning both columns', ...[0, 1, 2, 3, 4, 5].map((i) => `left ${i}`), ...[0, 1, 2, 3, 4, 5].map((i) => `right ${i}`)],
    );
    const single = orderFragments(stream.slice(0, 3).map((f) => ({ ...f, x0: 50, x1: 560 })), 0, 612);
    assert.equal(single.columns, 1);
  });

  it('builds fragments from items: same baseline joins, a column gutter splits', () => {
    const item = (str: string, x: number, width: number, y = 700) => ({ str, x, y, width, size: 10, hasEOL: false });
    const fragments = buildFragments([item('Hello', 50, 25), item('world', 78, 25), item('Other', 330, 25)]);
    assert.deepEqual(fragments.map((f) => f.text), ['Hello world', 'Other']);
  });

  it('joins words hyphenated at a line end and keeps real hyphens', async () => {
    assert.equal(joinLines('the Zeit-', 'raum beginnt'), 'the Zeitraum beginnt');
    assert.equal(joinLines('das Arbeitszeit-', 'Gesetz gilt'), 'das Arbeitszeit-Gesetz gilt');
    assert.equal(joinLines('a trace-', 'compilation step', new Set(['trace-compilation'])), 'a trace-compilation step');
    // On the real paper: every lower-case line-end hyphenation that pdf.js reports on page 1 is repaired.
    const { text } = await extractText(new Uint8Array(pdf('highlights.pdf')), { mergePages: false });
    const broken = [...(text[0].match(/\p{L}+-\n\p{Ll}+/gu) ?? [])];
    assert.ok(broken.length >= 5, 'fixture should contain hyphenated line ends');
    const p1 = pageText(highlights, 1);
    for (const b of broken) {
      const [head, tail] = b.split('-\n');
      assert.ok(p1.includes(head + tail), `"${head}${tail}" not rejoined`);
      assert.ok(!p1.includes(`${head}- ${tail}`) && !p1.includes(`${head}-${tail}`), `"${b}" left hyphenated`);
    }
    assert.ok(p1.includes('Trace-based'), 'real hyphen inside a line kept');
  });

  it('puts TeX spacing accents back on their letters ("na¨ıve" → "naïve")', () => {
    assert.equal(composeSpacingAccents('na\u00A8\u0131ve Gr\u00A8 u\u00DFe'), 'naïve Grüße');
    const text = highlights.blocks.map((b) => b.text).join(' ');
    assert.ok(text.includes('the naïve version'));
    assert.ok(!text.includes('\u00A8'));
  });

  it('drops running headers/footers and page numbers that recur in the page margins', async () => {
    const frag = (text: string, y: number): LineFragment => ({ text, x0: 50, x1: 300, y, size: 10 });
    const body = (n: number) => [700, 690, 680, 670].map((y, i) => frag(i === 0 ? `Artikel ${n}` : `Body line ${i} of page ${n}`, y));
    const pages = [1, 2, 3, 4].map((n) => [frag('Journal of Tests', 780), ...body(n), frag(n % 2 ? `- ${n} -` : `Seite ${n} von 4`, 30)]);
    assert.deepEqual(
      dropRunningLines(pages).map((lines) => lines.map((l) => l.text)),
      [1, 2, 3, 4].map((n) => body(n).map((l) => l.text)),
      'header and page numbers go; numbered headings at the top of the body stay',
    );
    const two = pages.slice(0, 2);
    assert.equal(dropRunningLines(two), two, 'two pages are too few to tell');
    // TAMReview.pdf: every page ends with "Sprouts - http://sprouts.aisnet.org/9-37" and a page number.
    const tam = await parseBytes(pdf('TAMReview.pdf'), 'pdf', 'TAMReview.pdf');
    assert.ok(!tam.blocks.some((b) => b.text.includes('Sprouts - http://sprouts.aisnet.org/9-37')), 'running footer indexed');
    assert.ok(!tam.blocks.some((b) => /^\d+$/.test(b.text)), 'page number indexed as a block');
    // Its font maps the space glyph to U+0002: control characters become spaces.
    assert.ok(tam.blocks.some((b) => b.text.includes('Overview of the Technology Acceptance Model')));
  });

  it('gives every block its 1-based physical page', async () => {
    const doc = await parseBytes(pdf('ArbZG.pdf'), 'pdf', 'ArbZG.pdf');
    assert.equal(doc.metadata.pages, '13');
    const pages = new Set(doc.blocks.map((b) => b.loc.page));
    assert.deepEqual([...pages].sort((a, b) => a! - b!), Array.from({ length: 13 }, (_, i) => i + 1));
    const { text } = await extractText(new Uint8Array(pdf('ArbZG.pdf')), { mergePages: false });
    // A sentence is cited on the page where pdf.js has it.
    const block = doc.blocks.find((b) => b.text.includes('Nachtzeit im Sinne dieses Gesetzes'))!;
    assert.ok(text[block.loc.page! - 1].replace(/\s+/g, ' ').includes('Nachtzeit im Sinne dieses Gesetzes'));
  });

  it('finds headings by font size', async () => {
    const arbzg = await parseBytes(pdf('ArbZG.pdf'), 'pdf', 'ArbZG.pdf');
    const heading = (text: string) => arbzg.blocks.find((b) => b.kind === 'heading' && b.text === text);
    // The statute's 14 pt section headings over 12 pt body text, below the 16 pt part headings.
    assert.ok(heading('§ 5 Ruhezeit'), 'section heading not found');
    assert.ok(heading('Erster Abschnitt - Allgemeine Vorschriften'));
    assert.ok(heading('Erster Abschnitt - Allgemeine Vorschriften')!.level! < heading('§ 5 Ruhezeit')!.level!);
    assert.ok(arbzg.blocks.some((b) => b.kind === 'paragraph' && b.text.startsWith('(1) Die Arbeitnehmer müssen nach Beendigung')));
    const title = highlights.blocks[0];
    assert.equal(title.kind, 'heading');
    assert.equal(title.text, 'Trace-based Just-in-Time Type Specialization for Dynamic Languages');
    assert.ok(highlights.blocks.some((b) => b.kind === 'heading' && b.text === '1. Introduction'));
  });

  it('indexes values typed into form fields (they live in annotations, not page text)', async () => {
    const doc = await parseBytes(pdf('prefilled_f1040.pdf'), 'pdf', 'f1040.pdf');
    const filled = doc.blocks.find((b) => b.text.split('\n').includes('foobar'));
    assert.ok(filled, 'form value "foobar" not indexed');
    assert.equal(filled.loc.page, 2);
  });

  it('reports password, scans, blank pages and damage as per-file outcomes', async () => {
    // OCR off: scans report that they need it (OCR itself: ingest.ocr.test.ts, ingest.manifest.test.ts).
    const outcome = async (name: string) => parseBytes(pdf(name), 'pdf', name, { ...DEFAULT_OCR, enabled: false }).then(() => null, (e: unknown) => e as LoadError);
    assert.deepEqual(await outcome('issue6010_1.pdf').then((e) => [e?.kind, e?.message]), ['password-protected', 'skipped: password-protected']);
    assert.deepEqual(await outcome('c02-22.pdf').then((e) => [e?.kind, e?.message]), ['no-text', 'no extractable text (OCR needed; OCR is turned off: docsRag.ocr.enabled / --ocr on)']);
    assert.deepEqual(await outcome('empty.pdf').then((e) => [e?.kind, e?.message]), ['no-text', 'no extractable text']);
    const invalid = await outcome('invalid.pdf');
    assert.equal(invalid?.kind, 'corrupt');
    assert.match(invalid!.message, /Invalid PDF structure.*re-export or re-download/);
  });
});
