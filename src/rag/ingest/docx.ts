// DOCX loader on mammoth: structure (headings from paragraph styles, lists, tables) from convertToHtml; locations as
// character offsets into mammoth.extractRawText output plus a verbatim quote. Tracked deletions are not read by mammoth,
// and text boxes in mc:AlternateContent come out once.
import mammoth from 'mammoth';
import { parseHTML } from 'linkedom';
import { LoadError, type Block, type ParsedDocument } from '../types';
import { coreTitle, openZip } from './officeZip';
import { cleanInline, hasWords, normalizeUnicode, quoteOf } from './normalize';
import { TextLocator } from './textLocator';

/** Extra style mappings on top of mammoth's defaults (Heading 1–6 → h1–h6). */
const STYLE_MAP = [
  "p[style-name='Title'] => h1:fresh",
  "p[style-name='Subtitle'] => h2:fresh",
  "p[style-name='Heading 0'] => h1:fresh",
  // Deleted text is never indexed (mammoth skips w:del already; this keeps strike-through runs as plain text).
];

interface DomElement {
  tagName: string;
  textContent: string | null;
  children: ArrayLike<DomElement>;
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
}

function text(el: DomElement): string {
  return cleanInline(el.textContent ?? '');
}

function rowsOf(table: DomElement): string[][] {
  const rows: string[][] = [];
  for (const tr of Array.from(table.querySelectorAll('tr'))) {
    const cells = Array.from(tr.children).filter((c) => c.tagName === 'TD' || c.tagName === 'TH');
    const row = cells.map(text);
    if (row.some((c) => c.length > 0)) rows.push(row);
  }
  return rows;
}

/** Turns mammoth's HTML into blocks (document order; footnotes/endnotes come last as mammoth emits them). */
function htmlToBlocks(html: string): Block[] {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  const blocks: Block[] = [];
  const visit = (el: DomElement): void => {
    const tag = el.tagName;
    if (/^H[1-6]$/.test(tag)) {
      blocks.push({ kind: 'heading', level: Number(tag[1]), text: text(el), loc: {} });
    } else if (tag === 'P') {
      blocks.push({ kind: 'paragraph', text: text(el), loc: {} });
    } else if (tag === 'UL' || tag === 'OL') {
      const items = Array.from(el.children).filter((c) => c.tagName === 'LI');
      const lines = items.map((li) => text(li)).filter((t) => t.length > 0);
      blocks.push({ kind: 'list', text: lines.join('\n'), loc: {} });
    } else if (tag === 'TABLE') {
      const rows = rowsOf(el);
      const hasHeader = el.querySelectorAll('th').length > 0;
      blocks.push({ kind: 'table', text: rows.map((r) => r.join(' | ')).join('\n'), rows, hasHeader, loc: {} });
    } else {
      for (const c of Array.from(el.children)) visit(c);
    }
  };
  for (const c of Array.from((document.body as unknown as DomElement).children)) visit(c);
  return blocks.filter((b) => hasWords(b.text));
}

/**
 * Makes mammoth's HTML read like its raw text: note reference markers ("[1]") and back links ("↑") go, line breaks and
 * paragraph ends inside cells become spaces.
 */
function prepareHtml(html: string): string {
  return html
    .replace(/<sup><a href="#(footnote|endnote)-\d+" id="\1-ref-\d+">\[\d+\]<\/a><\/sup>/g, '')
    .replace(/\s*<a href="#(footnote|endnote)-ref-\d+">↑<\/a>/g, '')
    .replace(/<br\s*\/?>/g, '\n')
    .replace(/<\/(p|h[1-6]|li|td|th)>/g, '$& ');
}

export async function parseDocx(bytes: Uint8Array): Promise<ParsedDocument> {
  // Every part is unpacked once within ZIP_LIMITS before mammoth sees the package: a decompression bomb is refused here.
  const core = openZip(bytes, 'DOCX', (n) => n === 'docProps/core.xml');
  let title: string | undefined;
  try {
    title = coreTitle(core);
  } catch {
    title = undefined;
  }
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  let html: string;
  let raw: string;
  try {
    const converted = await mammoth.convertToHtml({ buffer }, { styleMap: STYLE_MAP, includeDefaultStyleMap: true });
    html = converted.value;
    raw = normalizeUnicode((await mammoth.extractRawText({ buffer })).value);
  } catch (err) {
    const message = cleanInline((err as Error).message ?? String(err));
    throw new LoadError('corrupt', `cannot read DOCX: ${message}. The file may be truncated or damaged; re-save it in Word`);
  }
  const blocks = htmlToBlocks(normalizeUnicode(prepareHtml(html)));
  const locator = new TextLocator(raw);
  for (const b of blocks) {
    let found: { start: number; end: number } | null;
    if (b.kind === 'table' && b.rows) {
      const cells = b.rows.flat().filter((c) => c.length > 0);
      found = locator.locate(cells[0] ?? '', cells[cells.length - 1] ?? '');
    } else if (b.kind === 'list') {
      const lines = b.text.split('\n');
      found = locator.locate(lines[0], lines[lines.length - 1]);
    } else {
      found = locator.locate(b.text);
    }
    b.loc = found ? { startOffset: found.start, endOffset: found.end, quote: quoteOf(raw.slice(found.start, found.end)) } : { quote: quoteOf(b.text) };
  }
  title ??= blocks.find((b) => b.kind === 'heading' && b.level === 1)?.text;
  return { format: 'docx', title, blocks, metadata: { extractedTextLength: String(raw.length) }, warnings: [] };
}
