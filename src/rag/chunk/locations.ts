// Source locations of passages: a passage's location is the union of its pieces' locations, so the range
// always holds the passage's text (line ranges for text formats, pages for PDF, offsets + quote for Office files).
import { FORMATS } from '../formats';
import type { Block, DocFormat, SourceLocation } from '../types';

export const MAX_QUOTE_CHARS = 200;

/** Newline positions of a text, kept per text: a block cut into many parts asks for each part's lines. */
const newlineCache = new Map<string, Int32Array>();

function newlinesOf(text: string): Int32Array {
  let nl = newlineCache.get(text);
  if (!nl) {
    const at: number[] = [];
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) at.push(i);
    nl = Int32Array.from(at);
    // Only the latest few texts (one block at a time is cut); short texts are cheap to count again.
    if (newlineCache.size >= 8) newlineCache.clear();
    newlineCache.set(text, nl);
  }
  return nl;
}

/** Newlines in text[0, end). */
function countNewlines(text: string, end: number): number {
  const nl = newlinesOf(text);
  let lo = 0;
  let hi = nl.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (nl[mid] < end) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Location of the part [start, end) of a block's text. Lines and offsets are narrowed only when the block's text
 * provably maps onto its range (one text line per source line, or text length = offset span); otherwise the part
 * keeps the whole block's range, which still holds it.
 */
export function sliceLocation(block: Block, start: number, end: number): SourceLocation {
  const loc: SourceLocation = { ...block.loc };
  delete loc.quote;
  if (start <= 0 && end >= block.text.length) return loc;
  const { startLine, endLine, startOffset, endOffset } = block.loc;
  if (startLine !== undefined && endLine !== undefined) {
    const lineCount = countNewlines(block.text, block.text.length) + 1;
    if (lineCount === endLine - startLine + 1) {
      loc.startLine = startLine + countNewlines(block.text, start);
      loc.endLine = startLine + countNewlines(block.text, Math.max(start, end - 1));
    }
  }
  if (startOffset !== undefined && endOffset !== undefined && endOffset - startOffset === block.text.length) {
    loc.startOffset = startOffset + start;
    loc.endOffset = startOffset + end;
  }
  return loc;
}

/** Union of locations (min start, max end); pageEnd only when the passage spans pages. */
export function unionLocations(locs: SourceLocation[]): SourceLocation {
  const out: SourceLocation = {};
  const min = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.min(a, b));
  const max = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.max(a, b));
  let lastPage: number | undefined;
  for (const l of locs) {
    out.startLine = min(out.startLine, l.startLine);
    out.endLine = max(out.endLine, l.endLine ?? l.startLine);
    out.page = min(out.page, l.page);
    lastPage = max(lastPage, l.pageEnd ?? l.page);
    out.startOffset = min(out.startOffset, l.startOffset);
    out.endOffset = max(out.endOffset, l.endOffset);
    // Recognised text: the passage is as trustworthy as its weakest block.
    out.ocrConfidence = min(out.ocrConfidence, l.ocrConfidence);
  }
  if (out.page !== undefined && lastPage !== undefined && lastPage > out.page) out.pageEnd = lastPage;
  for (const k of Object.keys(out) as (keyof SourceLocation)[]) if (out[k] === undefined) delete out[k];
  return out;
}

/** A short verbatim excerpt (whitespace collapsed, cut at a word boundary). */
export function quoteOf(text: string, max = MAX_QUOTE_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const lastSpace = cut.lastIndexOf(' ');
  return lastSpace > max / 2 ? cut.slice(0, lastSpace) : cut;
}

/** Whether passages of this format (or with these block locations) carry a quote. */
export function needsQuote(format: DocFormat, locs: SourceLocation[]): boolean {
  return FORMATS[format].location === 'quote' || locs.some((l) => l.quote !== undefined || (l.startOffset !== undefined && l.startLine === undefined));
}
