// Turns the thesaurus and the German↔English bridge (search/termLists.ts) into weighted keyword lists for one query,
// and records in the trace which terms were added (dictionary words, never document text).
import type { Lang, SearchHit } from '../types';
import type { WeightedKeywordList } from './candidates';
import type { SearchSettings } from './configs';
import { coverage, queryGroups, synonymList, translationList, type TermList } from './termLists';
import type { Tracer } from './trace';

/** What the settings ask for; the lists are empty when both are off or the query has no known content words. */
export function expansionLists(
  query: string,
  lang: Lang,
  s: SearchSettings,
  tracer: Tracer,
  /** Occurrences of a German term in the index (its vocabulary): German translations are chosen by it. */
  germanFrequency?: (term: string) => number,
): WeightedKeywordList[] {
  if (!s.keyword || (!s.synonyms && !s.bridge)) return [];
  const start = performance.now();
  const lists: WeightedKeywordList[] = [];
  const built: TermList[] = [];
  if (s.synonyms) {
    const syn = synonymList(query, lang, { perWord: s.synonymsPerWord, withQuery: s.synonymsWithQuery });
    if (syn) {
      built.push(syn);
      lists.push({ name: 'synonyms', text: syn.text, lang: syn.lang, weight: s.synonymWeight });
    }
  }
  if (s.bridge) {
    const tr = translationList(query, lang, { perWord: s.bridgePerWord, frequency: lang === 'de' ? undefined : germanFrequency });
    if (tr) {
      built.push(tr);
      const own = queryGroups(query, lang);
      lists.push({
        name: 'translation',
        text: tr.text,
        lang: tr.lang,
        otherLanguage: true,
        weight: s.bridgeWeight,
        columnWeight: s.bridgeColumnWeight > 0 ? s.bridgeColumnWeight : undefined,
        joins: (hits: SearchHit[], main: SearchHit[]) => {
          const t = coverage(hits, tr.groups);
          return !(t > 0 && t > coverage(main, own) * (1 + s.bridgeJoinMargin));
        },
        // The translated list counts more when its passages hold more of the question's words (translated) than the
        // passages of the question's own keyword list do: the question is then about documents in the other language.
        adjust: (hits: SearchHit[], main: SearchHit[]) => bridgeWeight(coverage(hits, tr.groups), coverage(main, own), s),
      });
    }
  }
  const span = tracer.record('term-lists', performance.now() - start, {
    synonyms: built.find((b) => b.kind === 'synonyms')?.added.length ?? 0,
    translations: built.find((b) => b.kind === 'translation')?.added.length ?? 0,
  });
  for (const b of built) (span.notes ??= []).push(`${b.kind} (${b.lang}): ${b.added.join(', ')}`);
  return lists;
}

/**
 * The translated list's weight: `bridgeBoostWeight` when its best passages hold more of the question's words than the
 * question's own list's (coverage ratio above 1 + `bridgeMargin`), else `bridgeWeight`.
 */
export function bridgeWeight(translated: number, own: number, s: Pick<SearchSettings, 'bridgeWeight' | 'bridgeBoostWeight' | 'bridgeMargin'>): number {
  return translated > 0 && translated > own * (1 + s.bridgeMargin) ? s.bridgeBoostWeight : s.bridgeWeight;
}

/** After the search: the weight each list got (the bridge's depends on the hits). */
export function noteListWeights(lists: WeightedKeywordList[], tracer: Tracer): void {
  if (lists.length === 0) return;
  tracer.note('term-lists', `weights: ${lists.map((l) => `${l.name ?? 'list'}=${l.used ? `${l.used.column !== undefined ? `${round2(l.used.column)} in the other column` : round2(l.used.weight)} (${l.used.hits} hits)` : round2(l.weight)}`).join(', ')}`);
}


function round2(x: number): number {
  return Math.round(x * 100) / 100;
}
