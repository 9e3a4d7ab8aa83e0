// DOCX, PPTX and XLSX loaders on real files: structure, locations (offsets + quotes), and what must not be indexed.
import { strict as assert } from 'assert';
import { readFileSync } from 'fs';
import * as path from 'path';
import mammoth from 'mammoth';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { parseBytes } from '../../src/rag/ingest';
import { LoadError, type ParsedDocument } from '../../src/rag/types';
import { REALDOCS, flatText, occurrences } from './ingestHelpers';
import { needsShared } from '../helpers/shared';

const file = (rel: string): Buffer => readFileSync(path.join(REALDOCS, rel));
const squeeze = (s: string): string => s.replace(/\s+/g, '');

describe('DOCX loader', function () {
  needsShared('eval/realdocs');
  this.timeout(60_000);

  it('takes heading levels from paragraph styles (ArbZG.docx: Heading 1/2/3 = 1/8/27)', async () => {
    const doc = await parseBytes(file('docx/ArbZG.docx'), 'docx', 'ArbZG.docx');
    const count = (level: number) => doc.blocks.filter((b) => b.kind === 'heading' && b.level === level).length;
    assert.deepEqual([count(1), count(2), count(3)], [1, 8, 27]);
    assert.ok(doc.blocks.filter((b) => b.kind === 'list').length >= 19);
  });

  it('gives offsets into mammoth.extractRawText output and a verbatim quote', async () => {
    for (const rel of ['docx/ArbZG.docx', 'docx/testWORD_various.docx', 'docx/pandoc_tables.docx']) {
      const bytes = file(rel);
      const doc = await parseBytes(bytes, 'docx', rel);
      const raw = (await mammoth.extractRawText({ buffer: bytes })).value.normalize('NFC');
      const located = doc.blocks.filter((b) => b.loc.startOffset !== undefined);
      assert.ok(located.length >= doc.blocks.length - 2, `${rel}: only ${located.length}/${doc.blocks.length} located`);
      let last = -1;
      for (const b of located) {
        const slice = raw.slice(b.loc.startOffset, b.loc.endOffset);
        if (b.kind === 'table') {
          // A table spans from its first to its last cell; every cell lies inside.
          for (const c of b.rows!.flat()) assert.ok(squeeze(slice).includes(squeeze(c)), `${rel}: cell "${c}" outside the table's offsets`);
        } else {
          assert.equal(squeeze(slice), squeeze(b.text), `${rel}: offsets of "${b.text.slice(0, 40)}"`);
        }
        assert.ok(raw.replace(/\s+/g, ' ').includes(b.loc.quote!), `${rel}: quote not verbatim: ${b.loc.quote}`);
        assert.ok(b.loc.startOffset! >= last || rel.includes('various'), `${rel}: offsets out of order`);
        last = b.loc.startOffset!;
      }
    }
  });

  it('keeps tables as row/cell units', async () => {
    const doc = await parseBytes(file('docx/pandoc_tables.docx'), 'docx', 'pandoc_tables.docx');
    const table = doc.blocks.find((b) => b.kind === 'table' && b.text.includes('Lebron James'))!;
    assert.deepEqual(table.rows![0], ['Name', 'Game', 'Fame', 'Blame']);
    assert.deepEqual(table.rows![1], ['Lebron James', 'Basketball', 'Very High', 'Leaving Cleveland']);
    const multi = doc.blocks.find((b) => b.kind === 'table' && b.text.includes('Multiparagraph'))!;
    assert.deepEqual(multi.rows![0], ['Simple Multiparagraph', 'Table Full'], 'paragraphs inside a cell are separated');
  });

  it('does not index tracked deletions', async () => {
    const bytes = file('docx/pandoc_track_changes_deletion.docx');
    const xml = strFromU8(unzipSync(bytes, { filter: (f) => f.name === 'word/document.xml' })['word/document.xml']);
    const deleted = [...xml.matchAll(/<w:delText[^>]*>([^<]+)</g)].map((m) => m[1].trim()).filter(Boolean);
    assert.ok(deleted.length > 0, 'fixture has a w:del');
    const text = flatText(await parseBytes(bytes, 'docx', 'x.docx'));
    assert.equal(text, 'This is a text with a deletion.');
    for (const d of deleted) assert.ok(!text.includes(d), `deleted text "${d}" indexed`);
  });

  it('reads text boxes in mc:AlternateContent once, not twice', async () => {
    const bytes = file('docx/pandoc_text_in_shape_format.docx');
    const xml = strFromU8(unzipSync(bytes, { filter: (f) => f.name === 'word/document.xml' })['word/document.xml']);
    assert.equal(occurrences(xml, 'Writing Technical'), 2, 'fixture holds the text twice');
    const doc = await parseBytes(bytes, 'docx', 'x.docx');
    assert.equal(occurrences(flatText(doc), 'Writing Technical Documents'), 1);
    assert.equal(occurrences(flatText(await parseBytes(file('docx/testWORD_various.docx'), 'docx', 'v.docx')), 'Here is a text box'), 1);
  });

  it('keeps footnotes searchable without the reference markers', async () => {
    const text = flatText(await parseBytes(file('docx/testWORD_various.docx'), 'docx', 'v.docx'));
    assert.ok(text.includes('This is a footnote.'));
    assert.ok(text.includes('Footnote appears here') && !text.includes('here[1]'));
    assert.ok(!text.includes('↑'));
  });
});

