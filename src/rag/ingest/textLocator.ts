// Finds block texts again inside a reference text (e.g. mammoth's raw text) to give them character offsets.
// Matching ignores whitespace entirely (line breaks and cell separators differ between the two extractions).

export class TextLocator {
  private readonly squeezed: string;
  /** squeezed index → index in the original text. */
  private readonly map: number[];
  private cursor = 0;

  constructor(readonly original: string) {
    let out = '';
    const map: number[] = [];
    for (let i = 0; i < original.length; i++) {
      const ch = original[i];
      if (/\s/.test(ch)) continue;
      out += ch;
      map.push(i);
    }
    this.squeezed = out;
    this.map = map;
  }

  /**
   * Locates text that starts with `first` and ends with `last`, searching forward from the end of the previous match.
   * Returns original [start, end) offsets, or null when not found.
   */
  locate(first: string, last: string = first): { start: number; end: number } | null {
    const f = squeeze(first).slice(0, 60);
    const l = squeeze(last).slice(-60);
    if (!f || !l) return null;
    let s = this.squeezed.indexOf(f, this.cursor);
    // Out of order (e.g. a text box anchored earlier): search from the start without moving the cursor back.
    const inOrder = s >= 0;
    if (!inOrder) s = this.squeezed.indexOf(f);
    if (s < 0) return null;
    const e = this.squeezed.indexOf(l, s + Math.max(0, squeeze(first).length - l.length));
    if (e < 0) return null;
    const endSqueezed = e + l.length;
    if (inOrder) this.cursor = endSqueezed;
    return { start: this.map[s], end: this.map[endSqueezed - 1] + 1 };
  }
}

function squeeze(text: string): string {
  return text.replace(/\s+/g, '');
}
