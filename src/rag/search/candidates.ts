// Candidate generation: full-text and vector search for one or more query texts, fused per query and across queries.
import type { Embedder, Lang, Level, Passage, SearchHit } from '../types';
import type { IndexStore, VectorHitId, VectorOptions } from '../store/types';
import { reciprocalRankFusion, weightedFusion } from './fusion';
import { adaptiveVectorWeight } from './vectorWeight';
import { withoutStopWords } from './lexicon';
import type { Tracer } from './trace';
import { timed } from './trace';
import { embeddingText } from '../text/compounds';

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
  /** Query-adaptive vector weight in [min, max] by the keyword list's coverage of the query (vectorWeight.ts); off when absent. */
  adaptiveVectorWeight?: [number, number];
  alpha: number;
  withVectors: boolean;
  /** The query's German compound parts (text/compounds.ts), added to its German-column search; '' or undefined: none. */
  keywordParts?: string;
  /** The query's exact tokens (file names, flags, § references): also searched as phrases in the other language's column. */
  exactTokens?: string[];
  /** RRF weight of the keyword list of the column in the other language than the query's (the query's own: 1). */
  otherLanguageWeight?: number;
  /** False when the index has no German passages (its column is then not searched). Default true. */
  germanColumn?: boolean;
  /** RRF weight of the exact-token keyword list. */
  exactTokenWeight?: number;
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
  /** The list searches the other language's column (translations of the question). */
  otherLanguage?: boolean;
  /** Final weight from this list's hits and the question's first keyword list (e.g. by query-word coverage). */
  adjust?: (own: SearchHit[], queryKeyword: SearchHit[]) => number;
  /**
   * A list in the other language (`otherLanguage`) when the column of the question's own language has hits too (a
   * bilingual index): it joins the other language's column list with this weight (that list: 1) instead of counting on
   * its own, so it ranks the other language's passages among themselves and never outweighs the question's own-language
   * evidence. Undefined: it always counts on its own.
   */
  columnWeight?: number;
  /** With `columnWeight`: whether the list joins the other column, from its hits and the question's own keyword ranking (undefined: it does). */
  joins?: (own: SearchHit[], queryKeyword: SearchHit[]) => boolean;
  /** Set by gatherCandidates: the weight used, the number of hits, and the weight inside the other column when it joined it (for the trace). */
  used?: { weight: number; hits: number; column?: number };
}

interface KeywordLists {
  de: SearchHit[];
  en: SearchHit[];
}

