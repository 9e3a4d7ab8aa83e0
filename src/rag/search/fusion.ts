// Fusion of ranked candidate lists: reciprocal rank fusion (default) and weighted score fusion.
import type { SearchHit } from '../types';

/**
 * Reciprocal rank fusion: score(d) = Σ_lists weight_l / (k + rank_l(d)), ranks 1-based. `k` is the search
 * settings' `rrfK` (search/configs.ts, BASE_SETTINGS).
 * The first occurrence of a passage keeps its passage/vector; a vector found in a later list is kept too.
 */
export function reciprocalRankFusion(lists: SearchHit[][], k: number, weights?: number[]): SearchHit[] {
  const fused = new Map<string, SearchHit>();
  lists.forEach((list, li) => {
    const w = weights?.[li] ?? 1;
    list.forEach((hit, rank) => {
      const add = w / (k + rank + 1);
      const prev = fused.get(hit.passage.id);
      if (prev) {
        prev.score += add;
        prev.vector ??= hit.vector;
      } else {
        fused.set(hit.passage.id, { passage: hit.passage, score: add, vector: hit.vector });
      }
    });
  });
  return sortHits([...fused.values()]);
}

/**
 * Weighted fusion of a keyword list and a vector list: each list's scores are min-max normalised to [0, 1],
 * then score = (1 - alpha) * keyword + alpha * vector (a passage missing from a list gets 0 there).
 */
export function weightedFusion(keyword: SearchHit[], vector: SearchHit[], alpha: number): SearchHit[] {
  const a = Math.min(1, Math.max(0, alpha));
  const fused = new Map<string, SearchHit>();
  const addList = (list: SearchHit[], w: number) => {
    const norm = minMax(list.map((h) => h.score));
    list.forEach((hit, i) => {
      const add = w * norm[i];
      const prev = fused.get(hit.passage.id);
      if (prev) {
        prev.score += add;
        prev.vector ??= hit.vector;
      } else fused.set(hit.passage.id, { passage: hit.passage, score: add, vector: hit.vector });
    });
  };
  addList(keyword, 1 - a);
  addList(vector, a);
  return sortHits([...fused.values()]);
}

function minMax(values: number[]): number[] {
  if (values.length === 0) return [];
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  if (hi - lo < 1e-12) return values.map(() => 1);
  return values.map((v) => (v - lo) / (hi - lo));
}

/** Sorts by score descending; ties broken by id so results are deterministic. */
export function sortHits(hits: SearchHit[]): SearchHit[] {
  return hits.sort((x, y) => y.score - x.score || (x.passage.id < y.passage.id ? -1 : x.passage.id > y.passage.id ? 1 : 0));
}
