// Model-free keyword lists built from compiled word lists (search/lexicon.ts): synonyms of the question's content words
// (OpenThesaurus / WordNet) and their translations into the other language (Ding). Each becomes its own keyword list with
// its own weight in the fusion; the question's own lists are never changed. Lookups are in-memory map reads.
import type { Lang, SearchHit } from '../types';
import { stem } from '../text/stem';
import { words } from '../text/words';
import { IDIOM_MARK, isContentWord, loadLexicon, termKey, type LexLang, type Lexicon } from './lexicon';

/** One extra keyword list: the text searched, the column's language, and what was added (for the trace). */
export interface TermList {
  kind: 'synonyms' | 'translation' | 'prf';
  /** Language of the full-text column searched. */
  lang: LexLang;
  /** The keyword query sent to the full-text search. */
  text: string;
  /** Terms added to the question (synonyms, translations, feedback terms). */
  added: string[];
  /**
   * Per content word of the question: the alternatives (in `lang`) that count as that word in a passage (for coverage).
   * An alternative is a stem, or the space-separated stems of a phrase ("notic period"), which counts only whole.
   */
  groups: Set<string>[];
}

export interface SynonymOptions {
  /** Synonyms per content word. */
  perWord: number;
  /** Put the question's words into the list as well (the synonyms then only add to them). */
  withQuery: boolean;
}

export interface TranslationOptions {
  /** Translations per content word (or per two-word English term). */
  perWord: number;
  /**
   * How often a translation occurs in the documents of the target language (e.g. the index's German vocabulary). With
   * it, the dictionary's translations of a word are ranked by that count, those the documents never use last: the sense
   * the documents use comes first ("employer" → Arbeitgeber rather than Brotherr).
   */
  frequency?: (term: string) => number;
}

/** Tokens with inner dots or underscores, or inner capitals: names of files, settings, products. */
const IDENTIFIER = /[\p{L}\p{N}]+(?:[._][\p{L}\p{N}]+)+|\p{Ll}+\p{Lu}[\p{L}\p{N}]*|\p{Lu}+\p{Ll}+\p{Lu}[\p{L}\p{N}]*/gu;

/** The content words of a question, in order (stop words, short words and numbers left out). */
export function contentWords(query: string, lang: LexLang): string[] {
  return words(query).filter((w) => isContentWord(w, lang));
}

function lexLang(lang: Lang): LexLang {
  return lang === 'de' ? 'de' : 'en';
}

/** Synonyms of the question's content words from the thesaurus of its language; undefined when nothing is found. */
export function synonymList(query: string, queryLang: Lang, o: SynonymOptions): TermList | undefined {
  const lang = lexLang(queryLang);
  const lex = loadLexicon(lang === 'de' ? 'thesaurus-de' : 'thesaurus-en');
  if (!lex) return undefined;
  const content = contentWords(query, lang);
  const have = new Set(content.map((w) => stem(w, lang)));
  const added: string[] = [];
  const groups: Set<string>[] = [];
  for (const w of content) {
    const g = new Set([stem(w, lang)]);
    let n = 0;
    for (const syn of lex.get(lang, termKey(w, lang)) ?? []) {
      if (n >= o.perWord) break;
      const s = stem(syn, lang);
      if (have.has(s)) continue;
      have.add(s);
      g.add(s);
      added.push(syn);
      n++;
    }
    groups.push(g);
  }
  if (added.length === 0) return undefined;
  return { kind: 'synonyms', lang, text: (o.withQuery ? [...content, ...added] : added).join(' '), added, groups };
}

/**
 * The question's content words translated into the other language (German → English or English → German; two-word
 * English terms such as "minimum wage" first). Words the dictionary does not know (names, identifiers such as
 * `Cargo.toml`, product names) are carried over unchanged: they are usually the same in both languages.
 */
