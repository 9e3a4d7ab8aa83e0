// The word tokenizer of the search and answer stages: lower-cased runs of letters and digits. (The per-passage hot paths,
// the builtin embedder and the language guess, scan the same words without cutting them out: scan.ts.)

export interface WordOptions {
  /** Keep words joined by '-' or '_' as one ("opt-level", "max_tokens"), as the answer checks compare them. */
  joined?: boolean;
  /** Only words of at least this many characters (code points). */
  minChars?: number;
}

const WORD = /[\p{L}\p{N}]+/gu;
const JOINED = /[\p{L}\p{N}]+(?:[-_][\p{L}\p{N}]+)*/gu;

/** Lower-cased words (letters and digits) of a text, in order. */
export function words(text: string, options: WordOptions = {}): string[] {
  const all = text.toLowerCase().match(options.joined ? JOINED : WORD) ?? [];
  const min = options.minChars ?? 1;
  return min <= 1 ? all : all.filter((w) => [...w].length >= min);
}

/** The prefix a word is matched by: the word without its last three letters, at least four (a rough stem: "dependencies" → "dependen"). */
export function roughStem(word: string): string {
  return word.slice(0, Math.max(4, word.length - 3));
}

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** True when `prefix` occurs in `text` at the start of a word (not after a letter or digit). */
export function startsAWord(text: string, prefix: string): boolean {
  for (let i = text.indexOf(prefix); i >= 0; i = text.indexOf(prefix, i + 1)) if (i === 0 || !WORD_CHAR.test(text[i - 1])) return true;
  return false;
}
