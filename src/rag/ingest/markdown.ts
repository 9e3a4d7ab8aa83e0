// Markdown loader: markdown-it block tokens carry 0-based [start, end) line maps, which become 1-based line ranges
// of the file as stored. Front matter lines are blanked before parsing so numbering is unchanged.
import MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';
import type { Block, ParsedDocument } from '../types';
import { decodeText } from './decode';
import { readFrontMatter } from './frontMatter';
import { splitLines, trimRange } from './lines';
import { collapseWhitespace, collapseWithinLines, hasWords, normalizeUnicode } from './normalize';

let parser: MarkdownIt | null = null;
function markdownParser(): MarkdownIt {
  // html: true so raw HTML blocks are recognised as such (their tags are stripped below) instead of becoming text.
  parser ??= new MarkdownIt('default', { html: true, linkify: false, typographer: false });
  return parser;
}

/** Pandoc heading attributes such as `{#anchor .class}` at the end of a heading. */
const HEADING_ATTRS = /\s*\{[#.][^}]*\}\s*$/;

/**
 * Plain text of an inline token: text, code and image alt text; soft breaks become line breaks. Pieces from different
 * tokens that meet word-to-word ("`derive`s") get a space, so every word of the text occurs in the source lines.
 */
function inlineText(token: Token | undefined): string {
  if (!token || !token.children) return token?.content ?? '';
  let out = '';
  const append = (piece: string): void => {
    if (piece && /[\p{L}\p{N}]$/u.test(out) && /^[\p{L}\p{N}]/u.test(piece)) out += ' ';
    out += piece;
  };
  for (const child of token.children) {
    switch (child.type) {
      case 'text':
      case 'code_inline':
        append(child.content);
        break;
      case 'softbreak':
      case 'hardbreak':
        out += '\n';
        break;
      case 'image':
        append(inlineText(child));
        break;
      default:
        break;
    }
  }
  return out;
}

/**
 * Text of a paragraph, one text line per source line; pandoc definition-list markers (`:   definition`) are joined to
 * their term.
 */
function paragraphText(raw: string): string {
  return collapseWithinLines(raw.replace(/\n:[ \t]+/g, ': ').replace(/^:[ \t]+/, ''));
}

function stripHtml(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"');
}

/** Index of the token closing the one opened at `open` (same nesting level). */
function closingIndex(tokens: Token[], open: number): number {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    depth += tokens[i].nesting;
    if (depth === 0) return i;
  }
  return tokens.length - 1;
}

export function parseMarkdownText(text: string, warnings: string[] = []): ParsedDocument {
  const source = normalizeUnicode(text.replace(/^\uFEFF/, ''));
  const lines = splitLines(source);
  const fm = readFrontMatter(lines);
  warnings.push(...fm.warnings);
  // Blank the front matter (keeps line numbers) so it never becomes body text.
  const body = fm.lineCount > 0 ? lines.map((l, i) => (i < fm.lineCount ? '' : l)).join('\n') : source;
  const tokens = markdownParser().parse(body, {});
  const blocks: Block[] = [];

  const push = (block: Omit<Block, 'loc'>, map: [number, number] | null | undefined): void => {
    if (!map || !hasWords(block.text)) return;
    const range = trimRange(lines, map[0] + 1, map[1]);
    if (!range) return;
    blocks.push({ ...block, loc: { startLine: range.startLine, endLine: range.endLine } });
  };

  const listItemText = (from: number, to: number, ordered: boolean): string => {
    const parts: string[] = [];
    for (let j = from; j <= to; j++) {
      const t = tokens[j];
      if (t.type === 'inline') parts.push(paragraphText(inlineText(t)));
      else if (t.type === 'fence' || t.type === 'code_block') parts.push(t.content.trim());
    }
    const item = tokens[from];
    const marker = ordered && item.info ? `${item.info}${item.markup || '.'} ` : '';
    return marker + parts.filter((p) => p).join('\n');
  };

  let i = 0;
  while (i < tokens.length) {
    const t = tokens[i];
    switch (t.type) {
      case 'heading_open': {
        const level = Number(t.tag.slice(1));
        const textValue = collapseWhitespace(inlineText(tokens[i + 1]).replace(HEADING_ATTRS, ''));
        push({ kind: 'heading', level, text: textValue }, t.map);
        i = closingIndex(tokens, i) + 1;
        break;
      }
      case 'paragraph_open': {
        push({ kind: 'paragraph', text: paragraphText(inlineText(tokens[i + 1])) }, t.map);
        i = closingIndex(tokens, i) + 1;
        break;
      }
      case 'bullet_list_open':
      case 'ordered_list_open': {
        const close = closingIndex(tokens, i);
        const ordered = t.type === 'ordered_list_open';
        // A loose list (items separated by blank lines, as in the law files) gives one block per item, so each
        // numbered clause keeps its own line range; a tight list stays one block.
        const items: Array<[number, number]> = [];
        for (let j = i + 1; j < close; j++) {
          if (tokens[j].type === 'list_item_open' && tokens[j].level === t.level + 1) {
            const end = closingIndex(tokens, j);
            items.push([j, end]);
            j = end;
          }
        }
        const loose = tokens.slice(i, close).some((x) => x.type === 'paragraph_open' && !x.hidden);
        if (loose) {
          for (const [from, to] of items) push({ kind: 'list', text: listItemText(from, to, ordered) }, tokens[from].map);
        } else {
          push({ kind: 'list', text: items.map(([from, to]) => listItemText(from, to, ordered)).join('\n') }, t.map);
        }
        i = close + 1;
        break;
      }
      case 'table_open': {
        const close = closingIndex(tokens, i);
        const rows: string[][] = [];
        let row: string[] | null = null;
        let hasHeader = false;
        for (let j = i + 1; j < close; j++) {
          const x = tokens[j];
          if (x.type === 'thead_open') hasHeader = true;
          if (x.type === 'tr_open') row = [];
          else if (x.type === 'tr_close' && row) {
            rows.push(row);
            row = null;
          } else if (x.type === 'inline' && row) row.push(collapseWhitespace(inlineText(x)));
        }
        push({ kind: 'table', text: rows.map((r) => r.join(' | ')).join('\n'), rows, hasHeader }, t.map);
        i = close + 1;
        break;
      }
      case 'fence':
      case 'code_block': {
        const text = t.content.replace(/^([ \t]*\n)+/, '').replace(/\s+$/, '');
        let map = t.map;
        // A closed fence: the range is the code lines between the fences (one text line per source line).
        if (map && t.type === 'fence' && map[1] - map[0] >= 2 && /^\s*(`{3,}|~{3,})\s*$/.test(lines[map[1] - 1] ?? '')) {
          map = [map[0] + 1, map[1] - 1];
        }
        push({ kind: 'code', text }, map);
        i++;
        break;
      }
      case 'html_block': {
        push({ kind: 'paragraph', text: collapseWhitespace(stripHtml(t.content)) }, t.map);
        i++;
        break;
      }
      default:
        // blockquote_open and similar containers: descend into their children.
        i++;
    }
  }

  const firstH1 = blocks.find((b) => b.kind === 'heading' && b.level === 1)?.text;
  const metadata: Record<string, string> = { ...fm.metadata };
  return { format: 'md', title: fm.title ?? firstH1, blocks, metadata, warnings };
}

export function parseMarkdown(bytes: Uint8Array): ParsedDocument {
  const decoded = decodeText(bytes);
  return parseMarkdownText(decoded.text, [...decoded.warnings]);
}
