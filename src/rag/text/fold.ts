// Text folding for matching across spelling variants: lowercase, German umlauts and ß spelled out, other diacritics
// dropped ("Kündigung" and "Kuendigung" fold alike). Used by the builtin embedder (embed/builtin.ts) and by the
// vector list's query-adaptive weight (search/vectorWeight.ts).

const FOLD: Record<string, string> = { ä: 'ae', ö: 'oe', ü: 'ue', ß: 'ss' };

/** Lowercase, fold German umlauts and ß, strip other diacritics. */
export function foldText(text: string): string {
  let t = text.toLowerCase();
  if (/[äöüß]/.test(t)) t = t.replace(/[äöüß]/g, (c) => FOLD[c]);
  // Other accented Latin letters (é, ñ, ç...): decompose and drop the marks. "§", dashes and quotes need nothing.
  if (/[\u00c0-\u024f\u1e00-\u1eff]/.test(t)) t = t.normalize('NFD').replace(/\p{M}+/gu, '');
  return t;
}