/** Runs the searches (keyword and vector in parallel), records spans, and returns the fused candidate list. */
export async function gatherCandidates(store: IndexStore, embedder: Embedder, r: CandidateRequest, tracer: Tracer): Promise<SearchHit[]> {
  const ftsLang = r.lang === 'other' ? undefined : r.lang;
  const filter = { levels: r.levels };
  const keywordTexts = r.keyword ? [...r.queries, ...r.keywordOnly] : [];
  // The builtin (lexical) embedder sees the query's compound parts too, like the passages' (text/compounds.ts).
  const vectorTexts = r.vector
    ? [...r.queries, ...r.vectorOnly].map((t, i) => (i === 0 ? embeddingText({ indexText: t, keywordParts: r.keywordParts }, embedder.id) : t))
    : [];

  // Every query searches both analyses concurrently: the German column (with the query's compound parts) and the
  // English one. They hold disjoint passages, so their lists are fused by rank, the query's language weighted higher.
  const parts = r.keywordParts?.trim();
  const keywordSearch = async (q: string): Promise<KeywordLists> => {
    // The German column's query without German function words its analyzer keeps ("gibt", "gilt", "darf", "welche"):
    // question words, not what a passage is about. A German question searches the English column without them as well:
    // the English analyzer does not know them ("die", "was", "man" are English words there). Likewise an English
    // question's function words are left out of the German column's query ("most", "will", "after" are German words there).
    const qdeBase = withoutStopWords(q, 'de');
    const qde = ftsLang === 'en' ? withoutStopWords(qdeBase, 'en') : qdeBase;
    const [de, en] = await Promise.all([
      r.germanColumn === false
        ? Promise.resolve([] as SearchHit[])
        : store.fullTextSearch(parts ? `${qde} ${parts}` : qde, { k: r.candidates, lang: 'de', ...filter }),
      store.fullTextSearch(ftsLang === 'de' ? qde : q, { k: r.candidates, lang: 'en', ...filter }),
    ]);
    return { de, en };
  };
  const exactText = r.keyword && (r.exactTokenWeight ?? 1) > 0 ? (r.exactTokens ?? []).filter((t) => !/^\d+(?:[.,]\d+)*$/.test(t)).join('\n') : '';
  const weighted = r.keyword ? (r.weightedKeyword ?? []) : [];
  const keywordRun = timed(() =>
    Promise.all([
      Promise.all(keywordTexts.map(keywordSearch)),
      exactText && ftsLang && !(ftsLang === 'en' && r.germanColumn === false) ? store.fullTextSearch(exactText, { k: r.candidates, lang: ftsLang === 'de' ? 'en' : 'de', phrases: true, ...filter }) : Promise.resolve([] as SearchHit[]),
      // A list for the German column is not searched when the index has no German passage (e.g. translations of an
      // English question over English documents): it could find nothing.
      Promise.all(
        weighted.map((w) =>
          (w.lang ?? ftsLang) === 'de' && r.germanColumn === false
            ? Promise.resolve([] as SearchHit[])
            : store.fullTextSearch(w.text, { k: r.candidates, lang: w.lang === 'other' ? undefined : (w.lang ?? ftsLang), ...filter }),
        ),
      ),
    ]),
  );
  // The index still holds another embedder's vectors (the embedder setting just changed and the run that re-embeds it
  // has not rebuilt the tables yet): their space is not the query's, so this search is keyword-only until then.
  const recorded = store.meta()?.embedder;
  const otherVectors = !!recorded && (recorded.id !== embedder.id || (embedder.id !== 'builtin' && recorded.model !== embedder.model));
  const vectorRun = (async () => {
    if (vectorTexts.length === 0 || otherVectors) return { vectors: [] as Float32Array[], lists: vectorTexts.map(() => [] as SearchHit[]), embedMs: 0, searchMs: 0 };
    // Queries (the query and its variants) get the model's query prefix; HyDE passages are documents and get the
    // document prefix (embed/prefixes.ts). Output order = vectorTexts order.
    const queryCount = vectorTexts.length - r.vectorOnly.length;
    const emb = await timed(async () => {
      const [queries, passages] = await Promise.all([
        embedder.embedQueries(vectorTexts.slice(0, queryCount)),
        queryCount < vectorTexts.length ? embedder.embed(vectorTexts.slice(queryCount)) : Promise.resolve([] as Float32Array[]),
      ]);
      return [...queries, ...passages];
    });
    // Without vectors wanted (MMR needs them), the search returns ids: the passages of the few vector hits the fusion
    // keeps that no keyword list brought are read after it (fillPassages).
    const vectorSearch = async (v: Float32Array, o: VectorOptions): Promise<SearchHit[]> =>
      r.withVectors ? store.vectorSearch(v, o) : (await store.vectorSearchIds(v, o)).map(unreadHit);
    const search = await timed(() =>
      Promise.all(
        // The store filters by level before ranking (with the vector-fill filter it applies anyway), so each list holds
        // `candidates` passages of the wanted levels without fetching more to filter afterwards.
        emb.value.map((v) => vectorSearch(v, { k: r.candidates, withVectors: r.withVectors, ...filter })),
      ),
    );
    return { vectors: emb.value, lists: search.value, embedMs: emb.ms, searchMs: search.ms };
  })();
  const [kw, vec] = await Promise.all([keywordRun, vectorRun]);
  if (vectorTexts.length) {
    const queryTexts = vectorTexts.length - r.vectorOnly.length;
    tracer.record('embedding', vec.embedMs, { texts: vectorTexts.length, queries: queryTexts, documents: r.vectorOnly.length }, [`${embedder.id}:${embedder.model.split(/[\\/]/).pop()}`]);
  }
  const [kwLists, exactHits, weightedHits] = kw.value;
  if (keywordTexts.length) {
    tracer.record('full-text', kw.ms, {
      queries: keywordTexts.length + weighted.length,
      hits: sum(kwLists.map((l) => l.de.length + l.en.length)) + exactHits.length + sum(weightedHits.map((l) => l.length)),
      exact: exactHits.length,
    });
  }
  const ownLang = ftsLang;
  const other = r.otherLanguageWeight ?? 0.5;
  // The column of the query's language has weight 1, the other one `other`; when the query's own column finds nothing
  // (e.g. a single-language corpus in the other language), the other one is all there is and gets weight 1.
  const keywordPair = (l: KeywordLists): { lists: SearchHit[][]; weights: number[] } => {
    let wDe = ownLang === 'en' ? other : 1;
    let wEn = ownLang === 'de' ? other : 1;
    if (ownLang === 'de' && l.de.length === 0) wEn = 1;
    if (ownLang === 'en' && l.en.length === 0) wDe = 1;
    return { lists: [l.de, l.en], weights: [wDe, wEn] };
  };
  if (vectorTexts.length) tracer.record('vector', vec.searchMs, { queries: vectorTexts.length, hits: sum(vec.lists.map((l) => l.length)) });

  const weightNotes: string[] = [];
  const fusedHits = await tracer.span(
    'fusion',
    () => {
      const perQuery: SearchHit[][] = [];
      // The question's own keyword ranking (both columns fused), against which an extra list's weight is adjusted.
      let firstKeyword: SearchHit[] = [];
      let listWeights = weighted.map((w) => w.weight);
      // Lists of the other language that joined that language's column list (a bilingual index, see columnWeight).
      const joined = new Set<number>();
      // One query's keyword ranking: both language columns (and, for the question itself, its exact tokens) fused.
      const keywordRanking = (l: KeywordLists, withExact: boolean): SearchHit[] => {
        const pair = keywordPair(l);
        const lists = [...pair.lists];
        const weights = [...pair.weights];
        if (withExact && exactHits.length) {
          lists.push(exactHits);
          weights.push(r.exactTokenWeight ?? 1);
        }
        const nonEmpty = lists.map((x, j) => [x, weights[j]] as const).filter(([x]) => x.length > 0);
        return nonEmpty.length === 1 ? nonEmpty[0][0].map((h) => ({ ...h })) : reciprocalRankFusion(nonEmpty.map(([x]) => x), r.rrfK, nonEmpty.map(([, w]) => w));
      };
      const perQueryWeight: number[] = [];
      r.queries.forEach((text, i) => {
        // The keyword lists of one query (both language columns, exact tokens) are fused first, so the vector list is
        // weighed against one keyword ranking whatever the number of columns.
        let k: SearchHit[] | undefined;
        if (r.keyword) {
          k = keywordRanking(kwLists[i], i === 0);
          if (i === 0) {
            firstKeyword = k;
            // The extra lists' weights are known once the question's own keyword ranking is (the bridge's depends on it).
            listWeights = weighted.map((w, j) => (w.adjust ? w.adjust(weightedHits[j], firstKeyword) : w.weight));
            // A bilingual index (the question's own column has hits): a translated list joins the other language's
            // column, so the two languages' evidence is fused nearly at par (otherLanguageWeight: at equal rank the own
            // language first) and a translation never displaces own-language hits. Not when the list decides that the
            // question is about the other language's documents (`joins`): then its own weight applies.
            // (Rank fusion only: weighted fusion by a request's alpha mixes the question's own keyword and vector lists.)
            if (r.fusion === 'rrf' && (ownLang === 'de' || ownLang === 'en')) {
              const otherKey = ownLang === 'de' ? 'en' : 'de';
              const column = kwLists[0][otherKey];
              weighted.forEach((w, j) => {
                if (w.otherLanguage && w.columnWeight !== undefined && w.columnWeight > 0 && weightedHits[j].length > 0 && kwLists[0][ownLang].length > 0 && (w.joins?.(weightedHits[j], firstKeyword) ?? true)) joined.add(j);
              });
              if (joined.size) {
                const parts = [[column, 1] as const, ...[...joined].map((j) => [weightedHits[j], weighted[j].columnWeight!] as const)].filter(([x]) => x.length > 0);
                const merged = reciprocalRankFusion(parts.map(([x]) => x), r.rrfK, parts.map(([, w]) => w));
                k = keywordRanking({ ...kwLists[0], [otherKey]: merged }, true);
                for (const j of joined) weightNotes.push(`${weighted[j].name ?? 'list'} joined the ${otherKey} column (weight ${weighted[j].columnWeight})`);
              }
            }
          }
        }
        const v = r.vector ? vec.lists[i] : undefined;
        let w = r.rrfVectorWeight ?? 1;
        // A list in the other language that counts more than its base weight: the question is about documents in the
        // other language, which the builtin embedder's lexical vector of the question's own words cannot find, so the
        // vector list gets the lowest weight of the range. Not when it joined
        // the other language's column: the question's own language has evidence too.
        const crossLanguage = i === 0 && weighted.some((l, j) => !joined.has(j) && l.otherLanguage && listWeights[j] > l.weight);
        if (k && v && r.adaptiveVectorWeight && r.fusion === 'rrf') {
          const a = adaptiveVectorWeight(text, k, v, r.adaptiveVectorWeight, w);
          w = crossLanguage ? r.adaptiveVectorWeight[0] : a.weight;
          weightNotes.push(`vector weight ${w.toFixed(2)} (keyword coverage ${a.coverage.toFixed(2)}, top-10 overlap ${a.overlap.toFixed(1)}${crossLanguage ? ', question in the other language' : ''})`);
        }
        if (k?.length && v?.length) perQuery.push(r.fusion === 'weighted' ? weightedFusion(k, v, r.alpha) : reciprocalRankFusion([k, v], r.rrfK, [1, w]));
        else if (k?.length || !v) perQuery.push((k ?? []).map((h) => ({ ...h })));
        else {
          // No keyword hit for the query: its vector list alone keeps the vector weight, or fused with the other lists
          // below (rank-based) it would count like a keyword ranking.
          perQuery.push(v.map((h) => ({ ...h })));
          perQueryWeight[perQuery.length - 1] = r.fusion === 'rrf' && r.keyword ? w : 1;
        }
      });
      if (r.keyword) {
        for (let i = r.queries.length; i < keywordTexts.length; i++) {
          const pair = keywordPair(kwLists[i]);
          perQuery.push(reciprocalRankFusion(pair.lists, r.rrfK, pair.weights));
        }
      }
      if (r.vector) for (let i = r.queries.length; i < vectorTexts.length; i++) perQuery.push(vec.lists[i]);
      const weights = perQuery.map((_, i) => perQueryWeight[i] ?? 1);
      weighted.forEach((w, i) => {
        const own = weightedHits[i];
        const weight = joined.has(i) ? 0 : r.queries.length ? listWeights[i] : w.weight;
        w.used = { weight, hits: own.length, ...(joined.has(i) ? { column: w.columnWeight } : {}) };
        if (weight > 0 && own.length) {
          perQuery.push(own);
          weights.push(weight);
        }
      });
      const fused = perQuery.length === 1 ? perQuery[0] : reciprocalRankFusion(perQuery, r.rrfK, weights);
      const read = new Map<string, Passage>();
      for (const list of [...kwLists.flatMap((l) => [l.de, l.en]), exactHits, ...weightedHits]) for (const h of list) read.set(h.passage.id, h.passage);
      return fillPassages(store, fused.slice(0, Math.max(r.candidates, 1)), read);
    },
    (hits) => ({ lists: r.queries.length + r.keywordOnly.length + r.vectorOnly.length + weighted.length, candidates: hits.length }),
  );
  for (const n of weightNotes) tracer.note('fusion', n);
  return fusedHits;
}

/** Vector hits whose passage is not read yet: only `id` and `level` are set. */
const unread = new WeakSet<Passage>();

function unreadHit(h: VectorHitId): SearchHit {
  const passage = { id: h.id, level: h.level } as Passage;
  unread.add(passage);
  return { passage, score: h.score };
}

/**
 * Gives the hits whose passage is unread their passage: from the keyword lists when one brought it, else read from the
 * store (a passage removed since the search is left out).
 */
async function fillPassages(store: IndexStore, hits: SearchHit[], read: Map<string, Passage>): Promise<SearchHit[]> {
  const missing = hits.filter((h) => unread.has(h.passage) && !read.has(h.passage.id)).map((h) => h.passage.id);
  if (missing.length > 0) for (const p of await store.getPassages(missing)) read.set(p.id, p);
  const out: SearchHit[] = [];
  for (const h of hits) {
    if (!unread.has(h.passage)) out.push(h);
    else {
      const p = read.get(h.passage.id);
      if (p) out.push({ ...h, passage: p });
    }
  }
  return out;
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
