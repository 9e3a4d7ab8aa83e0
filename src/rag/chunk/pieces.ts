// Turns one block into pieces no longer than the passage size: whole blocks when they fit, otherwise groups of
// whole sentences (list items, code lines). Only a sentence longer than the size itself is cut, at a word
// boundary (after , ; : when possible). Pieces are verbatim slices of the block text.
import type { Block, Lang, SourceLocation } from '../types';
import { sliceLocation } from './locations';
import { splitSentences } from '../text/sentences';
import { splitTable } from './tables';

export interface Piece {
  text: string;
  loc: SourceLocation;
  /** Verbatim text to quote from (for offset-located formats). */
  quoteSource: string;
  table: boolean;
}

export interface Span {
  start: number;
  end: number;
}

const LIST_ITEM_START = /\n(?=[ \t]*(?:[-*+•–]|\(?[0-9]{1,3}[.)]|\(?[a-zA-Z][.)]|\([0-9a-z]{1,3}\))\s)/g;

/** Offsets of sentences (and list items / code lines) in a block's text. */
export function segmentSpans(block: Block, lang: Lang): Span[] {
  const text = block.text;
  if (block.kind === 'code') {
    const spans: Span[] = [];
    let s = 0;
    for (let i = 0; i <= text.length; i++) {
      if (i === text.length || text[i] === '\n') {
        if (i > s) spans.push({ start: s, end: i });
        s = i + 1;
      }
    }
    return spans;
  }
  // Items of a list (or a paragraph that is a sequence of "a) ... b) ..." lines) are sentence boundaries too.
  const itemStarts = [0];
  for (const m of text.matchAll(LIST_ITEM_START)) itemStarts.push((m.index ?? 0) + 1);
  const spans: Span[] = [];
  for (let k = 0; k < itemStarts.length; k++) {
    const from = itemStarts[k];
    const to = k + 1 < itemStarts.length ? itemStarts[k + 1] : text.length;
    for (const s of splitSentences(text.slice(from, to), lang)) spans.push({ start: from + s.start, end: from + s.end });
  }
  return spans;
}

/** Cuts an over-long span at word boundaries into spans of at most `size` characters. */
export function cutLongSpan(text: string, span: Span, size: number): Span[] {
  const out: Span[] = [];
  let s = span.start;
  while (span.end - s > size) {
    const limit = s + size;
    let cut = -1;
    for (let i = limit; i > s + size * 0.6; i--) {
      if (/[,;:]/.test(text[i - 1]) && /\s/.test(text[i])) {
        cut = i;
        break;
      }
    }
    if (cut < 0) for (let i = limit; i > s + size * 0.3; i--) if (/\s/.test(text[i])) {
      cut = i;
      break;
    }
    if (cut < 0) cut = limit;
    let e = cut;
    while (e > s && /\s/.test(text[e - 1])) e--;
    out.push({ start: s, end: e });
    s = cut;
    while (s < span.end && /\s/.test(text[s])) s++;
  }
  if (span.end > s) out.push({ start: s, end: span.end });
  return out;
}

/** Groups consecutive spans into pieces of roughly equal length, each at most `size`. */
function groupSpans(spans: Span[], size: number): Span[] {
  if (spans.length === 0) return [];
  const total = spans[spans.length - 1].end - spans[0].start;
  const target = total / Math.ceil(total / size);
  const groups: Span[] = [];
  let cur: Span | undefined;
  for (const sp of spans) {
    if (!cur) {
      cur = { ...sp };
      continue;
    }
    const len = cur.end - cur.start;
    if (sp.end - cur.start <= size && len < target * 0.95) cur.end = sp.end;
    else {
      groups.push(cur);
      cur = { ...sp };
    }
  }
  if (cur) groups.push(cur);
  return groups;
}

/** Pieces of one non-heading block. */
export function blockPieces(block: Block, size: number, lang: Lang): Piece[] {
  if (block.kind === 'table') {
    return splitTable(block, size).map((p) => ({
      text: p.text,
      loc: sliceLocation(block, 0, block.text.length),
      quoteSource: p.quoteSource,
      table: true,
    }));
  }
  const text = block.text;
  if (text.trim() === '') return [];
  if (text.length <= size) return [{ text, loc: sliceLocation(block, 0, text.length), quoteSource: text, table: false }];
  const spans = segmentSpans(block, lang).flatMap((s) => (s.end - s.start > size ? cutLongSpan(text, s, size) : [s]));
  return groupSpans(spans, size).map((g) => {
    const t = text.slice(g.start, g.end);
    return { text: t, loc: sliceLocation(block, g.start, g.end), quoteSource: t, table: false };
  });
}
