// German compound splitting learned from the corpus: the frequency-based splitter of Koehn & Knight (2003, "Empirical
// Methods for Compound Splitting"). A word is split into parts that occur as words of the index's own vocabulary
// (with the linking elements -s-, -es-, -n-, -en-, -e- between parts); among all splits, and the word itself, the one
// with the highest geometric mean of the part frequencies wins. No word list: what counts as a part is learned from the
// documents (the counts live in the store folder, see store/vocabulary.ts). Function words never count as parts.
import { FUNCTION_WORDS } from './language';
import { WordClass } from './scan';

/** Word → frequency in the corpus (occurrences in German passages). */
export interface WordCounts {
  get(word: string): number | undefined;
}

/** Shortest part; words shorter than two parts are never split. */
export const MIN_PART = 4;
/** At most this many parts per word. */
export const MAX_PARTS = 4;
/** Linking elements (Fugenelemente) allowed between two parts ('' = none). */
const LINKS = ['', 's', 'es', 'n', 'en', 'e'];
const MAX_WORD = 40;

/** Letter runs (/\p{L}+/u), found by a scan: only the words of the right length are cut out of the text. */
const LETTERS = new WordClass(/^\p{L}$/u);

/** Calls `each` with the lowercase letter runs of `text` that are `min`..MAX_WORD letters long. */
function eachWord(text: string, min: number, each: (word: string) => void): void {
  const lower = text.toLowerCase();
  for (let i = 0; i < lower.length; ) {
    if (LETTERS.at(lower, i) === 0) {
      i++;
      continue;
    }
    const from = i;
    i = LETTERS.wordEnd(lower, from);
    if (i - from >= min && i - from <= MAX_WORD) each(lower.slice(from, i));
  }
}

/** The words of a text as the vocabulary counts them: lowercase letter runs of MIN_PART..40 letters. */
export function vocabularyWords(text: string): string[] {
  const out: string[] = [];
  eachWord(text, MIN_PART, (w) => out.push(w));
  return out;
}

/** Adds the word counts of `text` to `into`. */
export function countWords(text: string, into: Map<string, number> = new Map()): Map<string, number> {
  eachWord(text, MIN_PART, (w) => into.set(w, (into.get(w) ?? 0) + 1));
  return into;
}

/**
 * Splits a (lowercase) word into its parts, or returns [] when the word itself is at least as frequent as the geometric
 * mean of the parts of every possible split (Koehn & Knight: keep frequent compounds whole, split rare ones).
 */
export function splitCompound(word: string, counts: WordCounts): string[] {
  const w = word.toLowerCase();
  if (w.length < 2 * MIN_PART || w.length > MAX_WORD) return [];
  const freq = (part: string) => (FUNCTION_WORDS.has(part) ? 0 : counts.get(part) ?? 0);
  // Segmentations of w[i..] into parts (each a known word of ≥ MIN_PART letters), links between parts dropped.
  const memo = new Map<number, string[][]>();
  const segments = (i: number, depth: number): string[][] => {
    const key = i * 8 + depth;
    const cached = memo.get(key);
    if (cached) return cached;
    const out: string[][] = [];
    for (let j = i + MIN_PART; j <= w.length; j++) {
      const part = w.slice(i, j);
      if (freq(part) === 0) continue;
      if (j === w.length) {
        out.push([part]);
        continue;
      }
      if (depth + 1 >= MAX_PARTS) continue;
      for (const link of LINKS) {
        if (link && !w.startsWith(link, j)) continue;
        const next = j + link.length;
        if (w.length - next < MIN_PART) continue;
        for (const rest of segments(next, depth + 1)) out.push([part, ...rest]);
      }
    }
    memo.set(key, out);
    return out;
  };
  let best: string[] = [];
  let bestScore = counts.get(w) ?? 0;
  for (const parts of segments(0, 0)) {
    if (parts.length < 2) continue;
    let logSum = 0;
    for (const p of parts) logSum += Math.log(freq(p));
    const score = Math.exp(logSum / parts.length);
    // Ties: fewer parts (the more conservative split).
    if (score > bestScore + 1e-9 || (best.length > 0 && Math.abs(score - bestScore) <= 1e-9 && parts.length < best.length)) {
      best = parts;
      bestScore = score;
    }
  }
  return best;
}

/**
 * The compound parts of a text's words (each distinct word split once), as one space-separated string; '' when no word
 * splits. The whole words stay in the text itself: the parts are extra keyword and embedding features.
 */
export function compoundParts(text: string, counts: WordCounts, cache?: Map<string, string[]>): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  eachWord(text, 2 * MIN_PART, (w) => {
    if (seen.has(w)) return;
    seen.add(w);
    let split = cache?.get(w);
    if (!split) {
      split = splitCompound(w, counts);
      cache?.set(w, split);
    }
    for (const p of split) parts.push(p);
  });
  return parts.join(' ');
}

/** Separates a passage's keyword text from the compound parts appended to it (not a word character: never a token). */
export const PARTS_MARK = '\u241e';

/** indexText with its compound parts appended (as stored in the German keyword column and embedded by the builtin embedder). */
export function withParts(indexText: string, parts: string | undefined): string {
  return parts ? `${indexText}\n${PARTS_MARK} ${parts}` : indexText;
}

/** The indexText part of a stored keyword text (what `withParts` appended removed). */
export function withoutParts(stored: string): string {
  const i = stored.lastIndexOf(`\n${PARTS_MARK} `);
  return i < 0 ? stored : stored.slice(0, i);
}

/** Sets `keywordParts` on the German passages (others are left alone). One split per distinct word via `cache`. */
export function annotateCompounds(
  passages: { lang: string; indexText: string; keywordParts?: string }[],
  counts: WordCounts,
  cache: Map<string, string[]> = new Map(),
): void {
  for (const p of passages) {
    if (p.lang !== 'de') continue;
    const parts = compoundParts(p.indexText, counts, cache);
    if (parts) p.keywordParts = parts;
    else delete p.keywordParts;
  }
}

/** The text an embedder gets for a passage: the builtin (lexical) embedder also sees the compound parts. */
export function embeddingText(p: { indexText: string; keywordParts?: string }, embedderId: string): string {
  return embedderId === 'builtin' ? withParts(p.indexText, p.keywordParts) : p.indexText;
}
