// The German / English / other guess, one implementation for its three uses: a passage or document (`text`), a search
// question (`query`) and the sentence of an answer check that picks a stemmer (`terms`). Each counts German and English
// function words over the text's words, found by one scan (no array of strings: it runs for every passage), then decides:
// - text: by the share of function words, else by character cues (umlauts and ß, typical German and English letter
//   sequences) for short texts such as keyword queries;
// - query: the question's own cues (function words of questions, umlauts, §) outweighing each other, else the `detect`
//   guess (the text guess), else a German suffix;
// - terms: German when its cues outweigh the English ones, else English (a stemmer is needed either way).
// No model; called per passage and per query.
import type { Lang } from '../types';
import { SpanSet, WordClass, fnv } from './scan';

const DE_WORDS = new Set(
  (
    'der die das den dem des ein eine einer eines einem einen und oder aber nicht ist sind war waren wird werden wurde ' +
    'wurden hat haben hatte hatten kann können muss müssen soll sollen darf dürfen mit von zu zum zur auf für bei nach ' +
    'aus über unter vor durch gegen ohne um im am ins vom bis seit als wie wenn dass daß ob auch noch nur schon sich ' +
    'sie er es wir ihr ich du man sein seine seiner ihre ihrem ihren dieser diese dieses diesem diesen jeder jede ' +
    'jedes welche welcher welches wer was wo wann warum wieso weshalb mein meine kein keine keinen nicht mehr sowie ' +
    'soweit sofern insbesondere gilt gelten hierbei dabei dafür darüber worden sei seien bzw gemäß welchem welchen ' +
    'wann wieviel viele wurden zwischen während unter ab ich mich mir dich dir uns euch nein ja doch denn weil obwohl ' +
    'wessen wem wen deren dessen'
  ).split(/\s+/),
);

const EN_WORDS = new Set(
  (
    'the a an and or but not is are was were be been being has have had do does did can could must shall should will ' +
    'would may might of to on at for with from by about into over under after before through between without ' +
    'this that these those it its they them their there here which who whom whose what when where why how if then ' +
    'than so such as also only just you your we our he she his her i my me any each every no more most other some ' +
    'all both use used using via per'
  ).split(/\s+/),
);

// Words that are function words in both languages are excluded above on purpose ("in", "so", "was" count for both
// lists where they appear; the difference decides).

/** German and English function words (used as a stop list by the builtin embedder). */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set([...DE_WORDS, ...EN_WORDS]);

// The function words of questions (`query`), and the few most frequent ones of both languages (`terms`).
const QUERY_DE_WORDS = new Set(
  ('der die das den dem des ein eine einen einem einer und oder nicht ist sind wird werden wie was wann wer wo welche welcher welches ' +
    'muss müssen kann können darf dürfen ich mein meine mir mich bei beim nach vor für mit ohne über unter zwischen vom zum zur im ' +
    'auch noch nur wenn ob dass sich gilt gelten hat haben habe bis seit laut gibt es mehr als weniger alle zwischen ' +
    'man mindestens darf dürfen soll sollen muß eines einer ' +
    'welchem welchen wurde wurden war waren hatte hatten seine ihre ihren gegen zum heute immer')
    .split(/\s+/),
);
const QUERY_EN_WORDS = new Set(
  ('the a an and or not is are were be been how what when who where which why do does did can could should would must may ' +
    'i my me you your it its of to in on for with without by from into about between than then this that these those there ' +
    'if all')
    .split(/\s+/),
);
const TERMS_DE_WORDS = 'der die das und ist nicht ein eine mit für auf den dem wird werden wie welche muss kann ich nach bei sie'.split(' ');
const TERMS_EN_WORDS = 'the and is are not of to with for on how what which can must does do i my when you it'.split(' ');

/** What a word is: letters and apostrophes (`text`), letters (`query`), letters and digits, joined by - or _ (`terms`). */
type WordKind = 'letters-apostrophes' | 'letters' | 'joined';

interface Profile {
  words: WordKind;
  de: SpanSet;
  en: SpanSet;
  /** Only the text's first characters are read. */
  sample: number;
}

const LETTER = new WordClass(/^\p{L}$/u);
const LETTER_OR_DIGIT = new WordClass(/^[\p{L}\p{N}]$/u);
const APOSTROPHE = 39;

const PROFILES: Record<'text' | 'query' | 'terms', Profile> = {
  text: { words: 'letters-apostrophes', de: new SpanSet(DE_WORDS), en: new SpanSet(EN_WORDS), sample: 1500 },
  query: { words: 'letters', de: new SpanSet(QUERY_DE_WORDS), en: new SpanSet(QUERY_EN_WORDS), sample: Infinity },
  terms: { words: 'joined', de: new SpanSet(TERMS_DE_WORDS), en: new SpanSet(TERMS_EN_WORDS), sample: Infinity },
};

interface Counts {
  /** Words, their letters, the letters of Latin script, German and English function words among them. */
  n: number;
  letters: number;
  latin: number;
  de: number;
  en: number;
}

/** Length of the word character at i (0: none) for a word kind. */
function wordChar(kind: WordKind, text: string, i: number): number {
  if (kind === 'letters') return LETTER.at(text, i);
  if (kind === 'joined') return LETTER_OR_DIGIT.at(text, i);
  return text.charCodeAt(i) === APOSTROPHE ? 1 : LETTER.at(text, i);
}