describe('PPTX loader', function () {
  needsShared('eval/realdocs');
  this.timeout(60_000);

  it('indexes slide text, tables and text boxes with slide headings and joined-text offsets', async () => {
    const doc = await parseBytes(file('pptx/testPPT_various.pptx'), 'pptx', 'various.pptx');
    assert.equal(doc.blocks[0].kind, 'heading');
    assert.match(doc.blocks[0].text, /^Slide 1\b/);
    const table = doc.blocks.find((b) => b.kind === 'table')!;
    assert.deepEqual(table.rows, [
      ['Row 1 Col 1', 'Row 1 Col 2', 'Row 1 Col 3'],
      ['Row 2 Col 1', 'Row 2 Col 2', 'Row 2 Col 3'],
    ]);
    assert.equal(occurrences(flatText(doc), 'Here is a text box'), 1);
    const joined = doc.blocks.map((b) => b.text).join('\n\n');
    for (const b of doc.blocks) assert.equal(joined.slice(b.loc.startOffset, b.loc.endOffset), b.text);
  });

  it('never indexes master/layout placeholder prompts', async () => {
    const bytes = file('pptx/testPPT_masterText.pptx');
    const master = strFromU8(unzipSync(bytes, { filter: (f) => f.name === 'ppt/slideMasters/slideMaster1.xml' })['ppt/slideMasters/slideMaster1.xml']);
    assert.ok(master.includes('Click to edit Master title style'), 'fixture master has prompts');
    const err = await parseBytes(bytes, 'pptx', 'm.pptx').then(() => null, (e: unknown) => e);
    assert.ok(err instanceof LoadError && err.kind === 'no-text', String(err));
    const various = flatText(await parseBytes(file('pptx/testPPT_various.pptx'), 'pptx', 'v.pptx'));
    assert.ok(!/Click to edit/.test(various));
  });

  it('indexes speaker notes under a notes heading, without header/footer/slide-number placeholders', async () => {
    // testPPT_various.pptx with words typed into its (empty) notes body placeholder.
    const entries = unzipSync(file('pptx/testPPT_various.pptx'));
    const name = 'ppt/notesSlides/notesSlide1.xml';
    const xml = strFromU8(entries[name]);
    const empty = '<a:p><a:endParaRPr lang="en-US"/></a:p></p:txBody>';
    assert.ok(xml.includes(empty), 'fixture notes body is empty');
    entries[name] = strToU8(xml.replace(empty, '<a:p><a:r><a:rPr lang="en-US"/><a:t>Remember the quarterly numbers</a:t></a:r></a:p></p:txBody>'));
    const doc = await parseBytes(zipSync(entries), 'pptx', 'notes.pptx');
    const at = doc.blocks.findIndex((b) => b.kind === 'heading' && b.text === 'Slide 1 notes');
    assert.ok(at > 0, 'notes heading');
    assert.equal(doc.blocks[at + 1].text, 'Remember the quarterly numbers');
    const text = flatText(doc);
    assert.ok(!text.includes('This is the footer text.') && !text.includes('This is the header text.'));
  });

  it('skips the page-number placeholder of notes pages', async () => {
    const doc = await parseBytes(file('pptx/testMSChart-govdocs-428996.pptx'), 'pptx', 'g.pptx');
    assert.ok(!doc.blocks.some((b) => /notes$/.test(b.text)), 'a notes page holding only a slide number adds nothing');
    assert.ok(flatText(doc).includes('Thin Film Partnership'));
  });
});

