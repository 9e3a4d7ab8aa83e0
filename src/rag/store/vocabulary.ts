// The index's own German vocabulary (word → occurrences in German passages), the statistics of the compound splitter
// (text/compounds.ts). Kept in the store folder as `vocabulary.tsv`, one `word<TAB>count` line per word sorted by word,
// written atomically at the end of every index run that changed files: a large or recovered run recounts from the
// table; a small run adds the new files' counts and subtracts the old ones (read from the passages table before they
// are replaced) without parsing the file: it looks words up in the file's bytes by binary search (VocabularyFile) and
// writes the file again by merging its few changed lines in. Readers (the retriever) search the same sorted bytes
// (a search process pays for its question's words, not for parsing the file) and reopen it when the file changes.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { countWords } from '../text/compounds';
import type { WordList } from '../text/spelling';
import type { Passage } from '../types';

export const VOCABULARY_FILE = 'vocabulary.tsv';
const HEADER = '# docs-rag vocabulary v2: word<TAB>occurrences in German passages, sorted by word';
/** The unsorted layout earlier versions wrote: still read (parsed whole); the next run that saves writes v2. */
const HEADER_V1 = '# docs-rag vocabulary v1: word<TAB>occurrences in German passages';

export class Vocabulary implements WordList {
  constructor(readonly counts: Map<string, number> = new Map()) {}

  get(word: string): number | undefined {
    return this.counts.get(word);
  }

  keys(): IterableIterator<string> {
    return this.counts.keys();
  }

  get size(): number {
    return this.counts.size;
  }

  /** No word counted: the index has no German passage. */
  isEmpty(): boolean {
    return this.counts.size === 0;
  }

  private buckets?: Map<string, string[]>;

  wordsOf(first: string, length: number): readonly string[] {
    if (!this.buckets) {
      this.buckets = new Map();
      for (const w of this.counts.keys()) {
        const key = `${w[0]}${w.length}`;
        const list = this.buckets.get(key);
        if (list) list.push(w);
        else this.buckets.set(key, [w]);
      }
    }
    return this.buckets.get(`${first}${length}`) ?? [];
  }

  /** Adds (sign 1) or removes (sign -1) counts; words that reach 0 are dropped. */
  add(delta: Map<string, number>, sign: 1 | -1 = 1): void {
    this.buckets = undefined;
    for (const [w, n] of delta) {
      const v = (this.counts.get(w) ?? 0) + sign * n;
      if (v > 0) this.counts.set(w, v);
      else this.counts.delete(w);
    }
  }

  clone(): Vocabulary {
    return new Vocabulary(new Map(this.counts));
  }

  /** The file's text: the header, then the words in JavaScript string order (what VocabularyFile's search expects). */
  serialize(): string {
    const words = [...this.counts.keys()].sort();
    const lines = [HEADER];
    for (const w of words) lines.push(`${w}\t${this.counts.get(w)}`);
    return `${lines.join('\n')}\n`;
  }

  static parse(text: string): Vocabulary {
    const counts = new Map<string, number>();
    for (const line of text.split('\n')) {
      if (!line || line.startsWith('#')) continue;
      const tab = line.indexOf('\t');
      if (tab <= 0) continue;
      const n = Number(line.slice(tab + 1));
      if (n > 0) counts.set(line.slice(0, tab), n);
    }
    return new Vocabulary(counts);
  }
}

/**
 * The counted text of one file's passages: the German passages of the finest level the file has (L2 normally), so
 * text repeated in section and document passages is counted once.
 */
export function fileWordCounts(passages: Pick<Passage, 'lang' | 'level' | 'text'>[], into: Map<string, number> = new Map()): Map<string, number> {
  const german = passages.filter((p) => p.lang === 'de');
  if (german.length === 0) return into;
  const finest = Math.max(...german.map((p) => p.level));
  for (const p of german) if (p.level === finest) countWords(p.text, into);
  return into;
}

/** Is there a stored vocabulary (of any version)? Reads nothing but the folder entry. */
export function hasVocabulary(dir: string): boolean {
  return fs.existsSync(path.join(dir, VOCABULARY_FILE));
}

/** The stored vocabulary, or null when there is none (new index, or written by another version). */
export function loadVocabulary(dir: string): Vocabulary | null {
  try {
    const text = fs.readFileSync(path.join(dir, VOCABULARY_FILE), 'utf8');
    if (!text.startsWith(HEADER) && !text.startsWith(HEADER_V1)) return null;
    return Vocabulary.parse(text);
  } catch {
    return null;
  }
}

/** Writes the vocabulary atomically (temp file + rename), so a reader or a crash never sees half of it. */
export function saveVocabulary(dir: string, vocab: Vocabulary | VocabularyFile): void {
  const file = path.join(dir, VOCABULARY_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, vocab instanceof VocabularyFile ? vocab.merged() : vocab.serialize());
  fs.renameSync(tmp, file);
  cache.delete(dir);
}

const NEWLINE = 0x0a;
const MAX_SEEN = 100_000;
const TAB = 0x09;

/**
 * The stored vocabulary as its file's bytes plus this run's changes: counts are looked up by binary search over the
 * sorted lines, and `merged()` is the file again with the changed lines replaced, added or dropped. Reading and
 * writing cost a copy of the file, not a parse of its words: what a run that changes a few files pays.
 */
export class VocabularyFile implements WordList {
  private readonly changes = new Map<string, number>();
  /** Byte offset of the first word line. */
  private readonly start: number;

  private constructor(private readonly bytes: Buffer) {
    this.start = bytes.indexOf(NEWLINE) + 1;
  }

