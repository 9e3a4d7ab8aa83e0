// Pseudo-relevance feedback (RM3-style): the terms that weigh most in the top passages of the first retrieval — by
// their share of each passage, the passage's fused score and their rarity among all candidates — are searched again as
// one more weighted keyword list, fused with the first result by RRF. Model-free; one extra full-text query.
import type { Lang, Level, SearchHit } from '../types';
import type { IndexStore } from '../store/types';
import { reciprocalRankFusion } from './fusion';
import { stem } from '../text/stem';
import { words } from '../text/words';
import { isContentWord, type LexLang } from './lexicon';
import type { Tracer } from './trace';

export interface PrfOptions {
  /** Top passages read for feedback terms. */
  docs: number;
  /** Feedback terms added. */
  terms: number;
  /** Fusion weight of the feedback list (the first result has weight 1). */
  weight: number;
  rrfK: number;
  candidates: number;
  levels: Level[];
}

export interface FeedbackTerms {
  /** Language of the column searched: the most common language of the top passages. */
  lang: LexLang;
  terms: string[];
}

/** Feedback terms from the first `docs` hits, excluding the question's own words; undefined when there are none. */
export function feedbackTerms(query: string, queryLang: Lang, hits: SearchHit[], o: Pick<PrfOptions, 'docs' | 'terms'>): FeedbackTerms | undefined {
  const top = hits.slice(0, o.docs);
  if (top.length === 0) return undefined;
  const langCount = { de: 0, en: 0 };
  for (const h of top) langCount[h.passage.lang === 'de' ? 'de' : 'en']++;
  const lang: LexLang = langCount.de > langCount.en ? 'de' : langCount.en > langCount.de ? 'en' : queryLang === 'de' ? 'de' : 'en';
  const exclude = new Set<string>();
  for (const w of words(query)) {
    exclude.add(stem(w, 'de'));
    exclude.add(stem(w, 'en'));
  }
  // Document frequency among all candidates: a rarity factor standing in for the collection's IDF.
  const pool = hits.slice(0, Math.max(o.docs * 4, 40));
  const df = new Map<string, number>();
  const surface = new Map<string, Map<string, number>>();
  const docs = pool.map((h) => {
    const tf = new Map<string, number>();
    let len = 0;
    for (const w of words(h.passage.text)) {
      len++;
      if (!isContentWord(w, lang) || w.length < 4) continue;
      const s = stem(w, lang);
      if (exclude.has(s)) continue;
      tf.set(s, (tf.get(s) ?? 0) + 1);
      let forms = surface.get(s);
      if (!forms) surface.set(s, (forms = new Map()));
      forms.set(w, (forms.get(w) ?? 0) + 1);
    }
    for (const s of tf.keys()) df.set(s, (df.get(s) ?? 0) + 1);
    return { tf, len: Math.max(len, 1) };
  });
  const total = top.reduce((n, h) => n + Math.max(h.score, 0), 0) || 1;
  const weight = new Map<string, number>();
  top.forEach((h, i) => {
    const d = docs[i];
    const dw = Math.max(h.score, 0) / total;
    for (const [s, tf] of d.tf) {
      if (tf < 1) continue;
      weight.set(s, (weight.get(s) ?? 0) + dw * (tf / d.len));
    }
  });
  const n = pool.length;
  const ranked = [...weight.entries()]
    .filter(([s]) => (df.get(s) ?? 0) >= Math.min(2, top.length)) // a term of one passage only is noise
    .map(([s, w]) => [s, w * Math.log((n + 1) / ((df.get(s) ?? 0) + 0.5))] as const)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, o.terms);
  if (ranked.length === 0) return undefined;
  const terms = ranked.map(([s]) => [...(surface.get(s) ?? new Map([[s, 1]])).entries()].sort((a, b) => b[1] - a[1])[0][0]);
  return { lang, terms };
}

/** Runs the feedback list and fuses it with the first result; the first result unchanged when there are no terms. */
export async function prfStage(store: IndexStore, query: string, queryLang: Lang, hits: SearchHit[], o: PrfOptions, tracer: Tracer): Promise<SearchHit[]> {
  return tracer.span(
    'prf',
    async () => {
      const fb = feedbackTerms(query, queryLang, hits, o);
      if (!fb) return hits;
      const own = fb.lang === queryLang ? words(query).filter((w) => isContentWord(w, fb.lang)) : [];
      const list = await store.fullTextSearch([...own, ...fb.terms].join(' '), { k: o.candidates, lang: fb.lang, levels: o.levels });
      // Feedback terms come from document text: the trace keeps their number, not the words.
      tracer.note('prf', `${fb.terms.length} feedback terms (${fb.lang}), ${list.length} hits`);
      if (list.length === 0) return hits;
      return reciprocalRankFusion([hits, list], o.rrfK, [1, o.weight]).slice(0, Math.max(o.candidates, 1));
    },
    (r) => ({ candidates: r.length }),
  );
}
