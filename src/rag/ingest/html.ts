// HTML loader: charset by BOM, then the declaration (with a fallback when it lies), main content by Mozilla
// Readability on a linkedom DOM (the whole body, minus chrome, when Readability finds nothing or the page is large),
// headings, lists, tables and <pre> kept as blocks, read from htmlparser2's light DOM (about a third of linkedom's
// memory). Locations: 1-based line ranges of the source HTML where the block's text can be found again in order (see
// htmlLines.ts); otherwise only a quote.
import { Readability } from '@mozilla/readability';
import { DomUtils, parseDocument as parseLight } from 'htmlparser2';
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
const SKIP_TAGS = new Set(['SCRIPT', 'STYLE', 'TITLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'IFRAME', 'OBJECT', 'BUTTON', 'SELECT', 'TEXTAREA', 'HEAD']);
const CHROME_TAGS = new Set(['nav', 'header', 'footer', 'aside', 'form', 'script', 'style', 'noscript']);
const CHROME_ROLES = new Set(['navigation', 'banner', 'contentinfo']);

type LightDocument = ReturnType<typeof parseLight>;
type LightNode = LightDocument['children'][number];
type LightElement = Extract<LightNode, { name: string; attribs: Record<string, string> }>;

const isElement = (n: LightNode): n is LightElement => DomUtils.isTag(n);

function textOf(node: LightNode): string {
  return cleanInline(DomUtils.textContent(node));
}

/** Text with block boundaries kept as line breaks (for <pre> and list items). */
function preText(node: LightNode): string {
  return normalizeUnicode(DomUtils.textContent(node)).replace(/\r\n?/g, '\n').replace(/^\n+|\s+$/g, '');
}

/** The descendants of `node` whose tag is one of `names` (lower case), in document order. */
function descendants(node: LightElement, names: readonly string[]): LightElement[] {
  return DomUtils.findAll((e) => names.includes(e.name.toLowerCase()), node.children);
}

/** Whether `node` has a descendant whose tag is one of `names` (stops at the first). */
function contains(node: LightElement, names: readonly string[]): boolean {
  return DomUtils.findOne((e) => names.includes(e.name.toLowerCase()), node.children) !== null;
}

function tableRows(table: LightElement): string[][] {
  const rows: string[][] = [];
  for (const tr of descendants(table, ['tr'])) {
    const row = tr.children.filter((c): c is LightElement => isElement(c) && (c.name.toLowerCase() === 'td' || c.name.toLowerCase() === 'th')).map(textOf);
    if (row.some((c) => c.length > 0)) rows.push(row);
  }
  return rows;
}

/** Site chrome removed when falling back to the whole body (elements by tag, or by ARIA role). */
function isChrome(e: LightElement): boolean {
  return CHROME_TAGS.has(e.name.toLowerCase()) || CHROME_ROLES.has((e.attribs.role ?? '').toLowerCase());
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
const STRUCTURE_IN_ITEM = ['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'table'];

/** Walks DOM nodes into blocks; inline runs between block elements become paragraphs. */
function domToBlocks(roots: readonly LightNode[]): Block[] {
  const blocks: Block[] = [];
  let inline = '';
  const flush = (): void => {
    const text = cleanInline(inline);
    if (hasWords(text)) blocks.push({ kind: 'paragraph', text, loc: {} });
    inline = '';
  };
  const visitAll = (nodes: readonly LightNode[]): void => {
    for (const c of nodes) visit(c);
  };
  const visit = (node: LightNode): void => {
    if (DomUtils.isText(node)) {
      inline += node.data;
      return;
    }
    if (!isElement(node)) {
      if (DomUtils.hasChildren(node)) visitAll(node.children);
      return;
    }
    const tag = node.name.toUpperCase();
    if (SKIP_TAGS.has(tag)) return;
    if (tag === 'BR') {
      inline += '\n';
      return;
    }
    if (!BLOCK_TAGS.has(tag)) {
      visitAll(node.children);
      return;
    }
    flush();
    if (/^H[1-6]$/.test(tag)) {
      const text = textOf(node);
      if (hasWords(text)) blocks.push({ kind: 'heading', level: Number(tag[1]), text, loc: {} });
    } else if (tag === 'UL' || tag === 'OL') {
      const items = node.children.filter((c): c is LightElement => isElement(c) && c.name.toLowerCase() === 'li');
      if (items.some((li) => contains(li, STRUCTURE_IN_ITEM))) {
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
      const rows = tableRows(node);
      if (rows.length > 0) {
        const hasHeader = contains(node, ['th']);
        blocks.push({ kind: 'table', text: rows.map((r) => r.join(' | ')).join('\n'), rows, hasHeader, loc: {} });
      }
    } else if (tag === 'PRE') {
      const text = preText(node);
      // Fixed-width prose (RFC-style drafts, plain-text mails) is text, not code.
      if (hasWords(text)) {
        if (looksLikeProse(text)) blocks.push({ kind: 'paragraph', text: collapseWithinLines(text), loc: {} });
        else blocks.push({ kind: 'code', text, loc: {} });
      }
    } else {
      visitAll(node.children);
      flush();
    }
  };
  visitAll(roots);
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
 * article of a web page) clones and rescores the whole DOM: on a multi-megabyte generated manual (Node.js's
 * api/all.html) it took half of the parse and doubled its peak memory. Pages this large are manuals, references and
 * generated docs, whose body is the content.
 */
export const READABILITY_MAX_CHARS = 1_000_000;

/** The page's <title>, from the light DOM. */
function lightTitle(doc: LightDocument): string | undefined {
  const t = DomUtils.findOne((e) => e.name.toLowerCase() === 'title', doc.children);
  return t ? collapseWhitespace(DomUtils.textContent(t)) || undefined : undefined;
}

/** The blocks of the whole page minus its chrome (and <head>, skipped like scripts). */
function wholePageBlocks(doc: LightDocument): Block[] {
  for (const e of DomUtils.findAll(isChrome, doc.children)) DomUtils.removeElement(e);
  const body = DomUtils.findOne((e) => e.name.toLowerCase() === 'body', doc.children);
  return domToBlocks(body ? body.children : doc.children);
}

/** The content's blocks and title; the DOMs are gone when it returns (a large page's DOM is most of a parse's memory). */
function contentBlocks(source: string, warnings: string[]): { blocks: Block[]; title: string | undefined } {
  if (source.length > READABILITY_MAX_CHARS) {
    const doc = parseLight(source);
    return { title: lightTitle(doc), blocks: wholePageBlocks(doc) };
  }
  const forReadability = parseDocument(source);
  const pageTitle = collapseWhitespace(forReadability.title ?? '') || undefined;
  try {
    const article = new Readability(forReadability as unknown as Document, { charThreshold: 200 }).parse();
    if (article?.content && hasWords(article.textContent ?? '')) {
      const blocks = domToBlocks(parseLight(article.content).children);
      if (blocks.length > 0) return { blocks, title: collapseWhitespace(article.title ?? '') || pageTitle };
    }
  } catch (err) {
    warnings.push(`main-content detection failed (${(err as Error).message}); indexed the whole page`);
  }
  return { blocks: wholePageBlocks(parseLight(source)), title: pageTitle };
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
