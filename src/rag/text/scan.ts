// Words found by scanning code units, not by regular expressions: the per-passage hot paths (the builtin embedder, the
// language guess) spent a third of their time in /[\p{L}\p{N}]+/gu-style matching and the strings it cut out. A class
// tells whether a code point belongs to a word, answered by the same Unicode-property regex once per code unit (or
// astral code point) and remembered, so the words are exactly the regex's.

export class WordClass {
  /** Per BMP code unit: 0 = not asked yet, 1 = in the class, 2 = not. */
  private readonly units = new Uint8Array(65536);
  private readonly astral = new Map<number, boolean>();

  /** `test` matches one code point that belongs to a word (e.g. /^[\p{L}\p{N}]$/u). */
  constructor(private readonly test: RegExp) {}

  /**
   * Length in code units (1, or 2 for a surrogate pair) of the word character at `i`, or 0 when the code point there
   * is not in the class (a lone surrogate never is, as with a /u regex).
   */
  at(text: string, i: number): number {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        const cp = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
        let yes = this.astral.get(cp);
        if (yes === undefined) this.astral.set(cp, (yes = this.test.test(String.fromCodePoint(cp))));
        return yes ? 2 : 0;
      }
    }
    let k = this.units[c];
    if (k === 0) this.units[c] = k = this.test.test(String.fromCharCode(c)) ? 1 : 2;
    return k === 1 ? 1 : 0;
  }

  /** End (exclusive) of the word that starts at `from`, which must be a word character. */
  wordEnd(text: string, from: number): number {
    let i = from;
    let step = this.at(text, i);
    while (step > 0) {
      i += step;
      step = i < text.length ? this.at(text, i) : 0;
    }
    return i;
  }
}

/** FNV-1a of the code units text[from..to). */
export function fnv(text: string, from: number, to: number): number {
  let h = 0x811c9dc5 | 0;
  for (let i = from; i < to; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h;
}

/** A set of words looked up by a span of a text (and its FNV hash), without cutting the word out. */
export class SpanSet {
  private readonly byHash = new Map<number, string[]>();

  constructor(words: Iterable<string>) {
    for (const w of words) {
      const h = fnv(w, 0, w.length);
      const list = this.byHash.get(h);
      if (list) list.push(w);
      else this.byHash.set(h, [w]);
    }
  }

  /** Whether text[from..to) is in the set; `hash` is fnv(text, from, to). */
  has(text: string, from: number, to: number, hash: number): boolean {
    const candidates = this.byHash.get(hash);
    if (!candidates) return false;
    for (const w of candidates) if (w.length === to - from && text.startsWith(w, from)) return true;
    return false;
  }
}
