// Candidate generation: full-text and vector search for one or more query texts, fused per query and across queries.
import type { Embedder, Lang, Level, SearchHit } from '../types';
import type { IndexStore } from '../store/types';
import { reciprocalRankFusion, weightedFusion } from './fusion';
import type { Tracer } from './trace';
import { timed } from './trace';

export interface CandidateRequest {
  /** Query texts searched with both full-text and vector search (the query and its variants). */
  queries: string[];
  /** Texts searched with vector search only (HyDE passages). */
  vectorOnly: string[];
  /** Extra keyword-only queries (model-free expansion). */
  keywordOnly: string[];
  lang: Lang;
  levels: Level[];
  candidates: number;
  keyword: boolean;
  vector: boolean;
  fusion: 'rrf' | 'weighted';
  rrfK: number;
  /** Weight of the vector list in RRF (keyword list: 1). */
  rrfVectorWeight?: number;
  alpha: number;
  withVectors: boolean;
  /** Extra keyword lists with their own column and fusion weight (synonyms, translations: search/termLists.ts). */
  weightedKeyword?: WeightedKeywordList[];
}

export interface WeightedKeywordList {
  /** For the trace (e.g. 'synonyms', 'translation'). */
  name?: string;
  text: string;
  /** Full-text column searched (the query's own language unless set). */
  lang?: Lang;
  weight: number;
  /** Final weight from this list's hits and the question's first keyword list (e.g. by query-word coverage). */
  adjust?: (own: SearchHit[], queryKeyword: SearchHit[]) => number;
  /** Set by gatherCandidates: the weight used and the number of hits (for the trace). */
  used?: { weight: number; hits: number };
}

/** Runs the searches (keyword and vector in parallel), records spans, and returns the fused candidate list. */
export async function gatherCandidates(store: IndexStore, embedder: Embedder, r: CandidateRequest, tracer: Tracer): Promise<SearchHit[]> {
  const ftsLang = r.lang === 'other' ? undefined : r.lang;
  const filter = { levels: r.levels };
  const keywordTexts = r.keyword ? [...r.queries, ...r.keywordOnly] : [];
  const vectorTexts = r.vector ? [...r.queries, ...r.vectorOnly] : [];

  // A query in the wrong language column finds (almost) nothing: then both columns are searched.
  const keywordSearch = async (q: string) => {
    const hits = await store.fullTextSearch(q, { k: r.candidates, lang: ftsLang, ...filter });
    if (ftsLang === undefined || hits.length >= Math.min(5, r.candidates)) return hits;
    return store.fullTextSearch(q, { k: r.candidates, lang: undefined, ...filter });
  };
  const weighted = r.keyword ? (r.weightedKeyword ?? []) : [];
  const keywordRun = timed(() =>
    Promise.all([
      ...keywordTexts.map(keywordSearch),
      ...weighted.map((w) => store.fullTextSearch(w.text, { k: r.candidates, lang: w.lang === 'other' ? undefined : (w.lang ?? ftsLang), ...filter })),
    ]),
  );
  const vectorRun = (async () => {
    if (vectorTexts.length === 0) return { vectors: [] as Float32Array[], lists: [] as SearchHit[][], embedMs: 0, searchMs: 0 };
    const emb = await timed(() => embedder.embed(vectorTexts));
    // The level filter is applied here, after the search: on a table without a vector index LanceDB's prefilter made
    // flat search ~5x slower (bench/searchProfileFilter.ts). Passages of other levels are few, so 2x candidates suffice.
    // Rare levels alone (e.g. only L0 summaries) are still prefiltered by the store.
    const allLevels = [0, 1, 2].every((l) => r.levels.includes(l as Level));
    const postfilter = r.levels.includes(2);
    const search = await timed(() =>
      Promise.all(
        emb.value.map(async (v) => {
          if (!postfilter) return store.vectorSearch(v, { k: r.candidates, withVectors: r.withVectors, ...filter });
          const hits = await store.vectorSearch(v, { k: allLevels ? r.candidates : r.candidates * 2, withVectors: r.withVectors });
          return (allLevels ? hits : hits.filter((h) => r.levels.includes(h.passage.level))).slice(0, r.candidates);
        }),
      ),
    );
    return { vectors: emb.value, lists: search.value, embedMs: emb.ms, searchMs: search.ms };
  })();
  const [kw, vec] = await Promise.all([keywordRun, vectorRun]);
  if (vectorTexts.length) tracer.record('embedding', vec.embedMs, { texts: vectorTexts.length });
  if (keywordTexts.length) tracer.record('full-text', kw.ms, { queries: keywordTexts.length + weighted.length, hits: sum(kw.value.map((l) => l.length)) });
  if (vectorTexts.length) tracer.record('vector', vec.searchMs, { queries: vectorTexts.length, hits: sum(vec.lists.map((l) => l.length)) });

  return tracer.span(
    'fusion',
    () => {
      const perQuery: SearchHit[][] = [];
      r.queries.forEach((_, i) => {
        const k = r.keyword ? kw.value[i] : undefined;
        const v = r.vector ? vec.lists[i] : undefined;
        if (k && v) perQuery.push(r.fusion === 'weighted' ? weightedFusion(k, v, r.alpha) : reciprocalRankFusion([k, v], r.rrfK, [1, r.rrfVectorWeight ?? 1]));
        else perQuery.push((k ?? v ?? []).map((h) => ({ ...h })));
      });
      if (r.keyword) for (let i = r.queries.length; i < keywordTexts.length; i++) perQuery.push(kw.value[i]);
      if (r.vector) for (let i = r.queries.length; i < vectorTexts.length; i++) perQuery.push(vec.lists[i]);
      const weights = perQuery.map(() => 1);
      weighted.forEach((w, i) => {
        const own = kw.value[keywordTexts.length + i];
        const weight = w.adjust ? w.adjust(own, kw.value[0] ?? []) : w.weight;
        w.used = { weight, hits: own.length };
        if (weight > 0 && own.length) {
          perQuery.push(own);
          weights.push(weight);
        }
      });
      const fused = perQuery.length === 1 ? perQuery[0] : reciprocalRankFusion(perQuery, r.rrfK, weights);
      return fused.slice(0, Math.max(r.candidates, 1));
    },
    (hits) => ({ lists: r.queries.length + r.keywordOnly.length + r.vectorOnly.length + weighted.length, candidates: hits.length }),
  );
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