/** Counts the words of a lower-cased sample and the function words among them. */
function countWords(sample: string, p: Profile): Counts {
  const c: Counts = { n: 0, letters: 0, latin: 0, de: 0, en: 0 };
  for (let i = 0; i < sample.length; ) {
    if (wordChar(p.words, sample, i) === 0) {
      i++;
      continue;
    }
    const from = i;
    for (;;) {
      while (i < sample.length) {
        const step = wordChar(p.words, sample, i);
        if (step === 0) break;
        i += step;
      }
      // `joined`: "opt-level" is one word (and never a function word).
      const sep = sample.charCodeAt(i);
      if (p.words !== 'joined' || (sep !== 45 && sep !== 95) || i + 1 >= sample.length || LETTER_OR_DIGIT.at(sample, i + 1) === 0) break;
      i++;
    }
    c.n++;
    c.letters += i - from;
    for (let k = from; k < i; k++) if (sample.charCodeAt(k) < 0x250) c.latin++; // Latin, Latin-1, Latin Extended
    const h = fnv(sample, from, i);
    if (p.de.has(sample, from, i, h)) c.de++;
    if (p.en.has(sample, from, i, h)) c.en++;
  }
  return c;
}

const DE_CHARS = /[äöüß]/g;
const DE_SEQ = /(sch|ch|ung\b|keit|heit|lich|ei|ie|tz|pf|zw|\bge|\bbe|\bver|en\b|z)/g;
const EN_SEQ = /(th|wh|ing\b|tion|ly\b|ee|oo|ou|ea|ow|aw|y\b|'s\b|ce\b|ph|qu|ed\b|s\b|ive\b|al\b|ity\b|ment|c[aou]|ct)/g;

export interface LanguageGuess {
  lang: Lang;
  /** True when the evidence is strong enough to override a document-level language (`text` only). */
  confident: boolean;
}

export interface GuessOptions {
  /** What the text is (see above); default `text`. */
  as?: 'text' | 'query' | 'terms';
  /** `query`: the guess for a question whose own cues are even (the retriever passes the text guess). */
  detect?: (text: string) => Lang;
}

/** Guesses German, English or other (`terms`: German or English). */
export function guessLanguage(text: string, options: GuessOptions = {}): LanguageGuess {
  const as = options.as ?? 'text';
  const p = PROFILES[as];
  const sample = (text.length > p.sample ? text.slice(0, p.sample) : text).toLowerCase();
  const c = countWords(sample, p);
  if (as === 'query') return { lang: queryDecision(text, sample, c, options.detect), confident: false };
  if (as === 'terms') return { lang: (/[äöüß]/i.test(text) ? 2 : 0) + c.de > c.en ? 'de' : 'en', confident: false };
  return textDecision(sample, c);
}

/** A question: umlauts/ß, § and its function words decide, then the detector, then a German suffix or English. */
function queryDecision(query: string, lower: string, c: Counts, detect?: (text: string) => Lang): Lang {
  const de = c.de + (/[äöüß]/i.test(query) ? 1.5 : 0) + (/§/.test(query) ? 1 : 0);
  if (de > c.en) return 'de';
  if (c.en > de) return 'en';
  const d = detect?.(query);
  if (d && d !== 'other') return d;
  return c.n ? (/(ung|keit|heit|schaft|lich|gesetz)\b/.test(lower) ? 'de' : 'en') : 'other';
}

function textDecision(sample: string, c: Counts): LanguageGuess {
  const { n, letters, latin, de, en } = c;
  if (n === 0) return { lang: 'other', confident: false };
  // Mostly non-Latin script (Arabic, CJK, Cyrillic...): other.
  if (latin < letters * 0.6) return { lang: 'other', confident: letters >= 20 };
  if (n >= 6) {
    const best = Math.max(de, en);
    // Function words make up 30–50 % of running German or English text; far less in other languages.
    if (best / n >= 0.12 && de !== en) {
      return { lang: de > en ? 'de' : 'en', confident: best >= 3 && Math.abs(de - en) >= 2 };
    }
    if (best / n < 0.05 && n >= 12) return { lang: 'other', confident: n >= 20 };
  }
  // Short text or keyword query: character cues.
  const umlauts = sample.match(DE_CHARS)?.length ?? 0;
  const deSeq = sample.match(DE_SEQ)?.length ?? 0;
  const enSeq = sample.match(EN_SEQ)?.length ?? 0;
  const deScore = de * 3 + umlauts * 3 + deSeq;
  const enScore = en * 3 + enSeq;
  if (deScore === enScore) return { lang: 'other', confident: false };
  return { lang: deScore > enScore ? 'de' : 'en', confident: false };
}

/** German, English or other of a passage or document. Fast: called per passage and per query. */
export function detectLanguage(text: string): Lang {
  return guessLanguage(text).lang;
}

/** Language of a (short) search question: its own cues, then `detect` when they are even (search/analyze.ts). */
export function queryLanguage(query: string, detect?: (text: string) => Lang): Lang {
  return guessLanguage(query, { as: 'query', detect }).lang;
}

/** German or English, for the stemmer of a sentence without a known language (answer/text.ts). */
export function termsLanguage(text: string): 'de' | 'en' {
  return guessLanguage(text, { as: 'terms' }).lang as 'de' | 'en';
}
