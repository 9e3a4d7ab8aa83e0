// Citation markers: parse [n] / [1, 2] / [1-3] in generated text, drop numbers that match no source, and resolve
// the rest to passages with their file locations.
import type { Passage } from '../types';
import { ocrSuffix } from '../search/hitJson';
import type { Citation, NumberedSource } from './types';

/** Matches [1], [1, 2], [1;2], [1-3], [1–3] (not Markdown links "[text](url)" nor "[x]"). */
const MARKER_RE = /\[(\d{1,3}(?:\s*[-–,;]\s*\d{1,3})*)\](?!\()/g;

/**
 * Rewrites citation styles models use instead of [n] — "[Source 1]", "[Quelle 2]", "[source: 3]", "[doc 1, 2]",
 * "【1†source】", footnote "[^1]" — as [n]. Parenthesised numbers stay: "(1)" is a paragraph in German laws.
 */
export function normaliseCitationStyles(text: string): string {
  return text
    .replace(/\[\s*(?:sources?|quellen?|src|docs?|documents?|dokumente?|passages?)\s*:?\s*(\d{1,3}(?:\s*[-–,;]\s*(?:(?:sources?|quellen?)\s*)?\d{1,3})*)\s*\]/gi, (_m, inside: string) =>
      `[${inside.replace(/(?:sources?|quellen?)\s*/gi, '').replace(/\s*([,;])\s*/g, ', ')}]`,
    )
    .replace(/【(\d{1,3})(?:†[^】]*)?】/g, '[$1]')
    .replace(/\[\^(\d{1,3})\]/g, '[$1]');
}

/** Expands the inside of one marker ("1, 3-4") to numbers. Ranges longer than 20 are not expanded. */
export function expandMarker(inside: string): number[] {
  const out: number[] = [];
  for (const part of inside.split(/\s*[,;]\s*/)) {
    const range = /^(\d+)\s*[-–]\s*(\d+)$/.exec(part);
    if (range) {
      const a = Number(range[1]);
      const b = Number(range[2]);
      if (b >= a && b - a <= 20) for (let i = a; i <= b; i++) out.push(i);
      else out.push(a, b);
    } else if (/^\d+$/.test(part)) out.push(Number(part));
  }
  return out;
}

/** Every citation number in a text, in order of first use. */
export function citedNumbers(text: string): number[] {
  const seen = new Set<number>();
  for (const m of text.matchAll(MARKER_RE)) for (const n of expandMarker(m[1])) seen.add(n);
  return [...seen];
}

/**
 * Removes citation numbers that are not in `valid` from every marker (a marker left empty disappears with the
 * space before it); a marker that loses some numbers is rewritten as "[1, 3]".
 */
export function stripUnknownCitations(text: string, valid: Set<number>): { text: string; removed: number[] } {
  const removed = new Set<number>();
  const out = text.replace(/(\s?)\[(\d{1,3}(?:\s*[-–,;]\s*\d{1,3})*)\](?!\()/g, (_all, space: string, inside: string) => {
    const nums = expandMarker(inside);
    const kept = nums.filter((n) => valid.has(n));
    for (const n of nums) if (!valid.has(n)) removed.add(n);
    if (kept.length === 0) return '';
    if (kept.length === nums.length) return `${space}[${inside}]`;
    return `${space}[${[...new Set(kept)].join(', ')}]`;
  });
  return { text: out.replace(/ +([.,;:!?])/g, '$1'), removed: [...removed].sort((a, b) => a - b) };
}

/** Citation numbers carried by one sentence. */
export function sentenceCitations(sentence: string): number[] {
  return citedNumbers(sentence);
}

/** Removes citation markers (for term checks and display without numbers). */
export function withoutMarkers(text: string): string {
  return text
    .replace(MARKER_RE, ' ')
    .replace(/\s+/g, ' ')
    .replace(/ ([.,;:!?])/g, '$1')
    .trim();
}

export function toCitation(n: number, p: Passage): Citation {
  return {
    n,
    passageId: p.id,
    path: p.path,
    title: p.title,
    headingPath: p.headingPath,
    loc: p.loc,
    text: p.text,
  };
}

/** Resolves the numbers used in `text` to citations (in number order); unknown numbers are ignored here. */
export function resolveCitations(text: string, sources: NumberedSource[]): Citation[] {
  const byN = new Map(sources.map((s) => [s.n, s.passage]));
  return citedNumbers(text)
    .filter((n) => byN.has(n))
    .sort((a, b) => a - b)
    .map((n) => toCitation(n, byN.get(n)!));
}

/** A short human-readable location: "path:12-18", "file.pdf p. 3", "file.docx “quote…”". */
export function formatLocation(c: Pick<Citation, 'path' | 'loc'>): string {
  return placeOf(c) + ocrSuffix(c.loc);
}

function placeOf(c: Pick<Citation, 'path' | 'loc'>): string {
  const { loc } = c;
  if (loc.page !== undefined) {
    return loc.pageEnd !== undefined && loc.pageEnd !== loc.page ? `${c.path} pp. ${loc.page}-${loc.pageEnd}` : `${c.path} p. ${loc.page}`;
  }
  if (loc.startLine !== undefined) {
    return loc.endLine !== undefined && loc.endLine !== loc.startLine
      ? `${c.path}:${loc.startLine}-${loc.endLine}`
      : `${c.path}:${loc.startLine}`;
  }
  if (loc.quote) {
    const q = loc.quote.length > 60 ? `${loc.quote.slice(0, 57)}…` : loc.quote;
    return `${c.path} “${q}”`;
  }
  return c.path;
}

/** The JSON shape of a citation for `docs-rag ask --json`. */
export function citationJson(c: Citation): Record<string, unknown> {
  const out: Record<string, unknown> = { n: c.n, path: c.path };
  if (c.loc.page !== undefined) {
    out.page = c.loc.page;
    if (c.loc.pageEnd !== undefined) out.pageEnd = c.loc.pageEnd;
  } else if (c.loc.startLine !== undefined) {
    out.startLine = c.loc.startLine;
    out.endLine = c.loc.endLine ?? c.loc.startLine;
  }
  if (c.loc.quote !== undefined) out.quote = c.loc.quote;
  out.title = c.title;
  out.text = c.text;
  return out;
}
