// Text helpers for answer checking: sentence splitting, content terms (stemmed, German and English), and
// number normalisation tolerant of formats ("1 800 Euro" = "1.800 €", "8,50" = "8.50", "elf" = "11").
import { termsLanguage } from '../text/language';
import { stem } from '../text/stem';
import { CONTENT_STOP_WORDS } from '../text/stopWords';
import { words as tokens } from '../text/words';
import type { Lang } from '../types';

/** Lower-cased words (letters and digits; joined by - or _ they stay one). */
function words(text: string): string[] {
  return tokens(text, { joined: true });
}

/** Stemmed content terms of a text (no stop words, no pure numbers, at least 3 characters). */
export function contentTerms(text: string, lang?: Lang): string[] {
  const l: 'de' | 'en' = lang === 'de' || lang === 'en' ? lang : termsLanguage(text);
  const out: string[] = [];
  for (const w of words(text)) {
    if (w.length < 3 || CONTENT_STOP_WORDS.has(w) || /^\d+$/.test(w) || NUMBER_WORDS[w] !== undefined) continue;
    out.push(stem(w, l));
  }
  return out;
}

/** Stems a text with both stemmers, so a passage matches terms from a sentence in either language analysis. */
export function termSet(text: string): Set<string> {
  const set = new Set<string>();
  for (const w of words(text)) {
    if (w.length < 3 || /^\d+$/.test(w)) continue;
    set.add(w);
    set.add(stem(w, 'de'));
    set.add(stem(w, 'en'));
  }
  return set;
}

const NUMBER_WORDS: Record<string, number> = {
  // "ein/eine/one/a" are left out on purpose: they are mostly articles.
  zwei: 2, drei: 3, vier: 4, fünf: 5, sechs: 6, sieben: 7, acht: 8, neun: 9, zehn: 10, elf: 11, zwölf: 12,
  zwanzig: 20, dreißig: 30, vierzig: 40, fünfzig: 50, sechzig: 60, hundert: 100, tausend: 1000,
  two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12,
  twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, hundred: 100, thousand: 1000,
  zweiten: 2, dritten: 3, vierten: 4, second: 2, third: 3, fourth: 4,
};

// A number: digit groups separated by thin/normal spaces, dots or commas (thousands), with an optional decimal part.
const NUMBER_RE = /\d{1,3}(?:[ \u00a0\u202f.,’']\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?/g;

/** Canonical readings of one number token: "1.800" → {"1800", "1.8"}, "8,50" → {"8.5"}, "1 800" → {"1800"}. */
export function numberReadings(token: string): string[] {
  const readings = new Set<string>();
  const canon = (s: string) => {
    const n = Number(s);
    if (Number.isFinite(n)) readings.add(String(n));
  };
  const t = token.replace(/[\u00a0\u202f’']/g, ' ');
  // Whole token as thousands-grouped integer with a decimal part after the last separator (if 1–2 digits).
  const m = /^(.*?)(?:([.,])(\d{1,2}))?$/.exec(t);
  if (/^\d{1,3}(?:[ .,]\d{3})+$/.test(t)) canon(t.replace(/[ .,]/g, ''));
  if (m && m[2]) canon(`${m[1].replace(/[ .,]/g, '')}.${m[3]}`);
  if (/^\d+[.,]\d+$/.test(t)) canon(t.replace(',', '.'));
  if (/^\d+$/.test(t)) canon(t);
  return [...readings];
}

/** Number tokens written with digits, each with its readings. */
export function digitNumbers(text: string): { token: string; readings: string[] }[] {
  const out: { token: string; readings: string[] }[] = [];
  for (const m of text.matchAll(NUMBER_RE)) out.push({ token: m[0], readings: numberReadings(m[0].trim()) });
  return out;
}

/** Every reading of every number in a text, including number words ("elf" → "11"). */
export function numberSet(text: string): Set<string> {
  const set = new Set<string>();
  for (const n of digitNumbers(text)) {
    for (const r of n.readings) set.add(r);
    // "§ 3 100 Euro" groups as one token; its space-separated parts count too.
    if (/\s/.test(n.token.trim())) for (const part of n.token.trim().split(/\s+/)) for (const r of numberReadings(part)) set.add(r);
  }
  for (const w of words(text)) {
    const v = NUMBER_WORDS[w];
    if (v !== undefined) set.add(String(v));
  }
  return set;
}

/** Whether every number of `needle` (digits or number words) appears in `haystack` in some reading. */
export function numbersContained(needle: string, haystack: string): { ok: boolean; missing: string[] } {
  const have = numberSet(haystack);
  const missing: string[] = [];
  for (const n of digitNumbers(needle)) if (!n.readings.some((r) => have.has(r))) missing.push(n.token.trim());
  for (const w of words(needle)) {
    const v = NUMBER_WORDS[w];
    if (v !== undefined && !have.has(String(v))) missing.push(w);
  }
  return { ok: missing.length === 0, missing };
}

const ABBREVIATIONS = new Set(
  'z.b bzw ca abs nr art vgl ggf usw u.a d.h s.o s.u e.g i.e etc vs fig no st dr prof mr mrs ms bsp gem lit zb'.split(' '),
);

/**
 * Splits text into sentences, keeping citation markers with the sentence they close ("… [1]." and "…. [1]").
 * Line breaks (list items, paragraphs) always end a sentence.
 */
export function splitSentences(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split(/\n+/)) {
    const trimmed = line.trim();
    if (!trimmed) continue;
    let start = 0;
    const re = /[.!?]+["'”»)]?(\s*(?:\[\d+(?:\s*[-–,;]\s*\d+)*\])+)?\s+(?=[\p{Lu}\d„"'«(\[§*-])/gu;
    for (const m of trimmed.matchAll(re)) {
      const end = (m.index ?? 0) + m[0].length;
      const before = trimmed.slice(start, m.index ?? 0);
      const lastWord = (/(\S+)$/.exec(before)?.[1] ?? '').toLowerCase().replace(/\.$/, '');
      if (ABBREVIATIONS.has(lastWord) || /^\d{1,2}$/.test(lastWord) || /^[\p{L}]$/u.test(lastWord)) continue;
      out.push(trimmed.slice(start, end).trim());
      start = end;
    }
    const rest = trimmed.slice(start).trim();
    if (rest) out.push(rest);
  }
  // A sentence that is only citation markers belongs to the previous one.
  const merged: string[] = [];
  for (const s of out) {
    if (/^(?:\[\d+(?:\s*[-–,;]\s*\d+)*\]\s*)+[.!?]?$/.test(s) && merged.length) merged[merged.length - 1] += ` ${s}`;
    else merged.push(s);
  }
  return merged;
}

/** Collapses whitespace and strips light Markdown so a passage can be found in its source text. */
export function normaliseForMatch(text: string): string {
  return text
    .normalize('NFC')
    .replace(/[*_`#>|]/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/** True when one passage's text holds the other's (same file; whitespace and light Markdown ignored), e.g. an L2 inside its L1. */
export function overlapsWholly(a: { path: string; text: string }, b: { path: string; text: string }): boolean {
  if (a.path !== b.path) return false;
  const x = normaliseForMatch(a.text);
  const y = normaliseForMatch(b.text);
  return x.length > 0 && y.length > 0 && (x.includes(y) || y.includes(x));
}
