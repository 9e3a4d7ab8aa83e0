// Markdown and plain-text loaders: blocks, front matter as metadata, and exact 1-based line ranges.
import { strict as assert } from 'assert';
import { readFileSync, readdirSync } from 'fs';
import * as path from 'path';
import { parseBytes } from '../../src/rag/ingest';
import type { ParsedDocument } from '../../src/rag/types';
import { REALDOCS, WORKSPACE, wordsOf } from './ingestHelpers';
import { needsShared } from '../helpers/shared';

const FIXTURES = path.resolve(__dirname, '../fixtures/ingest');

function frontMatterEnd(lines: string[]): number {
  if (lines[0] !== '---') return 0;
  const end = lines.findIndex((l, i) => i > 0 && (l === '---' || l === '...'));
  return end + 1;
}

/** The invariant the citations rely on, checked block by block. */
function checkLineRanges(file: string, doc: ParsedDocument, source: string): void {
  const lines = source.split('\n');
  const fmEnd = frontMatterEnd(lines);
  let previousStart = 0;
  for (const b of doc.blocks) {
    const { startLine, endLine } = b.loc;
    assert.ok(startLine !== undefined && endLine !== undefined, `${file}: block without line range: ${b.text.slice(0, 60)}`);
    assert.ok(startLine >= 1 && endLine >= startLine && endLine <= lines.length, `${file}: bad range ${startLine}-${endLine}`);
    assert.ok(lines[startLine - 1].trim() !== '', `${file}: range starts on a blank line ${startLine}`);
    assert.ok(lines[endLine - 1].trim() !== '', `${file}: range ends on a blank line ${endLine}`);
    assert.ok(startLine > fmEnd, `${file}: block inside the front matter (line ${startLine})`);
    assert.ok(startLine >= previousStart, `${file}: blocks out of document order at line ${startLine}`);
    previousStart = startLine;
    const range = lines.slice(startLine - 1, endLine).join('\n').normalize('NFC');
    for (const w of wordsOf(b.text)) assert.ok(range.includes(w), `${file}: "${w}" of block ${startLine}-${endLine} is not in those lines`);
  }
}

