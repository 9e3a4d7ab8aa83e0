// Line helpers for formats located by 1-based line ranges.

/** Splits text as stored into lines (on \n; a trailing \r is kept out of the content by callers that trim). */
export function splitLines(text: string): string[] {
  return text.split('\n');
}

export function isBlank(line: string | undefined): boolean {
  return line === undefined || line.trim() === '';
}

/**
 * Shrinks a 1-based inclusive range so it neither starts nor ends on a blank line.
 * Returns null when every line in it is blank.
 */
export function trimRange(lines: string[], startLine: number, endLine: number): { startLine: number; endLine: number } | null {
  let s = startLine;
  let e = Math.min(endLine, lines.length);
  while (s <= e && isBlank(lines[s - 1])) s++;
  while (e >= s && isBlank(lines[e - 1])) e--;
  return s <= e ? { startLine: s, endLine: e } : null;
}
