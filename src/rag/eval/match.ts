// Relevance matching for the workspace question format (shared/eval/workspace/FORMAT.md §5): a retrieved passage
// matches an evidence item by overlapping line range, PDF page, or a verbatim DOCX quote.
import type { Passage } from '../types';

export interface LineEvidence {
  path: string;
  startLine: number;
  endLine: number;
  grade: number;
}
export interface PageEvidence {
  path: string;
  page: number;
  grade: number;
}
export interface QuoteEvidence {
  path: string;
  quote: string;
  grade: number;
}
export type Evidence = LineEvidence | PageEvidence | QuoteEvidence;

export interface MatchOptions {
  /** Also accept a chunk holding the first or last 50 normalised characters of a quote (chunk-boundary tolerance). */
  quoteEdges?: boolean;
}

/** NFC, every whitespace run (incl. NBSP and line breaks) → one space, trimmed. Case-sensitive. */
export function normalizeText(s: string): string {
  return s.normalize('NFC').replace(/[\s\u00a0]+/g, ' ').trim();
}

/** Does the passage match the evidence item? */
export function matchesEvidence(p: Pick<Passage, 'path' | 'loc' | 'text'>, e: Evidence, o: MatchOptions = {}): boolean {
  if (p.path !== e.path) return false;
  if ('startLine' in e) {
    const s = p.loc.startLine;
    const end = p.loc.endLine ?? s;
    return s !== undefined && end !== undefined && s <= e.endLine && end >= e.startLine;
  }
  if ('page' in e) {
    const s = p.loc.page;
    if (s === undefined) return false;
    const end = p.loc.pageEnd ?? s;
    return s <= e.page && end >= e.page;
  }
  const text = normalizeText(p.text);
  const quote = normalizeText(e.quote);
  if (text.includes(quote)) return true;
  if (o.quoteEdges && quote.length > 50) return text.includes(quote.slice(0, 50)) || text.includes(quote.slice(-50));
  return false;
}

/** Indices of the evidence items a passage matches. */
export function matchAll(p: Pick<Passage, 'path' | 'loc' | 'text'>, evidence: Evidence[], o: MatchOptions = {}): number[] {
  const out: number[] = [];
  evidence.forEach((e, i) => {
    if (matchesEvidence(p, e, o)) out.push(i);
  });
  return out;
}
