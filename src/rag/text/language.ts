// Fast German / English / other detection for passages and queries.
// Scores function words (very frequent, language-specific) first, then falls back to character cues
// (umlauts and ß, typical German and English letter sequences) for short texts such as keyword queries.
// No model, no allocation beyond one lowercase copy and the word list: called per passage and per query.
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

const DE_SPANS = new SpanSet(DE_WORDS);
const EN_SPANS = new SpanSet(EN_WORDS);
const LETTER = new WordClass(/^\p{L}$/u);
const APOSTROPHE = 39;

const DE_CHARS = /[äöüß]/g;
const DE_SEQ = /(sch|ch|ung\b|keit|heit|lich|ei|ie|tz|pf|zw|\bge|\bbe|\bver|en\b|z)/g;
const EN_SEQ = /(th|wh|ing\b|tion|ly\b|ee|oo|ou|ea|ow|aw|y\b|'s\b|ce\b|ph|qu|ed\b|s\b|ive\b|al\b|ity\b|ment|c[aou]|ct)/g;

export interface LanguageGuess {
  lang: Lang;
  /** True when the evidence is strong enough to override a document-level language. */
  confident: boolean;
}

/** Detects German, English or other, with a confidence flag. */
export function guessLanguage(text: string): LanguageGuess {
  const sample = (text.length > 1500 ? text.slice(0, 1500) : text).toLowerCase();
  // The words are /[\p{L}']+/u's, found by a scan (no array of strings: this runs for every passage).
  let n = 0;
  let letters = 0;
  let latin = 0;
  let de = 0;
  let en = 0;
  for (let i = 0; i < sample.length; ) {
    if (sample.charCodeAt(i) !== APOSTROPHE && LETTER.at(sample, i) === 0) {
      i++;
      continue;
    }
    const from = i;
    while (i < sample.length) {
      const step = sample.charCodeAt(i) === APOSTROPHE ? 1 : LETTER.at(sample, i);
      if (step === 0) break;
      i += step;
    }
    n++;
    letters += i - from;
    for (let k = from; k < i; k++) if (sample.charCodeAt(k) < 0x250) latin++; // Latin, Latin-1, Latin Extended
    const h = fnv(sample, from, i);
    if (DE_SPANS.has(sample, from, i, h)) de++;
    if (EN_SPANS.has(sample, from, i, h)) en++;
  }
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

/** German, English or other. Fast: called per passage and per query. */
export function detectLanguage(text: string): Lang {
  return guessLanguage(text).lang;
}
