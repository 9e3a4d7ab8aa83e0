// Sentence boundaries for German and English prose, tuned for legal and technical text.
// A boundary is . ! ? … (plus closing quotes/brackets) followed by whitespace and a sentence start
// (capital letter, digit, opening quote/bracket, §), or a blank line. Not a boundary:
//  - abbreviations ("Abs.", "Nr.", "z. B.", "bzw.", "ggf.", "S.", "Art.", "e.g.", "i.e.", "Dr." ...) and single
//    letters (initials, "z. B.", "i. V. m.");
//  - German ordinals: "am 1. Januar", "der 3. Abschnitt" (a number after an article/preposition, or before a month);
//  - dotted numbers and dates without spaces ("20.4.2013", "3.5") never are candidates.
import type { Lang } from '../types';

export interface SentenceSpan {
  text: string;
  /** Offset of the first character in the input. */
  start: number;
  /** Offset after the last character. */
  end: number;
}

const ABBREVIATIONS = new Set(
  (
    // German
    'abs nr nrn art s bzw ggf z b d h u a o ä vgl usw etc ca dr prof hrsg bd jh evtl inkl zzgl exkl sog gem ziff lit ' +
    'buchst anm abschn kap tab abb st str geb mio mrd tsd max min bzgl v f ff bl anh urt beschl az rn rdnr tz allg ' +
    'entspr einschl vorl zit insb abschl halbs var nachf ua ggü dgl mwst ust zt vs hr fr ' +
    'jan feb febr mär apr jun jul aug sep sept okt nov dez tel bspw ehem ursprüngl verf ' +
    // English
    'e g i mr mrs ms jr sr inc ltd co corp no fig figs eq eqs al approx cf resp sec secs vol vols pp p ch chap ed eds ' +
    'dept misc oct mar ref refs viz'
  ).split(/\s+/),
);

const MONTHS_DE = new Set(
  'januar februar märz april mai juni juli august september oktober november dezember jänner'.split(' '),
);

/** Words after which "<number>." is an ordinal ("der 3. Abschnitt", "am 1. Mai", "vom 20. Juli"). */
const ORDINAL_CONTEXT_DE = new Set(
  (
    'der die das dem den des am im vom zum zur bis ab seit nach vor ein eine einer eines einem einen jeder jede ' +
    'jedes jeden jedem dieser diese dieses diesem diesen seinem seiner ihrem ihrer bis zum spätestens frühestens'
  ).split(' '),
);

const CLOSERS = '"\'”’»«)]}';
const OPENERS = '"\'“„‚«»([{§¿¡';

function isUpperStart(ch: string): boolean {
  return ch !== ch.toLowerCase() && ch === ch.toUpperCase();
}

function isSentenceStart(ch: string | undefined): boolean {
  if (ch === undefined) return true;
  return isUpperStart(ch) || /[0-9]/.test(ch) || OPENERS.includes(ch) || ch === '-' || ch === '*' || ch === '•';
}

/** The word (letters only) ending right before `dotIndex`, and the word before it. */
function wordsBefore(text: string, dotIndex: number): { word: string; prev: string; numeric: boolean } {
  let i = dotIndex - 1;
  while (i >= 0 && /[\p{L}\p{N}]/u.test(text[i])) i--;
  const word = text.slice(i + 1, dotIndex);
  let j = i;
  while (j >= 0 && /\s/.test(text[j])) j--;
  let k = j;
  while (k >= 0 && /[\p{L}\p{N}§]/u.test(text[k])) k--;
  const prev = text.slice(k + 1, j + 1);
  return { word, prev, numeric: /^\d+$/.test(word) };
}

function nextWord(text: string, from: number): string {
  const m = /^[\p{L}\p{N}]+/u.exec(text.slice(from, from + 40));
  return m ? m[0] : '';
}

/** Whether a sentence ends at the terminator at `i` (the last char of the terminator run is at `termEnd - 1`). */
function isBoundary(text: string, i: number, termEnd: number, nextStart: number, lang: Lang, sentenceStart: number): boolean {
  const ch = text[i];
  // An enumerator opening the sentence ("1. Cargo spawns...", "2. Die Frist...") is not a sentence of its own.
  // The same for an enumerator at the start of a line.
  if (ch === '.') {
    const lineStart = Math.max(sentenceStart, text.lastIndexOf('\n', i - 1) + 1);
    if (/^[\s(]*(?:[0-9]{1,3}|[a-zA-Z])$/.test(text.slice(lineStart, i))) return false;
  }
  const next = text[nextStart];
  if (!isSentenceStart(next)) return false;
  if (ch !== '.') return true; // ! ? … followed by a sentence start
  if (termEnd - i > 1) return true; // "..." ellipsis run followed by a capital
  const { word, prev, numeric } = wordsBefore(text, i);
  const lower = word.toLowerCase();
  if (word.length === 0) return true;
  if (numeric) {
    const nw = nextWord(text, nextStart).toLowerCase();
    if (MONTHS_DE.has(nw)) return false;
    if (lang !== 'en' && word.length <= 3 && ORDINAL_CONTEXT_DE.has(prev.toLowerCase()) && isUpperStart(next ?? '')) return false;
    return true;
  }
  if (word.length === 1 && /\p{L}/u.test(word)) return false; // initials, "z. B.", "S."
  if (ABBREVIATIONS.has(lower)) return false;
  return true;
}

/**
 * Splits text into sentences with their offsets. Whitespace between sentences belongs to no sentence.
 * A blank line always ends a sentence (paragraphs, list items).
 */
export function splitSentences(text: string, lang: Lang): SentenceSpan[] {
  const out: SentenceSpan[] = [];
  const n = text.length;
  let start = 0;
  const push = (s: number, e: number) => {
    while (s < e && /\s/.test(text[s])) s++;
    while (e > s && /\s/.test(text[e - 1])) e--;
    if (e > s) out.push({ text: text.slice(s, e), start: s, end: e });
  };
  const candidates = /[.!?…\n]/g;
  let i = 0;
  while (i < n) {
    // Jump to the next possible boundary character (most characters are not).
    candidates.lastIndex = i;
    const found = candidates.exec(text);
    if (!found) break;
    i = found.index;
    const ch = text[i];
    if (ch === '\n') {
      // Blank line → hard boundary.
      let j = i + 1;
      while (j < n && (text[j] === ' ' || text[j] === '\t' || text[j] === '\r')) j++;
      if (j < n && text[j] === '\n') {
        push(start, i);
        while (j < n && /\s/.test(text[j])) j++;
        start = j;
        i = j;
        continue;
      }
      i++;
      continue;
    }
    if (ch === '.' || ch === '!' || ch === '?' || ch === '…') {
      let termEnd = i + 1;
      while (termEnd < n && '.!?…'.includes(text[termEnd])) termEnd++;
      let closeEnd = termEnd;
      while (closeEnd < n && CLOSERS.includes(text[closeEnd])) closeEnd++;
      if (closeEnd >= n) break; // end of text
      if (!/\s/.test(text[closeEnd])) {
        i = closeEnd;
        continue; // "3.5", "crates.io", "z.B."
      }
      let nextStart = closeEnd;
      while (nextStart < n && /\s/.test(text[nextStart])) nextStart++;
      if (nextStart >= n) break;
      if (isBoundary(text, i, termEnd, nextStart, lang, start)) {
        push(start, closeEnd);
        start = nextStart;
        i = nextStart;
        continue;
      }
      i = closeEnd;
      continue;
    }
    i++;
  }
  push(start, n);
  return out;
}
