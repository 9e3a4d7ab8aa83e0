// HTML loader: charset by BOM, then the declaration (with a fallback when it lies), main content by Mozilla
// Readability on a linkedom DOM (the whole body, minus chrome, when Readability finds nothing), headings, lists,
// tables and <pre> kept as blocks. Locations: 1-based line ranges of the source HTML where the block's text can be
// found again in order (see htmlLines.ts); otherwise only a quote.
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import type { Block, ParsedDocument } from '../types';
import { decodeText, sniffBom } from './decode';
import { HtmlLineLocator } from './htmlLines';
import { cleanInline, collapseWhitespace, collapseWithinLines, hasWords, normalizeUnicode, quoteOf } from './normalize';

/** The charset declared in the first bytes (meta charset or http-equiv content type). */
export function declaredCharset(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 4096)).toString('latin1');
  const m = /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head);
  return m ? m[1] : null;
}

const BLOCK_TAGS = new Set([
  'ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BODY', 'CENTER', 'DD', 'DETAILS', 'DIALOG', 'DIV', 'DL', 'DT', 'FIELDSET',
  'FIGCAPTION', 'FIGURE', 'FOOTER', 'FORM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER', 'HR', 'LI', 'MAIN', 'NAV', 'OL',
  'P', 'PRE', 'SECTION', 'SUMMARY', 'TABLE', 'UL', 'TBODY', 'THEAD', 'TFOOT', 'TR', 'TD', 'TH', 'CAPTION',
]);
const SKIP_TAGS = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'IFRAME', 'OBJECT', 'BUTTON', 'SELECT', 'TEXTAREA', 'HEAD']);
/** Site chrome removed when falling back to the whole body. */
const CHROME_SELECTOR = 'nav, header, footer, aside, [role=navigation], [role=banner], [role=contentinfo], form, script, style, noscript';

interface DomNode {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<DomNode>;
}
interface DomElement extends DomNode {
  tagName: string;
  children: ArrayLike<DomElement>;
  querySelectorAll(selector: string): ArrayLike<DomElement>;
  remove(): void;
}

function textOf(node: DomNode): string {
  return cleanInline(node.textContent ?? '');
}

/** Text with block boundaries kept as line breaks (for <pre> and list items). */
function preText(node: DomNode): string {
  return normalizeUnicode(node.textContent ?? '').replace(/\r\n?/g, '\n').replace(/^\n+|\s+$/g, '');
}

function tableRows(table: DomElement): string[][] {
  const rows: string[][] = [];
  for (const tr of Array.from(table.querySelectorAll('tr'))) {
    const row = Array.from(tr.children)
      .filter((c) => c.tagName === 'TD' || c.tagName === 'TH')
      .map(textOf);
    if (row.some((c) => c.length > 0)) rows.push(row);
  }
  return rows;
}

/** Mostly lines of ordinary words with few code symbols. */
export function looksLikeProse(text: string): boolean {
  const lines = text.split('\n').filter((l) => l.trim().length > 0);
  if (lines.length === 0) return false;
  const words = lines.reduce((n, l) => n + (l.match(/\p{L}{2,}/gu)?.length ?? 0), 0);
  const symbols = (text.match(/[{};=<>$\\|]/g) ?? []).length;
  return words / lines.length >= 5 && symbols / text.replace(/\s/g, '').length < 0.01;
}

/** What makes list items sections rather than entries. */
const STRUCTURE_IN_ITEM = 'h1, h2, h3, h4, h5, h6, pre, table';

/** Walks a DOM subtree into blocks; inline runs between block elements become paragraphs. */
function domToBlocks(root: DomElement): Block[] {
  const blocks: Block[] = [];
  let inline = '';
  const flush = (): void => {
    const text = cleanInline(inline);
    if (hasWords(text)) blocks.push({ kind: 'paragraph', text, loc: {} });
    inline = '';
  };
  const visit = (node: DomNode): void => {
    if (node.nodeType === 3) {
      inline += node.textContent ?? '';
      return;
    }
    if (node.nodeType !== 1) return;
    const el = node as DomElement;
    const tag = el.tagName.toUpperCase();
    if (SKIP_TAGS.has(tag)) return;
    if (tag === 'BR') {
      inline += '\n';
      return;
    }
    if (!BLOCK_TAGS.has(tag)) {
      for (const c of Array.from(el.childNodes)) visit(c);
      return;
    }
    flush();
    if (/^H[1-6]$/.test(tag)) {
      const text = textOf(el);
      if (hasWords(text)) blocks.push({ kind: 'heading', level: Number(tag[1]), text, loc: {} });
    } else if (tag === 'UL' || tag === 'OL') {
      const items = Array.from(el.children).filter((c) => c.tagName.toUpperCase() === 'LI');
      if (items.some((li) => li.querySelector(STRUCTURE_IN_ITEM) !== null)) {
        // Items that hold headings, code or tables are sections, not list entries (a licence page: one entry per
        // licence with its heading and text): their content becomes blocks of its own.
        for (const li of items) {
          visit(li);
          flush();
        }
        return;
      }
      const text = items.map(textOf).filter(hasWords).join('\n');
      if (hasWords(text)) blocks.push({ kind: 'list', text, loc: {} });
    } else if (tag === 'TABLE') {
      const rows = tableRows(el);
      if (rows.length > 0) {
        const hasHeader = el.querySelectorAll('th').length > 0;
        blocks.push({ kind: 'table', text: rows.map((r) => r.join(' | ')).join('\n'), rows, hasHeader, loc: {} });
      }
    } else if (tag === 'PRE') {
      const text = preText(el);
      // Fixed-width prose (RFC-style drafts, plain-text mails) is text, not code.
      if (hasWords(text)) {
        if (looksLikeProse(text)) blocks.push({ kind: 'paragraph', text: collapseWithinLines(text), loc: {} });
        else blocks.push({ kind: 'code', text, loc: {} });
      }
    } else {
      for (const c of Array.from(el.childNodes)) visit(c);
      flush();
    }
  };
  visit(root);
  flush();
  return blocks;
}

