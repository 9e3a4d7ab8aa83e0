// The index's own German vocabulary (word → occurrences in German passages), the statistics of the compound splitter
// (text/compounds.ts). Kept in the store folder as `vocabulary.tsv`, written atomically at the end of every index run
// that changed files: a small run adds the new files' counts and subtracts the old ones (read from the passages table
// before they are replaced), a large or recovered run recounts from the table. Readers (the retriever) reload it when
// the file changes.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { countWords } from '../text/compounds';
import type { WordList } from '../text/spelling';
import type { Passage } from '../types';

export const VOCABULARY_FILE = 'vocabulary.tsv';
const HEADER = '# docs-rag vocabulary v1: word<TAB>occurrences in German passages';

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

  /** Adds (sign 1) or removes (sign -1) counts; words that reach 0 are dropped. */
  add(delta: Map<string, number>, sign: 1 | -1 = 1): void {
    for (const [w, n] of delta) {
      const v = (this.counts.get(w) ?? 0) + sign * n;
      if (v > 0) this.counts.set(w, v);
      else this.counts.delete(w);
    }
  }

  clone(): Vocabulary {
    return new Vocabulary(new Map(this.counts));
  }

  serialize(): string {
    const lines = [HEADER];
    for (const [w, n] of this.counts) lines.push(`${w}\t${n}`);
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
    if (!text.startsWith(HEADER)) return null;
    return Vocabulary.parse(text);
  } catch {
    return null;
  }
}

/** Writes the vocabulary atomically (temp file + rename), so a reader or a crash never sees half of it. */
export function saveVocabulary(dir: string, vocab: Vocabulary): void {
  const file = path.join(dir, VOCABULARY_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, vocab.serialize());
  fs.renameSync(tmp, file);
  cache.delete(dir);
}

const cache = new Map<string, { mtimeMs: number; size: number; vocab: Vocabulary | null }>();

/**
 * The vocabulary for queries: read once and cached, reloaded when the file changed (another process's run). Null when
 * the index has none (built before vocabularies existed): then nothing is known about its German passages.
 */
export function currentVocabulary(dir: string): Vocabulary | null {
  let st: fs.Stats;
  try {
    st = fs.statSync(path.join(dir, VOCABULARY_FILE));
  } catch {
    return null;
  }
  const hit = cache.get(dir);
  if (hit && hit.mtimeMs === st.mtimeMs && hit.size === st.size) return hit.vocab;
  const vocab = loadVocabulary(dir);
  cache.set(dir, { mtimeMs: st.mtimeMs, size: st.size, vocab });
  return vocab;
}
