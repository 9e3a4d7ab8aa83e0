// Query-side spelling tolerance learned from the corpus: a question word the index's vocabulary does not know is
// matched to the most frequent vocabulary word one edit away (Damerau: one letter deleted, inserted, replaced, or two
// neighbours swapped) — "Kündigunsschutz" → "kündigungsschutz". A compound whose parts are known but for one misspelt
// part ("kündigunsschutzklage") is split with that one part corrected (the frequency-based splitter of
// text/compounds.ts, at most one corrected part). No word list: what counts as a word is the index's own vocabulary.
// Lookups compare only words of the same first letter and of length ±1 (typos in the first letter are rare, and a
// bucket holds a few dozen words), so a correction costs well under a millisecond on a vocabulary of 10^4 words.
import { MAX_PARTS, MIN_PART, splitCompound, vocabularyWords, type WordCounts } from './compounds';
import { FUNCTION_WORDS } from './language';

/** A vocabulary that can list its words (store/vocabulary.ts). */
export interface WordList extends WordCounts {
  /** The words of `length` UTF-16 units starting with the unit `first`: what a one-edit correction can be. */
  wordsOf(first: string, length: number): readonly string[];
}

/** Shortest word that is corrected: shorter words have too many neighbours. */
export const MIN_CORRECTED = 6;
/** Shortest compound part that is corrected inside an unknown word (short parts are often just another real word). */
export const MIN_CORRECTED_PART = 8;
/** A corrected word or part must occur at least this often in the corpus. */
const MIN_COUNT = 2;
/** Link elements between compound parts (as in text/compounds.ts). */
const LINKS = ['', 's', 'es', 'n', 'en', 'e'];

/** True when a and b differ by exactly one edit (deletion, insertion, substitution, or transposition of neighbours). */
export function oneEditApart(a: string, b: string): boolean {
  if (a === b) return false;
  const la = a.length;
  const lb = b.length;
  if (Math.abs(la - lb) > 1) return false;
  let i = 0;
  while (i < la && i < lb && a[i] === b[i]) i++;
  if (la === lb) {
    // substitution at i, or transposition of i and i+1
    if (a.slice(i + 1) === b.slice(i + 1)) return true;
    return i + 1 < la && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  // insertion / deletion at i
  return la > lb ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** The most frequent vocabulary word one edit away from `word` (undefined when none, or when `word` is known). */
export function nearestWord(word: string, vocab: WordList, minLength = MIN_CORRECTED): { word: string; count: number } | undefined {
  if (word.length < minLength || (vocab.get(word) ?? 0) > 0) return undefined;
  let best: { word: string; count: number } | undefined;
  for (let len = word.length - 1; len <= word.length + 1; len++) {
    for (const w of vocab.wordsOf(word[0], len)) {
      if (FUNCTION_WORDS.has(w) || !oneEditApart(word, w)) continue;
      const count = vocab.get(w) ?? 0;
      if (count >= MIN_COUNT && (!best || count > best.count || (count === best.count && w < best.word))) best = { word: w, count };
    }
  }
  return best;
}

/**
 * An unknown word split into known parts with exactly one part corrected (geometric mean of the part counts, the
 * corrected one counted as its correction); [] when no such split exists.
 */
export function correctedSplit(word: string, vocab: WordList): string[] {
  const w = word.toLowerCase();
  if (w.length < MIN_PART + MIN_CORRECTED_PART) return [];
  const exact = (p: string) => (FUNCTION_WORDS.has(p) ? 0 : vocab.get(p) ?? 0);
  const near = new Map<string, { word: string; count: number } | undefined>();
  const fuzzy = (p: string) => {
    if (!near.has(p)) near.set(p, nearestWord(p, vocab, MIN_CORRECTED_PART));
    return near.get(p);
  };
  let best: string[] = [];
  let bestScore = 0;
  // Depth-first over segmentations; `fixed` = a part was corrected already.
  const walk = (i: number, parts: string[], logSum: number, fixed: boolean) => {
    if (parts.length >= MAX_PARTS) return;
    for (let j = i + MIN_PART; j <= w.length; j++) {
      const part = w.slice(i, j);
      const options: [string, number, boolean][] = [];
      const n = exact(part);
      if (n > 0) options.push([part, n, false]);
      else if (!fixed) {
        const f = fuzzy(part);
        if (f) options.push([f.word, f.count, true]);
      }
      for (const [p, count, corrected] of options) {
        const next = [...parts, p];
        const sum = logSum + Math.log(count);
        if (j === w.length) {
          if (corrected || fixed) {
            const score = Math.exp(sum / next.length);
            if (next.length >= 2 && (score > bestScore || (score === bestScore && next.length < best.length))) {
              best = next;
              bestScore = score;
            }
          }
          continue;
        }
        for (const link of LINKS) {
          if (link && !w.startsWith(link, j)) continue;
          const k = j + link.length;
          if (w.length - k >= MIN_PART) walk(k, next, sum, fixed || corrected);
        }
      }
    }
  };
  walk(0, [], 0, false);
  return best;
}

/**
 * Corrections of a question's unknown words as extra keyword terms ('' when none): the nearest known word with its
 * compound parts, else a split with one part corrected. The question's own words stay as they are. With `stem`, a
 * correction with the word's own stem is left out: it is an inflection the keyword analysis joins already
 * ("theoretischer" / "theoretischen"), and adding it would only count the word twice.
 */
export function spellingTerms(text: string, vocab: WordList, stem?: (word: string) => string): string {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const w of vocabularyWords(text)) {
    if (seen.has(w) || w.length < MIN_CORRECTED || FUNCTION_WORDS.has(w) || (vocab.get(w) ?? 0) > 0) continue;
    seen.add(w);
    // A compound of known parts is no typo (text/compounds.ts splits it).
    if (splitCompound(w, vocab).length > 0) continue;
    const near = nearestWord(w, vocab);
    if (near) {
      if (stem && stem(near.word) === stem(w)) continue;
      out.push(near.word, ...splitCompound(near.word, vocab));
      continue;
    }
    out.push(...correctedSplit(w, vocab));
  }
  return out.join(' ');
}
