// Snowball stems (German, English): one stemmer per language for the whole process, and a bounded cache of stems, shared
// by the lexicons, the keyword-only query variant and the answer checks.
interface Stemmer {
  stem(word: string): string;
}
// snowball-stemmers ships no type declarations.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const snowball = require('snowball-stemmers') as { newStemmer(lang: string): Stemmer };

export type StemLang = 'de' | 'en';

const stemmers: Partial<Record<StemLang, Stemmer>> = {};
const stemCache: Record<StemLang, Map<string, string>> = { de: new Map(), en: new Map() };

/** Snowball stem of one word, lower-cased first (umlauts folded by the German stemmer). */
export function stem(word: string, lang: StemLang): string {
  const cache = stemCache[lang];
  let s = cache.get(word);
  if (s === undefined) {
    if (cache.size > 100_000) cache.clear();
    s = (stemmers[lang] ??= snowball.newStemmer(lang === 'de' ? 'german' : 'english')).stem(word.toLowerCase());
    cache.set(word, s);
  }
  return s;
}
