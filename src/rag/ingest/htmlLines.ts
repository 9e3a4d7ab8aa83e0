// Maps text found by the HTML loader back to 1-based line ranges of the source HTML (as decoded and split on \n).
// The source is reduced to its letters and digits outside tags, comments, scripts and styles (entities decoded),
// remembering the line of each; a block is found by its first and last letters/digits, searching forward in order.

const ALNUM = /[\p{L}\p{N}]/u;

export class HtmlLineLocator {
  private readonly chars: string;
  /** The lines of `chars` as runs: chars from runStarts[i] (to the next run) lie on line runLines[i]. */
  private readonly runStarts: Int32Array;
  private readonly runLines: Int32Array;
  private cursor = 0;

  constructor(source: string, decodeEntity: (entity: string) => string) {
    // The letters go into a growing UTF-16 buffer and the lines into runs: a string built one `+=` at a time and a
    // number per letter took more memory than a large HTML manual's DOM.
    let buf = new Uint16Array(Math.min(Math.max(source.length, 16), 1 << 20));
    let count = 0;
    const starts: number[] = [];
    const runLines: number[] = [];
    let line = 1;
    let i = 0;
    const n = source.length;
    const add = (lower: string): void => {
      if (starts.length === 0 || runLines[runLines.length - 1] !== line) {
        starts.push(count);
        runLines.push(line);
      }
      for (let k = 0; k < lower.length; k++) {
        if (count === buf.length) {
          const grown = new Uint16Array(buf.length * 2);
          grown.set(buf);
          buf = grown;
        }
        buf[count++] = lower.charCodeAt(k);
      }
    };
    const push = (text: string): void => {
      for (const ch of text) if (ALNUM.test(ch)) add(ch.toLowerCase());
    };
    const closing = /<\/(script|style)/gi;
    while (i < n) {
      const ch = source[i];
      if (ch === '\n') {
        line++;
        i++;
      } else if (ch === '<') {
        let end: number;
        const lower = source.slice(i, i + 9).toLowerCase();
        if (source.startsWith('<!--', i)) end = indexOrEnd(source, '-->', i + 4) + 3;
        else if (lower.startsWith('<script') || lower.startsWith('<style')) {
          // The matching closing tag, found case-insensitively without a lower-cased copy of the whole source.
          const tag = lower.startsWith('<script') ? 'script' : 'style';
          closing.lastIndex = i;
          let m: RegExpExecArray | null;
          while ((m = closing.exec(source)) && m[1].toLowerCase() !== tag);
          end = indexOrEnd(source, '>', m ? m.index : n) + 1;
        } else end = indexOrEnd(source, '>', i) + 1;
        for (let k = i; k < Math.min(end, n); k++) if (source[k] === '\n') line++;
        i = end;
      } else if (ch === '&') {
        const m = /^&(#\d+|#x[0-9a-f]+|[a-z][a-z0-9]*);?/i.exec(source.slice(i, i + 12));
        if (m) {
          push(decodeEntity(m[0]));
          i += m[0].length;
        } else {
          i++;
        }
      } else {
        if (ALNUM.test(ch)) add(ch.toLowerCase());
        else if (ch >= '\uD800' && ch <= '\uDBFF') {
          push(source.slice(i, i + 2));
          i++;
        }
        i++;
      }
    }
    this.chars = Buffer.from(buf.buffer, buf.byteOffset, count * 2).toString('utf16le');
    this.runStarts = Int32Array.from(starts);
    this.runLines = Int32Array.from(runLines);
  }

  /** The line of chars[k]: the run that starts last at or before k. */
  private lineAt(k: number): number {
    let lo = 0;
    let hi = this.runStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.runStarts[mid] <= k) lo = mid;
      else hi = mid - 1;
    }
    return this.runLines[lo];
  }

  /** Line range of a block's text, or null when it cannot be found in order. */
  locate(text: string): { startLine: number; endLine: number } | null {
    const squeezed = [...text].filter((c) => ALNUM.test(c)).join('').toLowerCase();
    if (squeezed.length === 0) return null;
    const first = squeezed.slice(0, 40);
    const last = squeezed.slice(-40);
    const s = this.chars.indexOf(first, this.cursor);
    if (s < 0) return null;
    const e = this.chars.indexOf(last, s + Math.max(0, squeezed.length - last.length));
    // Require the whole block to sit in a plausible span (not a far-away repeat of its last words).
    if (e < 0 || e + last.length - s > squeezed.length * 3 + 200) return null;
    this.cursor = e + last.length;
    return { startLine: this.lineAt(s), endLine: this.lineAt(e + last.length - 1) };
  }
}

function indexOrEnd(s: string, needle: string, from: number): number {
  const i = s.indexOf(needle, from);
  return i < 0 ? s.length : i;
}
