// Query-adaptive weight of the vector list in RRF, for the builtin (lexical) embedder.
//
// The builtin embedder is a hashed word + character n-gram sketch: its vector list is a second, noisier lexical signal.
// It carries new information only where the keyword list misses words of the question (compounds, inflections the
// stemmer does not join, typos) or where the two lists disagree entirely. Elsewhere it only reorders the keyword
// list's good ranking (on SciFact and CISI a fixed weight put default below bm25). So its weight follows the keyword
// list's coverage of the question:
//   weight = min + (max - min) × (share of the question's content words that no top-10 keyword hit contains),
// and the fixed `rrfVectorWeight` when the top 10 of the two lists share no passage.
import { foldText } from '../text/fold';
import { FUNCTION_WORDS } from '../text/language';
import { roughStem, startsAWord, words } from '../text/words';
import type { SearchHit } from '../types';

/** Hits of each list compared (coverage, overlap). */
export const ADAPTIVE_TOP = 10;

/** Content words of a query: folded, ≥ 3 letters, no function words, each once. */
export function contentTerms(query: string): string[] {
  return [...new Set(words(foldText(query)).filter((t) => t.length >= 3 && !FUNCTION_WORDS.has(t)))];
}

/**
 * Share of the query's content words that start a word of the top keyword hits (text or headings). A word counts by its
 * prefix without its last three letters (at least four), a rough stem: "dependencies" matches "dependency".
 */
export function keywordCoverage(query: string, hits: SearchHit[], top = ADAPTIVE_TOP): number {
  const terms = contentTerms(query);
  if (terms.length === 0) return 1;
  const text = ` ${hits
    .slice(0, top)
    .map((h) => foldText(`${h.passage.headingPath.join(' ')} ${h.passage.text}`))
    .join(' ')}`;
  let covered = 0;
  for (const t of terms) if (startsAWord(text, roughStem(t))) covered++;
  return covered / terms.length;
}

/** Share of the top `n` of `b` that is also in the top `n` of `a`. */
export function listOverlap(a: SearchHit[], b: SearchHit[], n = ADAPTIVE_TOP): number {
  const ids = new Set(a.slice(0, n).map((h) => h.passage.id));
  return b.slice(0, n).filter((h) => ids.has(h.passage.id)).length / n;
}

export interface AdaptiveWeight {
  weight: number;
  coverage: number;
  overlap: number;
}

/** The vector list's RRF weight for one query (see the file comment); `range` = [min, max], `disjoint` = weight when the lists share nothing. */
export function adaptiveVectorWeight(
  query: string,
  keyword: SearchHit[],
  vector: SearchHit[],
  range: [number, number],
  disjoint: number,
): AdaptiveWeight {
  const coverage = keywordCoverage(query, keyword);
  const overlap = listOverlap(keyword, vector);
  if (keyword.length > 0 && vector.length > 0 && overlap === 0) return { weight: disjoint, coverage, overlap };
  return { weight: range[0] + (range[1] - range[0]) * (1 - coverage), coverage, overlap };
}
