// Maximal marginal relevance: re-orders hits to trade relevance for diversity over passage vectors.
import type { SearchHit } from '../types';

/**
 * Greedy MMR: picks argmax λ·rel(d) − (1−λ)·max_{s∈selected} cos(d, s), relevance min-max normalised to [0, 1].
 * Hits without a vector are treated as dissimilar to everything. Returns all hits, re-ordered; scores unchanged.
 */
export function mmr(hits: SearchHit[], lambda: number, limit = hits.length): SearchHit[] {
  if (hits.length <= 1 || lambda >= 1) return hits.slice(0, limit);
  const scores = hits.map((h) => h.score);
  const lo = Math.min(...scores);
  const hi = Math.max(...scores);
  const rel = scores.map((s) => (hi - lo < 1e-12 ? 1 : (s - lo) / (hi - lo)));
  const remaining = hits.map((_, i) => i);
  const maxSim = new Float64Array(hits.length); // max similarity to the selected set so far
  const selected: SearchHit[] = [];
  const n = Math.min(limit, hits.length);
  while (selected.length < n) {
    let best = -1;
    let bestVal = -Infinity;
    for (const i of remaining) {
      const val = lambda * rel[i] - (1 - lambda) * (selected.length ? maxSim[i] : 0);
      if (val > bestVal) {
        bestVal = val;
        best = i;
      }
    }
    remaining.splice(remaining.indexOf(best), 1);
    const chosen = hits[best];
    selected.push(chosen);
    if (chosen.vector) {
      for (const i of remaining) {
        const v = hits[i].vector;
        if (v) maxSim[i] = Math.max(maxSim[i], dot(v, chosen.vector));
      }
    }
  }
  return selected;
}

/** Dot product; equals cosine similarity for the L2-normalised vectors the store keeps. */
export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}