export function translationList(query: string, queryLang: Lang, o: TranslationOptions): TermList | undefined {
  const from = lexLang(queryLang);
  const to: LexLang = from === 'de' ? 'en' : 'de';
  const lex = loadLexicon('bridge-de-en');
  if (!lex) return undefined;
  const section = `${from}-${to}`;
  // Identifiers (`Cargo.toml`, `crates.io`, `ElterngeldPlus`, `CARGO_HOME`) are carried over whole, never translated.
  const idents = query.match(IDENTIFIER) ?? [];
  const added: string[] = [];
  const carried: string[] = [];
  const groups: Set<string>[] = [];
  const seen = new Set<string>();
  const addTranslations = (found: string[], g: Set<string>) => {
    for (const t of rankTranslations(found, o.frequency).slice(0, o.perWord)) {
      // A phrase ("notice period" for Kündigungsfrist) counts as the word only with all its content words: its head
      // alone ("period") is a different, usually generic word.
      const stems = words(t).filter((w) => isContentWord(w, to)).map((w) => stem(w, to));
      if (stems.length) g.add(stems.join(' '));
      if (!seen.has(t)) {
        seen.add(t);
        added.push(t);
      }
    }
  };
  const tokens = tokenize(query.replace(IDENTIFIER, ' '));
  const all = tokens.map((t) => t.word);
  // Whether the question writes German nouns with capitals (a capital not at a sentence's start): then a word's case
  // tells a noun from an adjective or verb; a question typed in lower case tries both.
  const capitals = from === 'de' && tokens.some((t) => !t.initial && /^\p{Lu}/u.test(t.raw));
  // The content words of a run between idioms, one or two at a time (two-word English terms such as "minimum wage" first).
  const translateRun = (run: Token[]) => {
    const content = run.map((t) => t.word);
    for (let i = 0; i < content.length; ) {
      let found: string[] | undefined;
      let span = 1;
      for (let n = Math.min(2, content.length - i); n >= 1 && !found; n--) {
        const part = content.slice(i, i + n);
        // The exact form first ("employer"), then the stems ("employ"): the file keeps exact forms only where they differ.
        // A German exact form is keyed as written: "Lokale" (bars) is the noun, "lokale" (local) the adjective.
        const exact = from === 'de' && n === 1 ? germanForms(run[i], capitals) : [part.join(' ')];
        let t: string[] | undefined;
        for (const form of exact) t ??= lex.get(section, `=${form}`);
        t ??= lex.get(section, part.map((w) => stem(w, from)).join(' '));
        if (t) {
          found = t;
          span = n;
        }
      }
      const g = new Set<string>();
      if (found) addTranslations(found, g);
      else {
        for (const w of content.slice(i, i + span)) {
          g.add(stem(w, to));
          if (!seen.has(w)) {
            seen.add(w);
            carried.push(w);
          }
        }
      }
      for (let s = 0; s < span; s++) groups.push(g);
      i += span;
    }
  };
  // An English idiom ("at least" → mindestens, "in writing" → schriftlich) is translated as one, its function words
  // included; the content words between idioms as above.
  let run: Token[] = [];
  for (let i = 0; i < all.length; ) {
    const idiom = from === 'en' ? idiomAt(all, i, lex, section) : undefined;
    if (!idiom) {
      if (isContentWord(all[i], from)) run.push(tokens[i]);
      i++;
      continue;
    }
    translateRun(run);
    run = [];
    const g = new Set<string>();
    addTranslations(idiom.targets, g);
    for (let s = 0; s < idiom.content; s++) groups.push(g);
    i += idiom.span;
  }
  translateRun(run);
  for (const id of idents) {
    groups.push(new Set(words(id).map((w) => stem(w, to))));
    carried.push(id);
  }
  if (added.length === 0) return undefined;
  return { kind: 'translation', lang: to, text: [...added, ...carried].join(' '), added, groups };
}

interface Token {
  /** Lower-cased. */
  word: string;
  /** As written. */
  raw: string;
  /** First word of the question or of one of its sentences. */
  initial: boolean;
}

/** The question's words (letters and digits), lower-cased and as written, with whether each opens a sentence. */
function tokenize(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) {
    // The last character before the word that is not white space: none, or a sentence's end.
    let j = m.index - 1;
    while (j >= 0 && /\s/.test(text[j])) j--;
    out.push({ word: m[0].toLowerCase(), raw: m[0], initial: j < 0 || '.!?:;'.includes(text[j]) });
  }
  return out;
}

/** The forms a German word's exact key is looked up by: as written where the question's capitals say something. */
function germanForms(t: Token, capitals: boolean): string[] {
  const capital = t.word.charAt(0).toUpperCase() + t.word.slice(1);
  if (capitals && !t.initial) return [/^\p{Lu}/u.test(t.raw) ? capital : t.word];
  return /^\p{Lu}/u.test(t.raw) ? [capital, t.word] : [t.word, capital];
}

/** The idiom of 3 or 2 words starting at `words[i]` (with a function word and a content word), if the bridge has it. */
function idiomAt(all: string[], i: number, lex: Lexicon, section: string): { targets: string[]; span: number; content: number } | undefined {
  for (let n = Math.min(3, all.length - i); n >= 2; n--) {
    const part = all.slice(i, i + n);
    const content = part.filter((w) => isContentWord(w, 'en')).length;
    if (content === 0 || content === n) continue;
    const targets = lex.get(section, `${IDIOM_MARK}${part.join(' ')}`);
    if (targets) return { targets, span: n, content };
  }
  return undefined;
}

/** Translations by their frequency in the target documents (stable: the dictionary's order among equals). */
export function rankTranslations(targets: string[], frequency?: (term: string) => number): string[] {
  if (!frequency) return targets;
  const f = new Map(targets.map((t) => [t, frequency(t)]));
  return [...targets].sort((a, b) => f.get(b)! - f.get(a)!);
}

/**
 * Share of the question's content words found in the best of the first `top` hits (a word counts when one of its
 * group's alternatives occurs in the passage: a stem, or every stem of a phrase). Compares how well a list in one language answers the question with a list in the other.
 * A stem is looked for as a substring of the folded passage text (no tokenising or stemming of passages: microseconds),
 * which also finds it inside German compounds.
 */
export function coverage(hits: SearchHit[], groups: Set<string>[], top = 3): number {
  if (groups.length === 0) return 0;
  // Each group's alternatives as lists of folded stems (a phrase: several); stems under 3 letters say nothing.
  const folded = groups.map((g) =>
    [...g].map((alt) => alt.split(' ').map(fold).filter((x) => x.length >= 3)).filter((alt) => alt.length > 0),
  );
  let best = 0;
  for (const h of hits.slice(0, top)) {
    const text = fold(`${h.passage.headingPath.join(' ')} ${h.passage.text}`);
    const covered = folded.filter((g) => g.some((alt) => alt.every((x) => text.includes(x)))).length;
    best = Math.max(best, covered / groups.length);
  }
  return best;
}

/** Lower case without diacritics (as the German stemmer folds umlauts), ß as ss. */
function fold(text: string): string {
  return text.toLowerCase().normalize('NFD').replace(/\p{M}/gu, '').replace(/ß/g, 'ss');
}

/** The question's own content words as coverage groups (stems in its language). */
export function queryGroups(query: string, queryLang: Lang): Set<string>[] {
  const lang = lexLang(queryLang);
  return contentWords(query, lang).map((w) => new Set([stem(w, lang)]));
}