  /** The stored vocabulary in the sorted layout, or null (none, or written by a version that did not sort it). */
  static open(dir: string): VocabularyFile | null {
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(path.join(dir, VOCABULARY_FILE));
    } catch {
      return null;
    }
    if (!bytes.subarray(0, HEADER.length + 1).equals(Buffer.from(`${HEADER}\n`))) return null;
    return new VocabularyFile(bytes);
  }

  get(word: string): number | undefined {
    const n = (this.stored(word) ?? 0) + (this.changes.get(word) ?? 0);
    return n > 0 ? n : undefined;
  }

  /** Adds (sign 1) or removes (sign -1) counts. */
  add(delta: Map<string, number>, sign: 1 | -1 = 1): void {
    for (const [w, n] of delta) this.changes.set(w, (this.changes.get(w) ?? 0) + sign * n);
    this.byFirst.clear();
  }

  /** No word counted: the index has no German passage. */
  isEmpty(): boolean {
    if (this.start < this.bytes.length) return false;
    for (const n of this.changes.values()) if (n > 0) return false;
    return true;
  }

  /** Words by first unit, then by length: decoded from the file's range of that first unit when first asked for. */
  private readonly byFirst = new Map<string, Map<number, string[]>>();

  wordsOf(first: string, length: number): readonly string[] {
    let lists = this.byFirst.get(first);
    if (!lists) {
      lists = new Map();
      const add = (w: string) => {
        const list = lists!.get(w.length);
        if (list) list.push(w);
        else lists!.set(w.length, [w]);
      };
      // The file is sorted in JavaScript string order: the words starting with `first` are one run of lines.
      const end = this.lowerBound(String.fromCharCode(first.charCodeAt(0) + 1));
      for (let at = this.lowerBound(first); at < end; at = this.lineEnd(at) + 1) {
        const w = this.wordAt(at);
        if (!this.changes.has(w)) add(w);
      }
      for (const w of this.changes.keys()) if (w[0] === first && (this.get(w) ?? 0) > 0) add(w);
      this.byFirst.set(first, lists);
    }
    return lists.get(length) ?? [];
  }

  /** The file's bytes with the changes applied (words that reach 0 dropped), still sorted. */
  merged(): Buffer {
    const out: Buffer[] = [];
    let copied = 0;
    for (const word of [...this.changes.keys()].sort()) {
      const delta = this.changes.get(word)!;
      if (delta === 0) continue;
      const at = this.lowerBound(word);
      out.push(this.bytes.subarray(copied, at));
      copied = at;
      let n = delta;
      if (at < this.bytes.length && this.wordAt(at) === word) {
        n += this.countAt(at);
        copied = this.lineEnd(at) + 1;
      }
      if (n > 0) out.push(Buffer.from(`${word}\t${n}\n`));
    }
    out.push(this.bytes.subarray(copied));
    return Buffer.concat(out);
  }

  /** Stored counts looked up so far: the compound splitter asks for the same parts again and again. */
  private readonly seen = new Map<string, number | undefined>();

  private stored(word: string): number | undefined {
    if (this.seen.has(word)) return this.seen.get(word);
    // A long-lived reader (the MCP server, the extension) asks for ever new words: the memo stays bounded.
    if (this.seen.size >= MAX_SEEN) this.seen.clear();
    const at = this.lowerBound(word);
    const n = at < this.bytes.length && this.wordAt(at) === word ? this.countAt(at) : undefined;
    this.seen.set(word, n);
    return n;
  }

  /** Offset of the first line whose word is not below `word` (the file's length when there is none). */
  private lowerBound(word: string): number {
    let lo = this.start;
    let hi = this.bytes.length;
    // Invariant: lines starting before lo are below `word`; the line starting at hi (or the end) is not.
    while (lo < hi) {
      const mid = this.lineStart(lo + ((hi - lo) >> 1), lo);
      if (this.wordAt(mid) < word) lo = this.lineEnd(mid) + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Start of the line holding byte `i` (not before `floor`, itself a line start). */
  private lineStart(i: number, floor: number): number {
    const nl = this.bytes.lastIndexOf(NEWLINE, i - 1);
    return Math.max(floor, nl + 1);
  }

  private lineEnd(at: number): number {
    const nl = this.bytes.indexOf(NEWLINE, at);
    return nl < 0 ? this.bytes.length : nl;
  }

  private wordAt(at: number): string {
    const tab = this.bytes.indexOf(TAB, at);
    return this.bytes.toString('utf8', at, tab < 0 ? this.lineEnd(at) : Math.min(tab, this.lineEnd(at)));
  }

  private countAt(at: number): number {
    const tab = this.bytes.indexOf(TAB, at);
    return Number(this.bytes.toString('latin1', tab + 1, this.lineEnd(at))) || 0;
  }
}

/** A stored vocabulary as a reader sees it. */
export type StoredVocabulary = Vocabulary | VocabularyFile;

const cache = new Map<string, { mtimeMs: number; size: number; vocab: StoredVocabulary | null }>();

/**
 * The vocabulary for queries: opened once and cached, reopened when the file changed (another process's run). A sorted
 * file is searched in its bytes, not parsed: a search process pays for the words its question asks about, not for the
 * whole vocabulary. Null when the index has none (built before vocabularies existed): then nothing is known about its
 * German passages.
 */
export function currentVocabulary(dir: string): StoredVocabulary | null {
  let st: fs.Stats;
  try {
    st = fs.statSync(path.join(dir, VOCABULARY_FILE));
  } catch {
    return null;
  }
  const hit = cache.get(dir);
  if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.vocab;
  const vocab = VocabularyFile.open(dir) ?? loadVocabulary(dir);
  cache.set(dir, { mtimeMs: st.mtimeMs, size: st.size, vocab });
  return vocab;
}