describe('XLSX loader', function () {
  needsShared('eval/realdocs');
  this.timeout(60_000);
  let kyc: ParsedDocument;
  before(async () => {
    kyc = await parseBytes(file('xlsx/CVLKRA-KYC_Download_File_Structure_V3.1.xlsx'), 'xlsx', 'kyc.xlsx');
  });

  it('makes each sheet a section: a heading with the sheet name followed by its table', () => {
    const headings = kyc.blocks.filter((b) => b.kind === 'heading').map((b) => b.text);
    assert.equal(headings.length, 30);
    assert.equal(headings[0], 'KYC HEADER');
    assert.deepEqual(kyc.metadata.sheets.split(', ').length, 30);
    for (let i = 0; i < kyc.blocks.length; i += 2) {
      assert.equal(kyc.blocks[i].kind, 'heading');
      assert.equal(kyc.blocks[i + 1].kind, 'table');
    }
  });

  it('keeps rows with their header row (shared strings and numbers)', () => {
    const table = kyc.blocks[1];
    assert.equal(table.hasHeader, true);
    assert.deepEqual(table.rows![0].slice(0, 4), ['S.No', 'Field', 'Field Type', 'Field Length']);
    const row = table.rows!.find((r) => r[1] === 'POS CODE')!;
    assert.deepEqual(row.slice(0, 4), ['1', 'POS CODE', 'VARCHAR', '20']);
  });

  it('reads Strict OOXML workbooks and shows numbers and dates readably', async () => {
    const strict = await parseBytes(file('xlsx/testEXCEL.strict.xlsx'), 'xlsx', 's.xlsx');
    // Sheet3 is empty: it is listed in the metadata but adds no section.
    assert.deepEqual(strict.blocks.filter((b) => b.kind === 'heading').map((b) => b.text), ['First Sheet', 'Sheet Number 2']);
    assert.equal(strict.metadata.sheets, 'First Sheet, Sheet Number 2, Sheet3');
    assert.ok(flatText(strict).includes('2nd row 2nd column'));
    const formats = flatText(await parseBytes(file('xlsx/testEXCEL-formats.xlsx'), 'xlsx', 'f.xlsx'));
    assert.ok(formats.includes('Percentage (0.025) | 0.025'), 'floating noise removed');
    assert.ok(formats.includes('1992-12-28 06:15'), 'date-formatted serials shown as dates');
  });

  it('reads dates of workbooks in the 1904 date system (workbookPr date1904) from their own epoch', async () => {
    const entries = unzipSync(file('xlsx/testEXCEL-formats.xlsx'));
    const name = 'xl/workbook.xml';
    const xml = strFromU8(entries[name]);
    assert.ok(xml.includes('<workbookPr defaultThemeVersion="124226"/>'), 'fixture workbookPr');
    entries[name] = strToU8(xml.replace('<workbookPr ', '<workbookPr date1904="1" '));
    const text = flatText(await parseBytes(zipSync(entries), 'xlsx', 'mac.xlsx'));
    // The same serial is 1462 days later in the 1904 system: 1992-12-28 06:15 (1900) → 1996-12-29 06:15 (1904).
    assert.ok(text.includes('1996-12-29 06:15'), 'dates counted from 1904-01-01');
    assert.ok(!text.includes('1992-12-28 06:15'), 'not four years early');
    assert.ok(text.includes('Percentage (0.025) | 0.025'), 'numbers are not dates');
    // date1904="false" is the 1900 system.
    entries[name] = strToU8(xml.replace('<workbookPr ', '<workbookPr date1904="false" '));
    assert.ok(flatText(await parseBytes(zipSync(entries), 'xlsx', 'pc.xlsx')).includes('1992-12-28 06:15'));
  });

  it('reads inline strings and booleans (cells that do not use the shared-string table)', async () => {
    const entries = unzipSync(file('xlsx/testEXCEL.xlsx'));
    const name = 'xl/worksheets/sheet1.xml';
    const xml = strFromU8(entries[name]);
    const a1 = '<c r="A1" s="1" t="s"><v>0</v></c><c r="B1" s="1"/>';
    assert.ok(xml.includes(a1), 'fixture cell A1');
    entries[name] = strToU8(xml.replace(a1, '<c r="A1" s="1" t="inlineStr"><is><t>Inline </t><r><t>hello</t></r></is></c><c r="B1" t="b"><v>1</v></c>'));
    const doc = await parseBytes(zipSync(entries), 'xlsx', 'inline.xlsx');
    const table = doc.blocks.find((b) => b.kind === 'table')!;
    assert.deepEqual(table.rows![0].slice(0, 2), ['Inline hello', 'TRUE']);
  });

  it('reports encrypted Office files (OLE2 containers) as password-protected', async () => {
    for (const [rel, format] of [['xlsx/testEXCEL_protected_passtika.xlsx', 'xlsx'], ['docx/testWORD_protected_passtika.docx', 'docx']] as const) {
      const err = await parseBytes(file(rel), format, rel).then(() => null, (e: unknown) => e);
      assert.ok(err instanceof LoadError, rel);
      assert.deepEqual([err.kind, err.message], ['password-protected', 'skipped: password-protected']);
    }
  });
});
