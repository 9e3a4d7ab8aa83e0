// Runs a retriever over judged questions and aggregates metrics overall, by category, language and style,
// with latency percentiles overall and per pipeline stage.
import type { Retriever } from '../search/types';
import type { BeirSet, WorkspaceQuery } from './datasets';
import { matchAll, type MatchOptions } from './match';
import { average, pairedDifference, percentile, scoreRanking, type GainKind, type PairedDifference, type QueryMetrics } from './metrics';

export interface QueryResult {
  id: string;
  lang: string;
  category: string;
  style: string;
  metrics: QueryMetrics;
  ms: number;
  stages: Record<string, number>;
  warnings: string[];
}

export interface EvalReport {
  config: string;
  queries: number;
  metrics: QueryMetrics;
  byCategory: Record<string, QueryMetrics & { n: number }>;
  byLang: Record<string, QueryMetrics & { n: number }>;
  byStyle: Record<string, QueryMetrics & { n: number }>;
  latency: { p50_ms: number; p95_ms: number; stages: Record<string, { p50_ms: number; p95_ms: number }> };
  warnings: number;
  perQuery: QueryResult[];
}

export interface EvalOptions {
  config: string;
  /** Results requested per query (≥ 20 for R@20). */
  k?: number;
  gain?: GainKind;
  match?: MatchOptions;
  onProgress?: (done: number, total: number) => void;
}

interface JudgedQuery {
  id: string;
  text: string;
  lang: string;
  category: string;
  style: string;
  grades: number[];
  judge: (hit: { passage: import('../types').Passage }) => number[];
}

async function run(retriever: Retriever, queries: JudgedQuery[], o: EvalOptions): Promise<EvalReport> {
  const k = o.k ?? 20;
  const perQuery: QueryResult[] = [];
  for (const [i, q] of queries.entries()) {
    const start = performance.now();
    const res = await retriever.retrieve(q.text, { k, context: false });
    const ms = performance.now() - start;
    const matches = res.hits.slice(0, k).map((h) => q.judge(h));
    const stages: Record<string, number> = {};
    for (const s of res.trace) stages[s.name] = (stages[s.name] ?? 0) + s.ms;
    perQuery.push({
      id: q.id,
      lang: q.lang,
      category: q.category,
      style: q.style,
      metrics: scoreRanking({ matches, grades: q.grades }, o.gain ?? 'exponential'),
      ms,
      stages,
      warnings: res.warnings,
    });
    o.onProgress?.(i + 1, queries.length);
  }
  return aggregate(o.config, perQuery);
}

export function aggregate(config: string, perQuery: QueryResult[]): EvalReport {
  const group = (key: (q: QueryResult) => string) => {
    const out: Record<string, QueryMetrics & { n: number }> = {};
    const keys = [...new Set(perQuery.map(key))].sort();
    for (const g of keys) {
      const list = perQuery.filter((q) => key(q) === g);
      out[g] = { ...average(list.map((q) => q.metrics)), n: list.length };
    }
    return out;
  };
  const stageNames = [...new Set(perQuery.flatMap((q) => Object.keys(q.stages)))];
  const stages: Record<string, { p50_ms: number; p95_ms: number }> = {};
  for (const name of stageNames) {
    const v = perQuery.map((q) => q.stages[name] ?? 0);
    stages[name] = { p50_ms: round(percentile(v, 50)), p95_ms: round(percentile(v, 95)) };
  }
  const ms = perQuery.map((q) => q.ms);
  return {
    config,
    queries: perQuery.length,
    metrics: average(perQuery.map((q) => q.metrics)),
    byCategory: group((q) => q.category),
    byLang: group((q) => q.lang),
    byStyle: group((q) => q.style),
    latency: { p50_ms: round(percentile(ms, 50)), p95_ms: round(percentile(ms, 95)), stages },
    warnings: perQuery.reduce((n, q) => n + q.warnings.length, 0),
    perQuery,
  };
}

/** Workspace questions (FORMAT.md): line ranges, PDF pages, DOCX quotes; graded, claim-once, exponential gain. */
export function evaluateWorkspace(retriever: Retriever, queries: WorkspaceQuery[], o: EvalOptions): Promise<EvalReport> {
  return run(
    retriever,
    queries.map((q) => ({
      id: q.id,
      text: q.query,
      lang: q.lang,
      category: q.category,
      style: q.style,
      grades: q.relevant.map((e) => e.grade),
      judge: (h) => matchAll(h.passage, q.relevant, o.match),
    })),
    o,
  );
}

/** BEIR: each document is one passage whose id is the corpus id; linear gain (as trec_eval / pytrec_eval). */
export function evaluateBeir(retriever: Retriever, set: BeirSet, o: EvalOptions): Promise<EvalReport> {
  return run(
    retriever,
    set.queries.map((q) => {
      const judged = [...set.qrels.get(q.id)!.entries()];
      const index = new Map(judged.map(([doc], i) => [doc, i]));
      return {
        id: q.id,
        text: q.text,
        lang: 'all',
        category: set.name,
        style: 'all',
        grades: judged.map(([, g]) => g),
        judge: (h) => {
          const i = index.get(beirDocId(h.passage.id));
          return i === undefined ? [] : [i];
        },
      };
    }),
    { gain: 'linear', ...o },
  );
}

/** Passage id used for a BEIR document, and back. */
export function beirPassageId(docId: string): string {
  return `beir:${docId}`;
}
export function beirDocId(passageId: string): string {
  return passageId.startsWith('beir:') ? passageId.slice(5) : passageId;
}

/** The --json summary line. */
export function summaryJson(r: EvalReport): Record<string, unknown> {
  const pick = (m: QueryMetrics & { n?: number }) => ({
    n: m.n,
    'ndcg@10': round4(m['ndcg@10']),
    'recall@5': round4(m['r@5']),
    'recall@20': round4(m['r@20']),
    'mrr@10': round4(m['mrr@10']),
  });
  const mapObj = (o: Record<string, QueryMetrics & { n: number }>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, pick(v)]));
  return {
    config: r.config,
    queries: r.queries,
    'ndcg@10': round4(r.metrics['ndcg@10']),
    'recall@20': round4(r.metrics['r@20']),
    'mrr@10': round4(r.metrics['mrr@10']),
    'p@5': round4(r.metrics['p@5']),
    map: round4(r.metrics.map),
    metrics: Object.fromEntries(Object.entries(r.metrics).map(([k, v]) => [k, round4(v)])),
    byCategory: mapObj(r.byCategory),
    byLang: mapObj(r.byLang),
    byStyle: mapObj(r.byStyle),
    latency: r.latency,
    warnings: r.warnings,
  };
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
function round4(x: number | undefined): number {
  return Math.round((x ?? 0) * 10000) / 10000;
}

/** A paired comparison as reports print it: differences to four decimals, p to three. */
export function roundPaired(d: PairedDifference): PairedDifference {
  return { ...d, mean: round4(d.mean), low: round4(d.low), high: round4(d.high), p: Math.round(d.p * 1000) / 1000 };
}

/** nDCG@10 of `b` against `a`, question by question (the same questions, matched by id). */
export function pairedNdcg(a: EvalReport, b: EvalReport): PairedDifference {
  const of = new Map(b.perQuery.map((q) => [q.id, q.metrics['ndcg@10']]));
  const both = a.perQuery.filter((q) => of.has(q.id));
  return pairedDifference(both.map((q) => q.metrics['ndcg@10']), both.map((q) => of.get(q.id)!));
}
