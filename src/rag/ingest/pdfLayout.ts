// Turns pdf.js text items of one page into reading-order lines: items → line fragments → (two-column aware) order.
// Pure functions over plain numbers so they can be tested without pdf.js.

export interface PdfTextItem {
  str: string;
  /** Left x, baseline y in PDF space (origin bottom-left). */
  x: number;
  y: number;
  width: number;
  /** Font size (vertical scale of the text matrix). */
  size: number;
  hasEOL: boolean;
}

/** A run of items on one baseline without a large horizontal gap. */
export interface LineFragment {
  text: string;
  x0: number;
  x1: number;
  y: number;
  size: number;
}

/** Groups items (in content-stream order) into line fragments. A gap wider than ~1.5 em starts a new fragment (column gutter, table cell). */
export function buildFragments(items: PdfTextItem[]): LineFragment[] {
  const out: LineFragment[] = [];
  let cur: LineFragment | null = null;
  for (const item of items) {
    if (item.str.length > 0 && item.str.trim().length === 0 && cur && !item.hasEOL) {
      // An explicit space item: extend the fragment if it sits on the same line.
      if (Math.abs(item.y - cur.y) < cur.size * 0.5) {
        if (!cur.text.endsWith(' ')) cur.text += ' ';
        cur.x1 = Math.max(cur.x1, item.x + item.width);
      }
      continue;
    }
    if (item.str.length > 0) {
      const size = item.size > 0 ? item.size : 1;
      const sameLine =
        cur !== null &&
        Math.abs(item.y - cur.y) < Math.max(cur.size, size) * 0.5 &&
        item.x >= cur.x1 - Math.max(cur.size, size) * 0.6 &&
        item.x - cur.x1 < Math.max(cur.size, size) * 1.5;
      if (cur && sameLine) {
        const gap = item.x - cur.x1;
        if (gap > size * 0.12 && !cur.text.endsWith(' ') && !item.str.startsWith(' ')) cur.text += ' ';
        cur.text += item.str;
        cur.x1 = Math.max(cur.x1, item.x + item.width);
        cur.size = Math.max(cur.size, size);
      } else {
        if (cur) out.push(cur);
        cur = { text: item.str, x0: item.x, x1: item.x + item.width, y: item.y, size };
      }
    }
    if (item.hasEOL && cur) {
      out.push(cur);
      cur = null;
    }
  }
  if (cur) out.push(cur);
  return out.map((f) => ({ ...f, text: f.text.replace(/\s+/g, ' ').trim() })).filter((f) => f.text.length > 0);
}

/**
 * Reading order of one page. On a two-column page (enough text entirely left and entirely right of the middle),
 * the page is cut into bands at full-width lines; inside a band the left column is read top to bottom, then the right.
 * Single-column pages keep the content-stream order, which is what the producer intended.
 */
export function orderFragments(fragments: LineFragment[], pageLeft: number, pageRight: number): { ordered: LineFragment[]; columns: 1 | 2 } {
  const width = pageRight - pageLeft;
  const mid = pageLeft + width / 2;
  const slack = width * 0.02;
  const side = (f: LineFragment): 'L' | 'R' | 'S' => (f.x1 <= mid + slack ? 'L' : f.x0 >= mid - slack ? 'R' : 'S');
  let left = 0;
  let right = 0;
  let total = 0;
  let leftCount = 0;
  let rightCount = 0;
  for (const f of fragments) {
    const n = f.text.length;
    total += n;
    const s = side(f);
    if (s === 'L') {
      left += n;
      leftCount++;
    } else if (s === 'R') {
      right += n;
      rightCount++;
    }
  }
  const twoColumns = total > 0 && left / total >= 0.2 && right / total >= 0.2 && leftCount >= 5 && rightCount >= 5;
  if (!twoColumns) return { ordered: fragments, columns: 1 };
  const byTop = [...fragments].sort((a, b) => b.y - a.y || a.x0 - b.x0);
  const ordered: LineFragment[] = [];
  let band: LineFragment[] = [];
  const flush = (): void => {
    ordered.push(...band.filter((f) => side(f) === 'L'), ...band.filter((f) => side(f) === 'R'));
    band = [];
  };
  for (const f of byTop) {
    if (side(f) === 'S') {
      flush();
      ordered.push(f);
    } else {
      band.push(f);
    }
  }
  flush();
  return { ordered, columns: 2 };
}

/**
 * Joins two lines of running text. A word broken at the line end ("Zeit-" + "raum") is rejoined without the hyphen;
 * a hyphen before a capitalised word ("Arbeitszeit-" + "Gesetz") or a digit is a real one and stays, without a space.
 */
