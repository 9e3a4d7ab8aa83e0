// One hit per place: a section (L1) and its own passage (L2), or a document (L0) and anything in it, are the same place
// shown twice. Of two hits where one lies inside the other (same file), the more precise one is kept, at the better rank
// of the two; the other is dropped, so the slot goes to another place.
import type { Passage, SearchHit } from '../types';

type Range = [number, number];

/** The line range or character-offset range of a passage (by its format's location kind); pages are too coarse to nest by. */
function ranges(p: Passage): { lines?: Range; offsets?: Range } {
  const l = p.loc;
  return {
    lines: l.startLine !== undefined ? [l.startLine, l.endLine ?? l.startLine] : undefined,
    offsets: l.startOffset !== undefined && l.endOffset !== undefined ? [l.startOffset, l.endOffset] : undefined,
  };
}

const within = (a: Range | undefined, b: Range | undefined) => !!a && !!b && a[0] >= b[0] && a[1] <= b[1];

/** True when `a` lies inside `b`: same file, and `b` is a's document (L0) or parent, or b's range holds a's. */
export function liesInside(a: Passage, b: Passage): boolean {
  if (a.path !== b.path || a.id === b.id) return false;
  if (b.level === 0 && a.level > 0) return true;
  if (a.parentId === b.id) return true;
  const ra = ranges(a);
  const rb = ranges(b);
  return within(ra.lines, rb.lines) || within(ra.offsets, rb.offsets);
}

/** a is the more precise of two nested hits: it lies inside b (on equal ranges, the deeper level wins). */
function morePrecise(a: Passage, b: Passage): boolean {
  const aIn = liesInside(a, b);
  const bIn = liesInside(b, a);
  if (aIn && bIn) return a.level > b.level;
  return aIn;
}

/** Keeps ranked order; of nested hits of one file keeps the more precise at the better rank. */
export function collapseNested(hits: SearchHit[]): { hits: SearchHit[]; merged: number } {
  const kept: SearchHit[] = [];
  let merged = 0;
  for (const hit of hits) {
    const i = kept.findIndex((k) => liesInside(hit.passage, k.passage) || liesInside(k.passage, hit.passage));
    if (i < 0) {
      kept.push(hit);
      continue;
    }
    merged++;
    const k = kept[i];
    if (morePrecise(hit.passage, k.passage)) kept[i] = { ...hit, score: Math.max(hit.score, k.score) };
  }
  return { hits: kept, merged };
}
