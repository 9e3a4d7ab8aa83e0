// Section headings as a signal between sibling passages. Neighbouring sections of one document share the document's
// words, so the fused lists often rank them close together in an arbitrary order (e.g. § 4 before § 5 of one law when
// the question is about § 5's subject). The question's words in a passage's heading path decide among them: candidates
// are ranked by that share, the ranking is added as an RRF list of a small weight, and the result only reorders the hits
// of each file among that file's places in the ranking — a heading never moves a file above another file (a heading
// names what a section is about, not whether its document answers the question).
import { foldText } from '../text/fold';
import { roughStem, startsAWord } from '../text/words';
import type { SearchHit } from '../types';
import { contentTerms } from './vectorWeight';

/** Share of `terms` that start a word of the heading path (by the prefix without the last three letters, ≥ 4: a rough stem). */
export function headingCoverage(terms: string[], headings: string[]): number {
  if (terms.length === 0 || headings.length === 0) return 0;
  const text = foldText(headings.join(' '));
  let n = 0;
  for (const t of terms) if (startsAWord(text, roughStem(t))) n++;
  return n / terms.length;
}

/** Reorders each file's hits among that file's places by fused score + weight / (k + heading rank); scores are kept per place. */
export function orderSiblingsByHeadings(query: string, hits: SearchHit[], weight: number, k: number): SearchHit[] {
  if (weight <= 0 || hits.length < 2) return hits;
  const terms = contentTerms(query);
  const cov = hits.map((h, i) => ({ i, c: headingCoverage(terms, h.passage.headingPath) })).filter((x) => x.c > 0);
  if (cov.length === 0) return hits;
  cov.sort((a, b) => b.c - a.c || a.i - b.i);
  const bonus = new Map(cov.map((x, r) => [x.i, weight / (k + r + 1)]));
  const places = new Map<string, number[]>();
  const out: SearchHit[] = [...hits];
  // A hit brought by the reference graph (`via`) and the hit it was reached from keep their places: the neighbour must
  // stay below its seed.
  const seeds = new Set(hits.map((h) => h.via?.seed).filter((x) => x));
  hits.forEach((h, i) => h.via || seeds.has(h.passage.id) || places.set(h.passage.path, [...(places.get(h.passage.path) ?? []), i]));
  for (const idx of places.values()) {
    const order = [...idx].sort((a, b) => hits[b].score + (bonus.get(b) ?? 0) - (hits[a].score + (bonus.get(a) ?? 0)) || a - b);
    idx.forEach((place, j) => (out[place] = { ...hits[order[j]], score: hits[place].score }));
  }
  return out;
}
