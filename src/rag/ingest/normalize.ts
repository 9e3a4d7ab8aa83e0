// Unicode and whitespace normalisation shared by all loaders.

/** Arabic presentation forms A/B (U+FB50–U+FDFF, U+FE70–U+FEFE): pdf.js emits them for shaped Arabic glyphs. */
const PRESENTATION_FORMS = /[\uFB50-\uFDFF\uFE70-\uFEFE]/;

/**
 * NFC for ordinary text; NFKC when presentation forms appear (so shaped Arabic becomes searchable base letters).
 * Also drops zero-width no-break spaces (BOMs inside text) and NUL characters, and turns other control characters
 * into spaces.
 */
export function normalizeUnicode(text: string): string {
  // C0 control characters other than tab/LF/CR become spaces (some PDF fonts map the space glyph to U+0002).
  const cleaned = text.replace(/[\uFEFF\u0000]/g, '').replace(/[\u0001-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, ' ');
  return PRESENTATION_FORMS.test(cleaned) ? cleaned.normalize('NFKC') : cleaned.normalize('NFC');
}

/** Collapses every run of whitespace (including NBSP) to one space and trims. */
export function collapseWhitespace(text: string): string {
  return text.replace(/[\s\u00A0\u2000-\u200B\u202F\u205F\u3000]+/g, ' ').trim();
}

/**
 * Collapses whitespace inside each line but keeps the line breaks, so a block's text has one line per source line
 * (the chunker narrows passage line ranges by counting them).
 */
export function collapseWithinLines(text: string): string {
  return text
    .split('\n')
    .map((line) => collapseWhitespace(line))
    .join('\n')
    .replace(/^\n+|\n+$/g, '');
}

/** normalizeUnicode + collapseWhitespace. */
export function cleanInline(text: string): string {
  return collapseWhitespace(normalizeUnicode(text));
}

/** A short verbatim excerpt (first words, at most `max` characters, cut at a word boundary). */
export function quoteOf(text: string, max = 120): string {
  const flat = collapseWhitespace(text);
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max);
  const lastSpace = cut.lastIndexOf(' ');
  return lastSpace > max / 2 ? cut.slice(0, lastSpace) : cut;
}

/** True when the text has at least one letter or digit. */
export function hasWords(text: string): boolean {
  return /[\p{L}\p{N}]/u.test(text);
}
