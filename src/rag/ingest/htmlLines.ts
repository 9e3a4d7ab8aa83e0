// Maps text found by the HTML loader back to 1-based line ranges of the source HTML (as decoded and split on \n).
// The source is reduced to its letters and digits outside tags, comments, scripts and styles (entities decoded),
// remembering the line of each; a block is found by its first and last letters/digits, searching forward in order.

const ALNUM = /[\p{L}\p{N}]/u;

export class HtmlLineLocator {
  private readonly chars: string;
  private readonly lines: Int32Array;
  private cursor = 0;

  constructor(source: string, decodeEntity: (entity: string) => string) {
    let chars = '';
    const lines: number[] = [];
    let line = 1;
    let i = 0;
    const n = source.length;
    const push = (text: string): void => {
      for (const ch of text) {
        if (ALNUM.test(ch)) {
          chars += ch.toLowerCase();
          lines.push(line);
        }
      }
    };
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
          const tag = lower.startsWith('<script') ? '</script' : '</style';
          end = indexOrEnd(source.toLowerCase(), tag, i);
          end = indexOrEnd(source, '>', end) + 1;
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
        if (ALNUM.test(ch)) {
          chars += ch.toLowerCase();
          lines.push(line);
        } else if (ch >= '\uD800' && ch <= '\uDBFF') {
          push(source.slice(i, i + 2));
          i++;
        }
        i++;
      }
    }
    this.chars = chars;
    this.lines = Int32Array.from(lines);
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
    return { startLine: this.lines[s], endLine: this.lines[e + last.length - 1] };
  }
}

function indexOrEnd(s: string, needle: string, from: number): number {
  const i = s.indexOf(needle, from);
  return i < 0 ? s.length : i;
}
