// Model-free query expansion: a keyword-only variant with German compounds split into parts and every
// word reduced to its Snowball stem, so "Kündigungsschutzklage" also matches "Kündigungsschutz ... Klage".
import type { Lang } from '../types';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const snowball = require('snowball-stemmers') as { newStemmer(lang: string): { stem(word: string): string } };

const stemmers = new Map<string, { stem(word: string): string }>();
function stemmer(lang: 'de' | 'en') {
  let s = stemmers.get(lang);
  if (!s) {
    s = snowball.newStemmer(lang === 'de' ? 'german' : 'english');
    stemmers.set(lang, s);
  }
  return s;
}

/** Common heads and modifiers of German legal/administrative compounds; a split happens only at these. */
const DE_PARTS = [
  'schutz', 'klage', 'frist', 'urlaub', 'arbeit', 'zeit', 'lohn', 'geld', 'recht', 'vertrag', 'gesetz', 'pflicht', 'kündigung',
  'entgelt', 'zahlung', 'fortzahlung', 'krankheit', 'mutter', 'eltern', 'teil', 'betrieb', 'rat', 'stunde', 'tag', 'woche',
  'monat', 'jahr', 'ruhe', 'pause', 'schicht', 'nacht', 'sonn', 'feier', 'mindest', 'höchst', 'dauer', 'anspruch', 'verbot',
  'beschäftigung', 'geber', 'nehmer', 'leistung', 'versicherung', 'kasse', 'meldung', 'antrag', 'bescheinigung', 'wartezeit',
];

const PARTS_LONGEST_FIRST = [...DE_PARTS].sort((a, b) => b.length - a.length);

/** Splits a German compound at known parts (with linking -s-/-es-/-n-/-en-); returns [] when no split is found. */
export function splitCompound(word: string): string[] {
  const w = word.toLowerCase();
  if (w.length < 9) return [];
  for (const part of PARTS_LONGEST_FIRST) {
    // tail = a known part at the end, head = the rest minus a linking element
    if (w.endsWith(part) && w.length - part.length >= 4) {
      let head = w.slice(0, w.length - part.length);
      for (const link of ['es', 's', 'en', 'n']) if (head.endsWith(link) && head.length - link.length >= 4) { head = head.slice(0, -link.length); break; }
      return [...(splitCompound(head).length ? splitCompound(head) : [head]), part];
    }
  }
  return [];
}

/** The keyword-only variant, or undefined when it would equal the query. */
export function lexicalVariant(query: string, lang: Lang): string | undefined {
  const words = query.match(/[\p{L}\p{N}]+/gu) ?? [];
  const l: 'de' | 'en' = lang === 'de' ? 'de' : 'en';
  const out: string[] = [];
  for (const w of words) {
    const parts = l === 'de' ? splitCompound(w) : [];
    for (const p of parts.length ? parts : [w]) out.push(stemmer(l).stem(p.toLowerCase()));
  }
  const v = out.join(' ');
  return v && v !== query.toLowerCase() ? v : undefined;
}
