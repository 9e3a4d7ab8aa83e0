// Compiled word lists that ship with the extension (data/lexicon/*.tsv.gz, built by scripts/lexicon/build.ts):
// German synonyms (OpenThesaurus), English synonyms (WordNet) and a German↔English dictionary (Ding).
// Each file is loaded lazily, once, into in-memory maps keyed by the Snowball stems of a term's content words.
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { stem, type StemLang } from '../text/stem';
import { STOP_WORDS } from '../text/stopWords';
import { words } from '../text/words';

export type LexLang = StemLang;

export function isStopWord(word: string, lang: LexLang): boolean {
  return STOP_WORDS[lang].has(word.toLowerCase());
}

/** The text with the words of the stop list of `lang` removed; words inside identifiers (`Cargo.toml`, `opt-level`) stay. */
export function withoutStopWords(text: string, lang: LexLang): string {
  return text.replace(/(?<![\p{L}\p{N}_.\-])\p{L}+(?![\p{L}\p{N}_.\-])/gu, (w) => (STOP_WORDS[lang].has(w.toLowerCase()) ? ' ' : w));
}

/** A content word: not a stop word, at least 3 characters, not only digits. */
export function isContentWord(word: string, lang: LexLang): boolean {
  return word.length >= 3 && !/^\d+$/.test(word) && !isStopWord(word, lang);
}

/**
 * Key prefix of an English idiom in the bridge: a phrase with function words that is one German word ("at least" →
 * mindestens), keyed by its exact lower-cased words ("~at least") and looked up on the question's words as written.
 */
export const IDIOM_MARK = '~';

/** The lookup key of a term: the stems of its content words, joined by a space ('' when it has none). */
export function termKey(term: string, lang: LexLang): string {
  return words(term)
    .filter((w) => isContentWord(w, lang))
    .map((w) => stem(w, lang))
    .join(' ');
}

/**
 * One compiled word list: section ('de', 'en', 'de-en', 'en-de') → key → targets, best first. The list stays one UTF-8
 * buffer, and an open-addressing table of line offsets, hashed by the line's `section\tkey\t` bytes, finds a key: a
 * fraction of the memory of a Map per section (every process that searches loads them, so their size is paid in each).
 */
export class Lexicon {
  private constructor(
    private readonly bytes: Buffer,
    /** Line start + 1 per slot (0 = empty); size a power of two, at most half full. */
    private readonly slots: Uint32Array,
  ) {}

  /** The lookup table (scripts/lexicon/unpack.ts stores it beside the unpacked list). */
  get slotTable(): Uint32Array {
    return this.slots;
  }

  /** A list with a table that `parse` built for the same bytes earlier; null when the table cannot be one. */
  static withTable(bytes: Buffer, slots: Uint32Array): Lexicon | null {
    const size = slots.length;
    if (size < 16 || (size & (size - 1)) !== 0) return null;
    for (const v of slots) if (v > bytes.length) return null;
    return new Lexicon(bytes, slots);
  }

  get(section: string, key: string): string[] | undefined {
    const probe = Buffer.from(`${section}\t${key}\t`, 'utf8');
    const mask = this.slots.length - 1;
    for (let i = hashRange(probe, 0, probe.length) & mask; ; i = (i + 1) & mask) {
      const v = this.slots[i];
      if (v === 0) return undefined;
      const start = v - 1;
      if (start + probe.length <= this.bytes.length && this.bytes.compare(probe, 0, probe.length, start, start + probe.length) === 0) {
        const from = start + probe.length;
        const end = this.bytes.indexOf(NL, from);
        return this.bytes.toString('utf8', from, end < 0 ? this.bytes.length : end).split('|');
      }
    }
  }