describe('Markdown loader', () => {
  needsShared('eval/realdocs');
  it('keeps every block inside its exact line range on all law files and Markdown docs (front matter excluded)', async () => {
    const files = [
      ...readdirSync(path.join(WORKSPACE, 'gesetze')).filter((f) => f.endsWith('.md')).map((f) => path.join(WORKSPACE, 'gesetze', f)),
      ...readdirSync(path.join(REALDOCS, 'md')).map((f) => path.join(REALDOCS, 'md', f)),
      path.join(WORKSPACE, 'cargo-book/commands/cargo-add.md'),
      path.join(WORKSPACE, 'cargo-book/reference/build-scripts.md'),
    ];
    assert.ok(files.length >= 12);
    for (const file of files) {
      const bytes = readFileSync(file);
      const doc = await parseBytes(bytes, 'md', file);
      assert.ok(doc.blocks.length > 20, file);
      checkLineRanges(file, doc, bytes.toString('utf8'));
    }
  });

  it('takes the title from front matter and never indexes front matter values', async () => {
    const doc = await parseBytes(readFileSync(path.join(REALDOCS, 'md/AGG.md')), 'md', 'AGG.md');
    assert.equal(doc.title, 'Allgemeines Gleichbehandlungsgesetz');
    assert.equal(doc.metadata.jurabk, 'AGG');
    assert.ok(!doc.blocks.some((b) => /origslug|layout: default/.test(b.text)));
    const fixture = await parseBytes(readFileSync(path.join(FIXTURES, 'sample.md')), 'md', 'sample.md');
    assert.equal(fixture.title, 'Sample: Front Matter Title');
    assert.ok(!fixture.blocks.some((b) => b.text.includes('frontmattersecretword')));
  });

  it('keeps one text line per source line for most blocks of the law files (so passages can be narrowed to lines)', async () => {
    let matching = 0;
    let total = 0;
    for (const f of readdirSync(path.join(WORKSPACE, 'gesetze')).filter((n) => n.endsWith('.md'))) {
      const doc = await parseBytes(readFileSync(path.join(WORKSPACE, 'gesetze', f)), 'md', f);
      for (const b of doc.blocks.filter((x) => x.kind === 'paragraph' || x.kind === 'list')) {
        total++;
        if (b.text.split('\n').length === b.loc.endLine! - b.loc.startLine! + 1) matching++;
      }
    }
    assert.ok(matching / total > 0.95, `${matching}/${total}`);
  });

  it('gives CRLF files the same blocks and line ranges as LF files', async () => {
    const lf = readFileSync(path.join(FIXTURES, 'sample.md'), 'utf8');
    const a = await parseBytes(Buffer.from(lf), 'md', 'lf.md');
    const b = await parseBytes(Buffer.from(lf.replace(/\n/g, '\r\n')), 'md', 'crlf.md');
    assert.deepEqual(b.blocks, a.blocks);
    assert.equal(b.title, a.title);
  });

  it('gives headings with levels (without {#anchors}), paragraphs, tables with rows, code, loose list items, definition lists', async () => {
    const bytes = readFileSync(path.join(FIXTURES, 'sample.md'));
    const doc = await parseBytes(bytes, 'md', 'sample.md');
    checkLineRanges('sample.md', doc, bytes.toString('utf8'));
    const find = (re: RegExp) => doc.blocks.find((b) => re.test(b.text));
    assert.deepEqual({ ...find(/^Heading One/)!, loc: undefined }, { kind: 'heading', level: 1, text: 'Heading One', loc: undefined });
    assert.equal(find(/^Heading One/)!.loc.startLine, 6);
    const para = find(/^First paragraph/)!;
    assert.equal(para.kind, 'paragraph');
    assert.equal(para.text, 'First paragraph with bold text and a link,\ncontinued on a second line.', 'one text line per source line');
    assert.deepEqual([para.loc.startLine, para.loc.endLine], [8, 9]);
    const table = doc.blocks.find((b) => b.kind === 'table')!;
    assert.deepEqual(table.rows, [['Name', 'Value'], ['alpha', '1'], ['beta', '2']]);
    assert.equal(table.hasHeader, true);
    assert.deepEqual([table.loc.startLine, table.loc.endLine], [13, 16]);
    const code = doc.blocks.find((b) => b.kind === 'code')!;
    assert.equal(code.text, 'cargo build --release');
    assert.deepEqual([code.loc.startLine, code.loc.endLine], [19, 19], 'a fenced block is located at its code lines');
    const loose = doc.blocks.filter((b) => b.kind === 'list' && /Loose item/.test(b.text));
    assert.equal(loose.length, 2, 'a loose list gives one block per item');
    assert.equal(loose[0].text, '1. Loose item one\ncontinues here.');
    assert.deepEqual([loose[0].loc.startLine, loose[0].loc.endLine], [22, 23]);
    const tight = doc.blocks.find((b) => b.kind === 'list' && /tight a/.test(b.text))!;
    assert.equal(tight.text, 'tight a\ntight b');
    assert.equal(find(/^Begriff/)!.text, 'Begriff: Definition des Begriffs');
    assert.ok(find(/^Quoted paragraph/));
  });
});

describe('plain-text loader', () => {
  needsShared('eval/realdocs');
  it('splits paragraphs on blank lines and gives their line ranges', async () => {
    const doc = await parseBytes(readFileSync(path.join(FIXTURES, 'sample.txt')), 'txt', 'sample.txt');
    assert.deepEqual(
      doc.blocks.map((b) => [b.text, b.loc.startLine, b.loc.endLine]),
      [
        ['First paragraph line one\nline two.', 1, 2],
        ['Second paragraph.', 5, 5],
        ['Third one', 7, 7],
      ],
    );
  });

  it('does not mistake text between two "---" lines for front matter', async () => {
    const doc = await parseBytes(readFileSync(path.join(FIXTURES, 'rules.txt')), 'txt', 'rules.txt');
    assert.deepEqual(
      doc.blocks.map((b) => [b.text, b.loc.startLine]),
      [
        ['---\nJust a rule above.\n---', 1],
        ['Body text.', 5],
      ],
    );
  });

  it('decodes non-UTF-8 text with a warning instead of replacement characters', async () => {
    const latin1 = Buffer.from('Gr\xfc\xdfe aus K\xf6ln\n', 'latin1');
    const doc = await parseBytes(latin1, 'txt', 'legacy.txt');
    assert.equal(doc.blocks[0].text, 'Grüße aus Köln');
    assert.ok(doc.warnings.some((w) => /not valid UTF-8/.test(w)));
  });
});
