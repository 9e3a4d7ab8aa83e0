// Ranking metrics over judged rankings: P@k, R@k, MRR@10, nDCG@10, MAP — with the claim-once rule for evidence items.
//
// A ranking is judged as, per rank, the list of evidence items the retrieved unit matches (indices into `grades`).
// Going down the ranking, a unit claims the highest-graded item it matches that no higher-ranked unit claimed; its
// gain is that item's grade (0 when it claims none). Any match still counts as relevant for MRR and precision.

export const CUTOFFS = [1, 3, 5, 10, 20] as const;

export interface JudgedRanking {
  /** matches[i] = indices of evidence items matched by the unit at rank i+1. */
  matches: number[][];
  /** Grade (> 0) of each evidence item. */
  grades: number[];
}

export type GainKind = 'exponential' | 'linear';

export interface QueryMetrics {
  [name: string]: number;
}

/** Metrics of one query: p@k, r@k (k in CUTOFFS), mrr@10, ndcg@10, map. */
export function scoreRanking(r: JudgedRanking, gain: GainKind = 'exponential'): QueryMetrics {
  const g = (grade: number) => (gain === 'exponential' ? 2 ** grade - 1 : grade);
  const claimed = new Set<number>();
  const gains: number[] = [];
  const firstClaims: boolean[] = [];
  for (const m of r.matches) {
    const free = m.filter((i) => !claimed.has(i)).sort((a, b) => r.grades[b] - r.grades[a]);
    if (free.length) {
      claimed.add(free[0]);
      gains.push(r.grades[free[0]]);
      firstClaims.push(true);
    } else {
      gains.push(0);
      firstClaims.push(false);
    }
  }
  const out: QueryMetrics = {};
  const nItems = r.grades.length;
  for (const k of CUTOFFS) {
    const top = r.matches.slice(0, k);
    out[`p@${k}`] = top.filter((m) => m.length > 0).length / k;
    const covered = new Set(top.flat());
    out[`r@${k}`] = nItems ? covered.size / nItems : 0;
  }
  const first = r.matches.slice(0, 10).findIndex((m) => m.length > 0);
  out['mrr@10'] = first >= 0 ? 1 / (first + 1) : 0;
  let dcg = 0;
  gains.slice(0, 10).forEach((x, i) => (dcg += g(x) / Math.log2(i + 2)));
  let idcg = 0;
  [...r.grades].sort((a, b) => b - a).slice(0, 10).forEach((x, i) => (idcg += g(x) / Math.log2(i + 2)));
  out['ndcg@10'] = idcg > 0 ? dcg / idcg : 0;
  // AP: precision at each rank where a new evidence item is claimed, over the number of items.
  let hitsSoFar = 0;
  let apSum = 0;
  r.matches.forEach((m, i) => {
    if (m.length > 0) hitsSoFar++;
    if (firstClaims[i]) apSum += hitsSoFar / (i + 1);
  });
  out.map = nItems ? apSum / nItems : 0;
  return out;
}

/** Macro-average of per-query metrics. */
export function average(list: QueryMetrics[]): QueryMetrics {
  const out: QueryMetrics = {};
  if (list.length === 0) return out;
  for (const key of Object.keys(list[0])) out[key] = list.reduce((s, m) => s + (m[key] ?? 0), 0) / list.length;
  return out;
}

/** Percentile (nearest-rank on the sorted values); p in [0, 100]. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

/** A paired comparison of two configurations over the same questions (b − a per question). */
export interface PairedDifference {
  questions: number;
  /** Mean of b − a. */
  mean: number;
  /** 95 % interval of the mean by the paired bootstrap (questions resampled with replacement). */
  low: number;
  high: number;
  /** Two-sided p of the mean by the sign-flip randomization test: how often random signs give a mean as far from 0. */
  p: number;
  /** Questions where b scores higher / lower than a. */
  wins: number;
  losses: number;
}

/**
 * Whether b differs from a beyond the noise of these questions: a difference whose interval holds 0 (p large) could
 * come from which questions the set happens to hold, and no rule is decided by it (EVALUATION.md, "Method"). Seeded,
 * so one set's figures are the same on every run.
 */
export function pairedDifference(a: number[], b: number[], resamples = 10_000, seed = 1): PairedDifference {
  if (a.length !== b.length) throw new Error(`paired comparison of ${a.length} and ${b.length} questions`);
  const d = a.map((x, i) => b[i] - x);
  const n = d.length;
  if (n === 0) return { questions: 0, mean: 0, low: 0, high: 0, p: 1, wins: 0, losses: 0 };
  const mean = d.reduce((s, x) => s + x, 0) / n;
  let state = seed >>> 0;
  const random = () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const means: number[] = [];
  let asFar = 0;
  for (let r = 0; r < resamples; r++) {
    let boot = 0;
    let flipped = 0;
    for (let i = 0; i < n; i++) {
      boot += d[Math.floor(random() * n)];
      flipped += random() < 0.5 ? d[i] : -d[i];
    }
    means.push(boot / n);
    if (Math.abs(flipped / n) >= Math.abs(mean) - 1e-12) asFar++;
  }
  means.sort((x, y) => x - y);
  const eps = 1e-9;
  return {
    questions: n,
    mean,
    low: means[Math.floor(0.025 * resamples)],
    high: means[Math.ceil(0.975 * resamples) - 1],
    p: asFar / resamples,
    wins: d.filter((x) => x > eps).length,
    losses: d.filter((x) => x < -eps).length,
  };
}
