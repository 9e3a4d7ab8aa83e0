// Structural chunker on real files (parsed by the real loaders) and on small built documents.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chunkDocument } from '../../src/rag/chunk';
import { splitSentences } from '../../src/rag/text/sentences';
import { defaultConfig, type ChunkConfig } from '../../src/rag/config';
import { embedBuiltin } from '../../src/rag/embed';
import { parseBytes } from '../../src/rag/ingest/parseBytes';
import type { Block, DocFormat, IndexedPassage, ParsedDocument } from '../../src/rag/types';
import { EVAL, needsShared, sharedMissing } from '../helpers/shared';

const config: ChunkConfig = defaultConfig().chunk;
/** What the indexer passes: the semantic strategy's breakpoints from the builtin lexical sketch. */
const SEMANTIC = { embedText: embedBuiltin };

function listFiles(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...listFiles(p, ext));
    else if (e.name.endsWith(ext)) out.push(p);
  }
  return out.sort();
}

// Listed at load time (the tests are generated per file); without the shared data the suites fail in their first hook.
const MD_FILES = sharedMissing('eval/workspace', 'eval/realdocs') ? [] : [
  ...listFiles(path.join(EVAL, 'workspace/gesetze'), '.md'),
  ...listFiles(path.join(EVAL, 'workspace/cargo-book'), '.md'),
  ...listFiles(path.join(EVAL, 'realdocs/md'), '.md'),
];

async function parseFile(abs: string, format: DocFormat): Promise<ParsedDocument> {
  return parseBytes(fs.readFileSync(abs), format, path.basename(abs));
}

/** Parsed once for both strategies (parsing dominates the run time). */
const parsedCache = new Map<string, ParsedDocument>();
async function parseCached(abs: string): Promise<ParsedDocument> {
  if (!parsedCache.has(abs)) parsedCache.set(abs, await parseFile(abs, 'md'));
  return parsedCache.get(abs)!;
}

function chunkFile(doc: ParsedDocument, abs: string, cfg: ChunkConfig = config): IndexedPassage[] {
  return chunkDocument(doc, { path: path.relative(EVAL, abs).split(path.sep).join('/'), fileHash: 'h' }, cfg, SEMANTIC);
}

const LIST_ITEM_BREAK = /\n(?=[ \t]*(?:[-*+•–]|\(?[0-9]{1,3}[.)]|\(?[a-zA-Z][.)]|\([0-9a-z]{1,3}\))\s)/;
const words = (t: string) => t.match(/[\p{L}\p{N}]+/gu) ?? [];
const collapse = (t: string) => t.replace(/\s+/g, ' ').trim();