/**
 * linkedom leaves `documentElement` null for input that does not start like markup (text, binary noise), and takes the
 * first element for it when the markup has no <html> (a fragment such as `<script src=…></script>`); its `title`,
 * `head` and `body` getters then throw a TypeError (also once that element is removed as chrome). Such input is parsed
 * as the body of an empty page instead.
 */
function parseDocument(source: string): ReturnType<typeof parseHTML>['document'] {
  const { document } = parseHTML(source);
  if (document.documentElement?.localName === 'html') return document;
  return parseHTML(`<!doctype html><html><head></head><body>${source}</body></html>`).document;
}

/**
 * Pages longer than this skip Readability and are indexed as their whole body minus chrome. Readability (made for one
 * article of a web page) clones and rescores the whole DOM: on an 8 MB generated manual (Node.js's api/all.html) it
 * took 8 of 16 s and raised the parse's peak from ~370 to ~790 MB. Pages this large are manuals, references and
 * generated docs, whose body is the content.
 */
export const READABILITY_MAX_CHARS = 1_000_000;

/** The content's blocks and title; the DOMs are gone when it returns (a large page's DOM is most of a parse's memory). */
function contentBlocks(source: string, warnings: string[]): { blocks: Block[]; title: string | undefined } {
  // Readability changes the DOM it reads, so it gets its own copy (a large page has one DOM only).
  const large = source.length > READABILITY_MAX_CHARS;
  const forReadability = parseDocument(source);
  const pageTitle = collapseWhitespace(forReadability.title ?? '') || undefined;
  let blocks: Block[] = [];
  let title = pageTitle;
  if (!large) {
    try {
      const article = new Readability(forReadability as unknown as Document, { charThreshold: 200 }).parse();
      if (article?.content && hasWords(article.textContent ?? '')) {
        const { document } = parseHTML(`<!doctype html><html><body>${article.content}</body></html>`);
        blocks = domToBlocks(document.body as unknown as DomElement);
        title = collapseWhitespace(article.title ?? '') || pageTitle;
      }
    } catch (err) {
      warnings.push(`main-content detection failed (${(err as Error).message}); indexed the whole page`);
    }
  }
  if (blocks.length === 0) {
    const document = large ? forReadability : parseDocument(source);
    for (const el of Array.from((document as unknown as DomElement).querySelectorAll(CHROME_SELECTOR))) el.remove();
    const body = (document.body ?? document.documentElement) as unknown as DomElement | null;
    if (body) blocks = domToBlocks(body);
  }
  return { blocks, title };
}

export function parseHtml(bytes: Uint8Array, _fileName?: string): ParsedDocument {
  const declared = sniffBom(bytes) ? null : declaredCharset(bytes);
  const decoded = decodeText(bytes, declared);
  const source = decoded.text.replace(/^\uFEFF/, '');
  const warnings = [...decoded.warnings];

  const { blocks, title } = contentBlocks(source, warnings);
  // Keep the page title searchable when Readability dropped the <h1>.
  if (title && !blocks.some((b) => b.kind === 'heading' && b.text === title)) {
    blocks.unshift({ kind: 'heading', level: 1, text: normalizeUnicode(title), loc: {} });
  }

  const entityDoc = parseHTML('<!doctype html><html><body><div></div></body></html>').document;
  const entityCache = new Map<string, string>();
  const decodeEntity = (entity: string): string => {
    let value = entityCache.get(entity);
    if (value === undefined) {
      const div = entityDoc.createElement('div');
      div.innerHTML = entity;
      value = div.textContent ?? '';
      entityCache.set(entity, value);
    }
    return value;
  };
  const locator = new HtmlLineLocator(normalizeUnicode(source), decodeEntity);
  for (const b of blocks) {
    const range = locator.locate(b.text);
    b.loc = range ? { ...range, quote: quoteOf(b.text) } : { quote: quoteOf(b.text) };
  }
  return { format: 'html', title, blocks, metadata: { encoding: decoded.encoding }, warnings };
}