  /** Parses the compiled format: `section\tkey\ttarget|target…` lines; `#` lines are comments. A key listed twice keeps its last line. */
  static parse(text: string | Buffer): Lexicon {
    const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    let lines = 1;
    for (let i = bytes.indexOf(NL); i >= 0; i = bytes.indexOf(NL, i + 1)) lines++;
    let size = 16;
    while (size < lines * 2) size *= 2;
    const slots = new Uint32Array(size);
    const mask = size - 1;
    let pos = 0;
    while (pos < bytes.length) {
      let end = bytes.indexOf(NL, pos);
      if (end < 0) end = bytes.length;
      if (bytes[pos] !== HASH) {
        const a = bytes.indexOf(TAB, pos);
        const b = a < 0 || a > end ? -1 : bytes.indexOf(TAB, a + 1);
        if (b > 0 && b < end) {
          const len = b + 1 - pos; // the prefix `section\tkey\t`
          for (let i = hashRange(bytes, pos, b + 1) & mask; ; i = (i + 1) & mask) {
            const v = slots[i];
            if (v === 0 || bytes.compare(bytes, pos, pos + len, v - 1, v - 1 + len) === 0) {
              slots[i] = pos + 1;
              break;
            }
          }
        }
      }
      pos = end + 1;
    }
    return new Lexicon(bytes, slots);
  }
}

const NL = 10;
const TAB = 9;
const HASH = 35;

/** FNV-1a over bytes[from, to). */
function hashRange(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
  return h >>> 0;
}

export const LEXICON_FILES = {
  'thesaurus-de': 'thesaurus-de.tsv.gz',
  'thesaurus-en': 'thesaurus-en.tsv.gz',
  'bridge-de-en': 'bridge-de-en.tsv.gz',
} as const;
export type LexiconName = keyof typeof LEXICON_FILES;

let overrideDir: string | undefined;
const loaded = new Map<LexiconName, Lexicon | null>();

/** Points the loader at another folder (tests); clears what was loaded. */
export function setLexiconDir(dir: string | undefined): void {
  overrideDir = dir;
  loaded.clear();
}

/**
 * The folder holding the compiled files: data/lexicon beside the bundle (dist/*.js → ../data/lexicon) or the repository
 * root seen from the sources (src/rag/search → ../../../data/lexicon); DOCS_RAG_LEXICON_DIR overrides.
 */
export function lexiconDir(): string | undefined {
  if (overrideDir) return overrideDir;
  const env = process.env.DOCS_RAG_LEXICON_DIR;
  if (env) return env;
  let dir = __dirname;
  for (let i = 0; i < 5; i++) {
    const candidate = path.join(dir, 'data', 'lexicon');
    if (existsSync(path.join(candidate, LEXICON_FILES['thesaurus-de']))) return candidate;
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}

/** Loads a compiled list once; undefined when the file is missing (the expansion is then skipped). */
export function loadLexicon(name: LexiconName): Lexicon | undefined {
  if (loaded.has(name)) return loaded.get(name) ?? undefined;
  const dir = lexiconDir();
  const file = dir ? path.join(dir, LEXICON_FILES[name]) : undefined;
  let lex: Lexicon | null = null;
  if (file && existsSync(file)) lex = readUnpacked(file) ?? Lexicon.parse(gunzipSync(readFileSync(file)));
  loaded.set(name, lex);
  return lex ?? undefined;
}

/** The unpacked list and its lookup table beside a .tsv.gz (written by scripts/lexicon/unpack.ts at build time). */
export function unpackedFiles(gz: string): { raw: string; slots: string } {
  const raw = gz.slice(0, -'.gz'.length);
  return { raw, slots: `${raw}.slots` };
}

/**
 * The list from its unpacked copy and table, when both exist and are not older than the .gz (inflating and hashing it
 * costs most of a search process's start); null otherwise.
 */
function readUnpacked(gz: string): Lexicon | null {
  const { raw, slots } = unpackedFiles(gz);
  try {
    const since = statSync(gz).mtimeMs;
    if (statSync(raw).mtimeMs < since || statSync(slots).mtimeMs < since) return null;
    const table = readFileSync(slots);
    if (table.byteLength % 4 !== 0) return null;
    const copy = new Uint32Array(table.byteLength / 4);
    new Uint8Array(copy.buffer).set(table);
    return Lexicon.withTable(readFileSync(raw), copy);
  } catch {
    return null; // not unpacked (a checkout before its build): the .gz
  }
}
