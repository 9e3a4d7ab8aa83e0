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
