// Near-duplicate removal: a section (L1) and its passage (L2) often carry the same text, and overlapping chunks repeat
// sentences. A hit whose words are mostly contained in a higher-ranked hit of the same file is dropped, so the slot
// goes to new evidence.
import { words } from '../text/words';
import type { SearchHit } from '../types';

/** Share of the smaller word set found in the larger one. */
export function containment(a: Set<string>, b: Set<string>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  if (small.size === 0) return 1;
  let n = 0;
  for (const w of small) if (large.has(w)) n++;
  return n / small.size;
}

/** Keeps order; drops hits with containment ≥ threshold against a kept hit of the same file. */
export function dropNearDuplicates(hits: SearchHit[], threshold = 0.8): { hits: SearchHit[]; dropped: number } {
  const kept: { hit: SearchHit; words: Set<string> }[] = [];
  let dropped = 0;
  for (const hit of hits) {
    const w = new Set(words(hit.passage.text, { minChars: 3 }));
    const dup = kept.some((k) => k.hit.passage.path === hit.passage.path && containment(k.words, w) >= threshold);
    if (dup) dropped++;
    else kept.push({ hit, words: w });
  }
  return { hits: kept.map((k) => k.hit), dropped };
}

/** Moves hits beyond the first `max` of their file behind the hits of other files (order otherwise kept). */
export function capPerDocument(hits: SearchHit[], max: number): { hits: SearchHit[]; moved: number } {
  if (max <= 0) return { hits, moved: 0 };
  const seen = new Map<string, number>();
  const head: SearchHit[] = [];
  const tail: SearchHit[] = [];
  for (const h of hits) {
    const n = (seen.get(h.passage.path) ?? 0) + 1;
    seen.set(h.passage.path, n);
    (n <= max ? head : tail).push(h);
  }
  return { hits: [...head, ...tail], moved: tail.length };
}