export function joinLines(previous: string, next: string, vocabulary?: ReadonlySet<string>): string {
  if (previous.length === 0) return next;
  if (previous.endsWith('\u00AD')) return previous.slice(0, -1) + next;
  const m = /(\p{L}+)[-\u2010]$/u.exec(previous);
  if (m) {
    if (/^\p{Ll}/u.test(next)) {
      // "trace-" + "compilation": a compound that the document also writes hyphenated inside a line keeps its hyphen.
      const head = m[1].toLowerCase();
      const tail = (/^\p{L}+/u.exec(next)?.[0] ?? '').toLowerCase();
      if (vocabulary && vocabulary.has(`${head}-${tail}`) && !vocabulary.has(head + tail)) return previous + next;
      return previous.slice(0, -1) + next;
    }
    if (/^[\p{Lu}\p{N}]/u.test(next)) return previous + next;
  }
  return `${previous} ${next}`;
}

/** Lower-case words of the document, hyphenated compounds kept whole ("trace-compilation"), for joinLines. */
export function vocabularyOf(lines: Iterable<string>): Set<string> {
  const vocabulary = new Set<string>();
  for (const line of lines) {
    // The last word of a line may be a broken one ("com-"): leave it out.
    const words = line.toLowerCase().match(/\p{L}+(?:-\p{L}+)*-?/gu) ?? [];
    for (const w of words) if (!w.endsWith('-')) vocabulary.add(w);
  }
  return vocabulary;
}

/** Spacing accents that TeX-made PDFs place before the letter they belong to. */
const SPACING_ACCENTS: Record<string, string> = {
  '\u00A8': '\u0308', // ¨ diaeresis
  '\u00B4': '\u0301', // ´ acute
  '\u02C6': '\u0302', // ˆ circumflex
  '\u02DC': '\u0303', // ˜ tilde
  '\u02C7': '\u030C', // ˇ caron
  '\u02DA': '\u030A', // ˚ ring
  '\u00B8': '\u0327', // ¸ cedilla
};

/** "na¨ıve" → "naïve": a spacing accent directly before a letter becomes a combining one on that letter (then NFC). */
export function composeSpacingAccents(text: string): string {
  if (!/[\u00A8\u00B4\u02C6\u02DC\u02C7\u02DA\u00B8]/.test(text)) return text;
  return text
    .replace(/([\u00A8\u00B4\u02C6\u02DC\u02C7\u02DA\u00B8]) ?([A-Za-z\u0131\u0237])/g, (_m, accent: string, letter: string) => {
      const base = letter === '\u0131' ? 'i' : letter === '\u0237' ? 'j' : letter;
      return base + SPACING_ACCENTS[accent];
    })
    .normalize('NFC');
}

/** A page-number line: "3", "- 3 -", "Seite 3 von 13", "Page 3 of 13", "3/13". */
const PAGE_NUMBER = /^\W*(?:(?:seite|page|p\.|s\.)\s*)?\d+(?:\s*(?:von|of|\/)\s*\d+)?\W*$/i;

/** Running-header/footer key: case and spacing do not matter; all page-number lines share one key. */
function runningKey(text: string): string {
  const t = text.toLowerCase().replace(/\s+/g, ' ').trim();
  return PAGE_NUMBER.test(t) ? '#page-number' : t;
}

/** The fragments in the top and bottom `depth` line positions of a page (by baseline). */
function marginFragments(lines: LineFragment[], depth: number): LineFragment[] {
  const ys = [...new Set(lines.map((l) => Math.round(l.y)))].sort((a, b) => b - a);
  // Short pages: only the very first and last line can be margins.
  const d = ys.length >= 3 * depth ? depth : 1;
  const edge = new Set([...ys.slice(0, d), ...ys.slice(-d)]);
  return lines.filter((l) => edge.has(Math.round(l.y)));
}

/**
 * Removes running headers and footers: text in the top or bottom two line positions that recurs verbatim on at least
 * half of the pages, and on at least 3; page-number lines count as one text. Returns new line arrays.
 */
export function dropRunningLines(pages: LineFragment[][]): LineFragment[][] {
  if (pages.length < 3) return pages;
  const counts = new Map<string, number>();
  for (const lines of pages) {
    for (const key of new Set(marginFragments(lines, 2).map((l) => runningKey(l.text)))) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const threshold = Math.max(3, Math.ceil(pages.length / 2));
  const running = new Set([...counts].filter(([, n]) => n >= threshold).map(([k]) => k));
  if (running.size === 0) return pages;
  return pages.map((lines) => {
    const margin = new Set(marginFragments(lines, 2));
    return lines.filter((l) => !(margin.has(l) && running.has(runningKey(l.text))));
  });
}