for (const strategy of ['structural', 'semantic'] as const) {
describe(`chunkDocument (${strategy}) on real Markdown files`, function () {
  needsShared('eval/workspace', 'eval/realdocs');
  this.timeout(120_000);
  const cfg: ChunkConfig = { ...config, strategy };
  const parsed = new Map<string, { doc: ParsedDocument; passages: IndexedPassage[]; lines: string[] }>();

  before(async () => {
    assert.ok(MD_FILES.length >= 20, `expected the shared eval Markdown files under ${EVAL}`);
    for (const f of MD_FILES) {
      const doc = await parseCached(f);
      parsed.set(f, { doc, passages: chunkFile(doc, f, cfg), lines: fs.readFileSync(f, 'utf8').split('\n') });
    }
  });

  it('every L1/L2 line range holds its text (each word of text occurs in lines startLine..endLine)', () => {
    let checked = 0;
    for (const [f, { passages, lines }] of parsed) {
      for (const p of passages.filter((x) => x.level > 0)) {
        const { startLine, endLine } = p.loc;
        assert.ok(startLine !== undefined && endLine !== undefined && startLine <= endLine, `${f} ${p.chunkPath}: range`);
        // The loaders drop inline Markdown markup (`code`, *emphasis*), so compare against the lines without it.
        const range = lines.slice(startLine - 1, endLine).join('\n').replace(/[`*_]/g, '');
        for (const w of words(p.text)) {
          assert.ok(range.includes(w), `${path.basename(f)} ${p.chunkPath} lines ${startLine}-${endLine} lack "${w}"`);
          checked++;
        }
      }
    }
    assert.ok(checked > 10_000);
  });

  it('keeps L2 sizes within bounds and merges fragments under minSize when a neighbour can take them', () => {
    for (const [f, { passages }] of parsed) {
      const l2 = passages.filter((p) => p.level === 2);
      for (const p of l2) {
        const table = p.text.includes(' | ');
        if (!table) assert.ok(p.text.length <= config.sizes.md.size + config.minSize, `${f} ${p.chunkPath}: ${p.text.length} chars`);
        if (p.text.length < config.minSize && !table) {
          const siblings = l2.filter((s) => s.parentId === p.parentId);
          const i = siblings.indexOf(p);
          for (const n of [siblings[i - 1], siblings[i + 1]]) {
            if (n && !n.text.includes(' | ')) assert.ok(n.text.length + p.text.length + 2 > config.sizes.md.size + config.minSize, `${f} ${p.chunkPath} could merge`);
          }
        }
      }
    }
  });

  it('never splits inside a sentence (every sentence of a block is whole in one passage)', () => {
    let sentences = 0;
    for (const [f, { doc, passages }] of parsed) {
      const texts = passages.filter((p) => p.level === 2).map((p) => p.text);
      for (const b of doc.blocks) {
        if (b.kind === 'heading' || b.kind === 'table' || b.kind === 'code') continue;
        // List items ("a) ...", "2. ...", "- ...") count as sentence boundaries too.
        const units = splitSentences(b.text, 'de').flatMap((s) => s.text.split(LIST_ITEM_BREAK));
        for (const u of units) {
          if (u.length > config.sizes.md.size) continue; // only over-long sentences may be cut
          assert.ok(
            texts.some((t) => t.includes(u)),
            `${path.basename(f)}: sentence split: "${u.slice(0, 80)}"`,
          );
          sentences++;
        }
      }
    }
    assert.ok(sentences > 1000);
  });

  it('builds the hierarchy: L0 root, L1 parents of L2, paths and orders', () => {
    for (const [f, { passages }] of parsed) {
      const byId = new Map(passages.map((p) => [p.id, p]));
      assert.equal(byId.size, passages.length, `${f}: ids unique`);
      const roots = passages.filter((p) => p.level === 0);
      assert.equal(roots.length, 1);
      assert.equal(roots[0].parentId, null);
      assert.equal(roots[0].chunkPath, 'doc');
      assert.ok(roots[0].text.length <= 1500 && roots[0].text.startsWith(roots[0].title));
      for (const p of passages) {
        if (p.level === 1) {
          assert.equal(byId.get(p.parentId ?? '')?.level, 0);
          assert.match(p.chunkPath, /^doc\/section-\d+$/);
          assert.ok(p.text.length <= 800);
        }
        if (p.level === 2) {
          const parent = byId.get(p.parentId ?? '');
          assert.equal(parent?.level, 1, `${f} ${p.chunkPath}`);
          assert.ok(p.chunkPath.startsWith(`${parent!.chunkPath}/chunk-`));
          assert.deepEqual(p.headingPath, parent!.headingPath);
          assert.equal(p.indexText, `${p.headingPath.join(' > ')}\n${p.text}`);
        }
      }
      // Orders are 0..n-1 within each parent.
      const groups = new Map<string, number[]>();
      for (const p of passages) if (p.parentId) groups.set(p.parentId, [...(groups.get(p.parentId) ?? []), p.order]);
      for (const orders of groups.values()) assert.deepEqual(orders, orders.map((_, i) => i));
    }
  });

  it('uses the law file headings as sections: § 3 BUrlG is one passage under its heading', () => {
    const f = MD_FILES.find((x) => x.endsWith('gesetze/burlg.md'))!;
    const { passages } = parsed.get(f)!;
    const p = passages.find((x) => x.level === 2 && x.headingPath.at(-1) === '§ 3 Dauer des Urlaubs');
    assert.ok(p, 'passage for § 3');
    assert.match(p.text, /mindestens 24 Werktage/);
    assert.equal(p.headingPath[0], 'Mindesturlaubsgesetz für Arbeitnehmer (BUrlG)');
    assert.equal(p.lang, 'de');
    assert.equal(p.path, 'workspace/gesetze/burlg.md');
  });

  it('detects the language per passage (German laws, English Cargo Book)', () => {
    for (const [f, { passages }] of parsed) {
      const l2 = passages.filter((p) => p.level === 2 && p.text.length > 200);
      const expected = f.includes('/gesetze/') || /\/(AGG|ArbZG|GG)\.md$/.test(f) ? 'de' : 'en';
      const wrong = l2.filter((p) => p.lang !== expected && !p.text.includes('|') && !/^[\s\S]*[{}=]/.test(p.text));
      assert.ok(wrong.length <= Math.max(1, l2.length * 0.05), `${f}: ${wrong.length} passages not ${expected}: ${wrong[0]?.text.slice(0, 80)}`);
    }
  });

  it('gives identical ids across runs, and unchanged passages keep their ids when a section is inserted', async () => {
    const f = MD_FILES.find((x) => x.endsWith('gesetze/burlg.md'))!;
    const { doc, passages } = parsed.get(f)!;
    const again = chunkFile(await parseFile(f, 'md'), f, cfg);
    assert.deepEqual(
      again.map((p) => p.id),
      passages.map((p) => p.id),
    );
    const original = fs.readFileSync(f, 'utf8');
    const edited = original.replace('## § 1 Urlaubsanspruch', '## § 0 Neu\n\nEin neuer Paragraph wurde eingefügt.\n\n## § 1 Urlaubsanspruch');
    assert.notEqual(edited, original);
    const editedDoc = await parseBytes(Buffer.from(edited), 'md', 'burlg.md');
    const after = chunkDocument(editedDoc, { path: 'workspace/gesetze/burlg.md', fileHash: 'h2' }, cfg, SEMANTIC);
    const afterIds = new Set(after.map((p) => p.id));
    const keptL2 = passages.filter((p) => p.level === 2 && afterIds.has(p.id));
    assert.equal(keptL2.length, passages.filter((p) => p.level === 2).length, 'every old L2 passage keeps its id');
    assert.ok(after.some((p) => p.text.includes('Ein neuer Paragraph')));
    // chunk paths after the insertion point moved, ids did not.
    const moved = after.find((p) => p.level === 2 && p.headingPath.at(-1) === '§ 1 Urlaubsanspruch')!;
    const before = passages.find((p) => p.level === 2 && p.headingPath.at(-1) === '§ 1 Urlaubsanspruch')!;
    assert.notEqual(moved.chunkPath, before.chunkPath);
    assert.equal(moved.id, before.id);
    assert.ok(doc.blocks.length < editedDoc.blocks.length);
  });
});
}

describe('chunkDocument on built documents', () => {
  it('semantic strategy breaks where the topic changes, structural packs up to the size', () => {
    const urlaub = [
      'Der Urlaub beträgt jährlich mindestens vierundzwanzig Werktage.',
      'Urlaub wird im laufenden Kalenderjahr gewährt und genommen.',
      'Eine Übertragung des Urlaubs auf das nächste Kalenderjahr ist nur bei dringenden Gründen statthaft.',
      'Der Urlaubsanspruch entsteht erstmals nach sechs Monaten.',
    ];
    const cargo = [
      'Cargo downloads crates from the registry and builds every dependency.',
      'The registry index lists every published crate version with its checksum.',
      'Cargo caches downloaded crates in the registry cache directory.',
      'A crate version can be yanked from the registry but never deleted.',
    ];
    const text = [...urlaub, ...cargo].join(' ');
    const doc = md([heading('Gemischt', 1, 1), para(text, 3)]);
    const structural = chunkDocument(doc, { path: 'a.md', fileHash: 'h' }, config).filter((p) => p.level === 2);
    assert.equal(structural.length, 1, 'fits one structural passage');
    const semantic = chunkDocument(doc, { path: 'a.md', fileHash: 'h' }, { ...config, strategy: 'semantic' }, SEMANTIC).filter((p) => p.level === 2);
    assert.equal(semantic.length, 2);
    assert.equal(semantic[0].text, urlaub.join(' '));
    assert.equal(semantic[1].text, cargo.join(' '));
    assert.equal(semantic[1].lang, 'en');
    assert.equal(semantic[0].lang, 'de');
  });

  const md = (blocks: Block[], title?: string): ParsedDocument => ({ format: 'md', title, blocks, metadata: {}, warnings: [] });
  const para = (text: string, startLine: number, endLine = startLine): Block => ({ kind: 'paragraph', text, loc: { startLine, endLine } });
  const heading = (text: string, level: number, line: number): Block => ({ kind: 'heading', text, level, loc: { startLine: line, endLine: line } });

  it('splits a long paragraph between sentences into passages under the size, with the overlap as metadata only', () => {
    // About 3.5 passages' worth of ~95-character sentences, whatever the configured size.
    const sentences = Array.from(
      { length: Math.ceil((config.sizes.md.size * 3.5) / 95) },
      (_, i) => `Satz ${i + 1} regelt nach § ${i + 1} Abs. 2 Nr. 3 z. B. die Frist bzw. ggf. den Anspruch des Arbeitnehmers.`,
    );
    const text = sentences.join(' ');
    const doc = md([heading('Titel', 1, 1), para(text, 3)]);
    const ps = chunkDocument(doc, { path: 'a.md', fileHash: 'h' }, config);
    const l2 = ps.filter((p) => p.level === 2);
    assert.ok(l2.length >= 3, `${l2.length} passages`);
    for (const p of l2) assert.ok(p.text.length <= config.sizes.md.size);
    // Every sentence is whole in exactly one passage: no duplication, no split (the abbreviations did not end sentences).
    for (const s of sentences) assert.equal(l2.filter((p) => p.text.includes(s)).length, 1, s);
    // The passages together are the paragraph (a merged short tail may be joined by a blank line).
    assert.equal(l2.map((p) => p.text).join(' ').replace(/\s+/g, ' '), text);
    assert.equal(l2[0].overlap, '');
    for (let i = 1; i < l2.length; i++) {
      assert.ok(l2[i].overlap.length > 0 && l2[i].overlap.length <= config.sizes.md.overlap);
      assert.ok(l2[i - 1].text.endsWith(l2[i].overlap), 'overlap is the previous tail');
      assert.ok(!l2[i].text.startsWith(l2[i].overlap), 'overlap not duplicated in text');
      assert.ok(!l2[i].indexText.includes(l2[i].overlap));
    }
  });

  it('does not modify the parsed document', () => {
    const doc = md([heading('Titel', 1, 1), para('Ein Satz. '.repeat(200).trim(), 3), heading('Nur', 2, 5)]);
    const before = JSON.stringify(doc);
    chunkDocument(doc, { path: 'a.md', fileHash: 'h' }, config);
    chunkDocument(doc, { path: 'a.md', fileHash: 'h' }, { ...config, strategy: 'semantic' }, SEMANTIC);
    chunkDocument(md([heading('A', 1, 1)]), { path: 'a.md', fileHash: 'h' }, config);
    assert.equal(JSON.stringify(doc), before);
  });

  it('the semantic strategy takes its text embedding from the caller (chunk/ does not import embed/)', () => {
    const doc = md([heading('Titel', 1, 1), para('Ein Satz. Noch ein Satz.', 3)]);
    assert.throws(() => chunkDocument(doc, { path: 'a.md', fileHash: 'h' }, { ...config, strategy: 'semantic' }), /embedText/);
    let calls = 0;
    const counted = { embedText: (t: string) => (calls++, embedBuiltin(t)) };
    const ps = chunkDocument(doc, { path: 'a.md', fileHash: 'h' }, { ...config, strategy: 'semantic' }, counted);
    assert.ok(calls > 0);
    assert.deepEqual(ps, chunkDocument(doc, { path: 'a.md', fileHash: 'h' }, { ...config, strategy: 'semantic' }, SEMANTIC));
  });

  it('indexes a document of headings only as text, and returns nothing for an empty one', () => {
    const ps = chunkDocument(md([heading('Folie 1: Projektplan', 1, 1), heading('Folie 2: Budget', 1, 3)]), { path: 'a.md', fileHash: 'h' }, config);
    const l2 = ps.filter((p) => p.level === 2);
    assert.equal(l2.length, 1);
    assert.match(l2[0].text, /Projektplan[\s\S]*Budget/);
    assert.deepEqual(chunkDocument(md([]), { path: 'b.md', fileHash: 'h' }, config), []);
  });

  it('cuts only a sentence that is longer than the size, at word boundaries', () => {
    // One sentence about 3.5 passages long, whatever the configured size.
    const long = Array.from({ length: Math.ceil((config.sizes.md.size * 3.5) / 7) }, (_, i) => `wort${i}`).join(' ') + '.';
    const ps = chunkDocument(md([para(long, 1)], 'T'), { path: 'a.md', fileHash: 'h' }, config).filter((p) => p.level === 2);
    assert.ok(ps.length >= 3);
    for (const p of ps) {
      assert.ok(p.text.length <= config.sizes.md.size);
      assert.match(p.text, /^wort\d+/);
    }
    assert.equal(ps.map((p) => p.text).join(' '), long);
  });

  it('merges a fragment under minSize with its neighbour in the same section, not across sections', () => {
    const big = 'Der Arbeitgeber hat die Arbeitszeit aufzuzeichnen und die Nachweise aufzubewahren. '.repeat(13).trim();
    const doc = md([heading('A', 2, 1), para(big, 2), para('Kurzer Satz.', 3), heading('B', 2, 4), para('Nur das.', 5)], 'T');
    const l2 = chunkDocument(doc, { path: 'a.md', fileHash: 'h' }, config).filter((p) => p.level === 2);
    const a = l2.filter((p) => p.headingPath.at(-1) === 'A');
    assert.equal(a.length, 1);
    assert.ok(a[0].text.endsWith('Kurzer Satz.'));
    assert.deepEqual(a[0].loc, { startLine: 2, endLine: 3 });
    const b = l2.filter((p) => p.headingPath.at(-1) === 'B');
    assert.equal(b.length, 1);
    assert.equal(b[0].text, 'Nur das.');
  });

  it('makes tables passages of their own and splits large tables by row groups with the header repeated', () => {
    const header = ['Paragraph', 'Inhalt', 'Frist'];
    const rows = [header, ...Array.from({ length: 60 }, (_, i) => [`§ ${i + 1}`, `Regelung Nummer ${i + 1} über den Urlaub`, `${i + 1} Tage`])];
    const table: Block = {
      kind: 'table',
      text: rows.map((r) => r.join(' | ')).join('\n'),
      rows,
      hasHeader: true,
      loc: { startLine: 3, endLine: 64 },
    };
    const doc = md([heading('Tabelle', 1, 1), para('Einleitung zur Tabelle mit einigen Worten.', 2), table, para('Nachwort.', 65)], 'T');
    const l2 = chunkDocument(doc, { path: 'a.md', fileHash: 'h' }, config).filter((p) => p.level === 2);
    const tableParts = l2.filter((p) => p.text.startsWith('Paragraph | Inhalt | Frist'));
    assert.ok(tableParts.length >= 2, `${tableParts.length} parts`);
    tableParts.forEach((p, i) => {
      assert.ok(p.text.length <= config.sizes.md.size);
      // The first part carries the lead-in text as context; later parts repeat the header instead.
      assert.equal(p.overlap, i === 0 ? 'Einleitung zur Tabelle mit einigen Worten.' : '');
      assert.ok(!p.text.includes('Einleitung'));
    });
    // Every data row appears exactly once.
    for (const r of rows.slice(1)) assert.equal(tableParts.filter((p) => p.text.includes(r.join(' | '))).length, 1);
    assert.ok(l2.some((p) => p.text.startsWith('Einleitung')));
  });

  it('records pages for PDF passages and offsets + verbatim quote for DOCX passages', () => {
    const pdf: ParsedDocument = {
      format: 'pdf',
      blocks: [
        { kind: 'paragraph', text: 'Erste Seite mit einem längeren Absatz über die Ruhezeit der Arbeitnehmer.', loc: { page: 1 } },
        { kind: 'paragraph', text: 'Zweite Seite setzt den Absatz über die Ruhezeit fort und endet hier.', loc: { page: 2 } },
      ],
      metadata: {},
      warnings: [],
    };
    const pp = chunkDocument(pdf, { path: 'x.pdf', fileHash: 'h' }, config).filter((p) => p.level === 2);
    assert.equal(pp.length, 1);
    assert.deepEqual(pp[0].loc, { page: 1, pageEnd: 2 });
    const text = 'Der Arbeitgeber ist verpflichtet, die Arbeitszeit aufzuzeichnen. '.repeat(20).trim();
    const docx: ParsedDocument = {
      format: 'docx',
      blocks: [{ kind: 'paragraph', text, loc: { startOffset: 100, endOffset: 100 + text.length } }],
      metadata: {},
      warnings: [],
    };
    const dp = chunkDocument(docx, { path: 'x.docx', fileHash: 'h' }, config).filter((p) => p.level === 2);
    assert.ok(dp.length >= 2);
    for (const p of dp) {
      assert.ok(p.loc.quote && p.loc.quote.length <= 200 && p.text.includes(p.loc.quote));
      assert.equal(text.slice(p.loc.startOffset! - 100, p.loc.endOffset! - 100), p.text);
    }
  });
});

describe('chunkDocument on real PDF and DOCX files', function () {
  needsShared('eval/realdocs');
  this.timeout(60_000);

  it('PDF passages cite the pages that hold their text', async () => {
    const f = path.join(EVAL, 'realdocs/pdf/ArbZG.pdf');
    const doc = await parseFile(f, 'pdf');
    const { extractText, getDocumentProxy } = await import('unpdf');
    const pages = (await extractText(await getDocumentProxy(new Uint8Array(fs.readFileSync(f))), { mergePages: false })).text as string[];
    const flat = pages.map((p) => collapse(p).replace(/-\s/g, ''));
    const l2 = chunkFile(doc, f).filter((p) => p.level === 2);
    assert.ok(l2.length > 10);
    for (const p of l2) {
      assert.ok(p.loc.page !== undefined);
      const span = flat.slice(p.loc.page! - 1, p.loc.pageEnd ?? p.loc.page).join(' ');
      const missing = words(p.text).filter((w) => !span.includes(w));
      assert.ok(missing.length <= words(p.text).length * 0.02, `${p.chunkPath} pages ${p.loc.page}-${p.loc.pageEnd}: missing ${missing.slice(0, 5)}`);
    }
    assert.ok(l2.some((p) => p.loc.pageEnd !== undefined), 'some passage spans a page break');
  });

  it('XLSX table passages (split by row groups) carry offsets that hold them and a verbatim row quote', async () => {
    const f = path.join(EVAL, 'realdocs/xlsx/CVLKRA-KYC_Download_File_Structure_V3.1.xlsx');
    const doc = await parseFile(f, 'xlsx');
    // For XLSX the extracted text is the block texts joined by blank lines (see ingest/extracted.ts).
    const extracted = doc.blocks.map((b) => b.text).join('\n\n');
    const flat = collapse(extracted);
    const l2 = chunkFile(doc, f).filter((p) => p.level === 2);
    const tableParts = l2.filter((p) => p.text.includes(' | '));
    assert.ok(tableParts.length > doc.blocks.filter((b) => b.kind === 'table').length, 'some table was split');
    for (const p of l2) {
      const q = p.loc.quote!;
      assert.ok(q && flat.includes(q), `${p.chunkPath}: quote not verbatim: ${q}`);
      assert.ok(q.includes('|') || !p.text.includes('\n'), `${p.chunkPath}: quote is a whole row: ${q}`);
      const span = extracted.slice(p.loc.startOffset, p.loc.endOffset);
      for (const w of words(p.text)) assert.ok(span.includes(w), `${p.chunkPath}: offsets lack ${w}`);
    }
  });

  it('DOCX passages carry a verbatim quote found in the extracted text', async () => {
    const f = path.join(EVAL, 'realdocs/docx/ArbZG.docx');
    const doc = await parseFile(f, 'docx');
    const mammoth = await import('mammoth');
    const raw = collapse((await mammoth.extractRawText({ buffer: fs.readFileSync(f) })).value);
    const ps = chunkFile(doc, f);
    for (const p of ps) {
      assert.ok(p.loc.quote, `${p.chunkPath} has a quote`);
      assert.ok(p.loc.quote.length <= 200);
      assert.ok(raw.includes(p.loc.quote), `${p.chunkPath} quote not verbatim: ${p.loc.quote}`);
      if (p.level === 2) assert.ok(p.loc.startOffset !== undefined && p.loc.endOffset! > p.loc.startOffset);
    }
  });
});
