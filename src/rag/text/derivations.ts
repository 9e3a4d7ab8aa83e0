// Query-side German word formation learned from the corpus: a question word the index's vocabulary does not know is
// joined by the nouns and adjectives the vocabulary derives from the same base with a productive suffix, and by that
// base itself — "krank" finds "Krankheit", "kündbar" finds "Kündbarkeit". The Snowball stemmer of the keyword index joins
// such forms only when the suffix lies far enough inside the word (its R2 region): never for short bases like these.
// Known words are left alone: their relatives are often other concepts ("Gründe" / "Gründung", "Rechte" / "rechtlich"),
// and adding them to a word that matches already only shifts the ranking without finding more. No word list: a relative
// counts only when the index's own vocabulary holds it (text/spelling.ts works the same way).
import { vocabularyWords } from './compounds';
import { FUNCTION_WORDS } from './language';
import type { WordCounts } from './compounds';

/** Productive German suffixes that form a noun or an adjective from a verb, adjective or noun base. */
const DERIVATION_SUFFIXES = ['ungen', 'ung', 'heiten', 'heit', 'keiten', 'keit', 'nisse', 'nis', 'schaft', 'lich', 'bar', 'ig'];
/** Inflection endings removed from a question word to reach its base ("zahlt" → "zahl", "kranken" → "krank"). */
const INFLECTIONS = ['est', 'ern', 'em', 'en', 'er', 'es', 'et', 'st', 'e', 'n', 's', 't'];
/** Shortest base: shorter ones ("geb", "hal") lead to unrelated words. */
const MIN_BASE = 4;
/** A relative must occur at least this often in the corpus. */
const MIN_COUNT = 2;
/** At most this many relatives per question word (the most frequent). */
const PER_WORD = 2;

/** The bases a word may be formed from: the word, without an inflection ending, without a derivation suffix. */
function bases(word: string): string[] {
  const out = new Set<string>([word]);
  for (const end of [...DERIVATION_SUFFIXES, ...INFLECTIONS]) {
    if (word.endsWith(end) && word.length - end.length >= MIN_BASE) out.add(word.slice(0, -end.length));
  }
  return [...out];
}

/**
 * Derived relatives of a text's German words that the vocabulary does not know (fewer than MIN_COUNT occurrences),
 * found in the vocabulary, as extra keyword terms ('' when none). A relative with the stem of a question word is left
 * out (the keyword analysis joins it already), as are function words.
 */
export function derivationTerms(text: string, vocab: WordCounts, stem: (word: string) => string): string {
  const out: string[] = [];
  const seen = new Set<string>();
  const words = vocabularyWords(text).filter((w) => !FUNCTION_WORDS.has(w));
  const own = new Set(words.map(stem));
  for (const w of words) {
    if (seen.has(w) || w.length < MIN_BASE || (vocab.get(w) ?? 0) >= MIN_COUNT) continue;
    seen.add(w);
    const found = new Map<string, number>();
    for (const b of bases(w)) {
      for (const candidate of [b, ...DERIVATION_SUFFIXES.map((s) => b + s)]) {
        if (candidate === w || found.has(candidate) || FUNCTION_WORDS.has(candidate)) continue;
        const count = vocab.get(candidate) ?? 0;
        if (count < MIN_COUNT || own.has(stem(candidate))) continue;
        found.set(candidate, count);
      }
    }
    const best = [...found].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, PER_WORD);
    for (const [r] of best) {
      own.add(stem(r));
      out.push(r);
    }
  }
  return out.join(' ');
}
