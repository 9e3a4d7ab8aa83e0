// Model-free query expansion: a keyword-only variant with German compounds split into parts (by the index's own
// vocabulary, text/compounds.ts) and every word reduced to its Snowball stem, so "Kündigungsschutzklage" also matches
// "Kündigungsschutz ... Klage".
import type { Lang } from '../types';
import { splitCompound, type WordCounts } from '../text/compounds';
import { stem } from '../text/stem';

/** The keyword-only variant, or undefined when it would equal the query. */
export function lexicalVariant(query: string, lang: Lang, counts: WordCounts): string | undefined {
  const words = query.match(/[\p{L}\p{N}]+/gu) ?? [];
  const l: 'de' | 'en' = lang === 'de' ? 'de' : 'en';
  const out: string[] = [];
  for (const w of words) {
    const parts = l === 'de' ? splitCompound(w, counts) : [];
    for (const p of parts.length ? parts : [w]) out.push(stem(p.toLowerCase(), l));
  }
  const v = out.join(' ');
  return v && v !== query.toLowerCase() ? v : undefined;
}
