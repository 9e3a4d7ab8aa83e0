// The compound splitter's German vocabulary during a run (store/vocabulary.ts). A small run keeps it current by adding
// the written files' counts and subtracting the replaced and removed ones; a large, full, recovered or first run (and a
// cancelled one) counts it again from the table at the end and re-splits the German passages it wrote with the
// complete counts, so the order in which files were indexed does not matter.
import type { Embedder, IndexedPassage } from '../types';
import type { IndexStore } from '../store/types';
import { annotateCompounds, compoundParts } from '../text/compounds';
import { Vocabulary, VocabularyFile, fileWordCounts, hasVocabulary, loadVocabulary, saveVocabulary } from '../store/vocabulary';
import { countWords } from '../text/compounds';

/** How much the counts grow before a recounting run's cached splits are made again (0.1 = by 10 %). */
const SPLIT_CACHE_GROWTH = 0.1;
/**
 * Words whose splits a run keeps at most (then the cache starts again): a large corpus has millions of distinct long
 * words, and a split cache over all of them was the largest part of a first build's memory.
 */
export const SPLIT_CACHE_WORDS = 100_000;

export class RunVocabulary {
  private readonly loaded: Vocabulary | VocabularyFile | null;
  /** Nothing to write and counts on disk: nothing to read or save. */
  private readonly idle: boolean;
  /** The counts: the stored file with this run's changes (a small run), else counted in memory. */
  private readonly vocab: Vocabulary | VocabularyFile;
  /** Recount from the table at the end instead of keeping the counts incrementally. */
  private recount: boolean;
  private readonly germanWritten: string[] = [];
  /**
   * A run that recounts (and so re-splits at the end with the complete counts) splits each distinct word once per
   * "generation" of its growing counts: the splits are dropped whenever the counts have grown by SPLIT_CACHE_GROWTH
   * since they were made. A run that keeps its counts incrementally splits with the current counts for every file.
   */
  private splits = new Map<string, string[]>();
  private occurrences = 0;
  private splitsFrom = 0;
  /** German rows the end of the run rewrote with their final compound parts (diagnostics). */
  rewritten = 0;

  /**
   * @param forceRecount a recovered, re-embedded or full run
   * @param work files this run adds, updates or removes; `known` files the index knew before
   */
  constructor(private readonly store: IndexStore, forceRecount: boolean, private readonly work: number, private readonly known: number) {
    // A run with nothing to write never reads the counts (parsing them is most of an unchanged run's own work).
    this.idle = work === 0 && !forceRecount && hasVocabulary(store.dir);
    const large = forceRecount || work > Math.max(20, 0.2 * known);
    // A small run looks its words up in the stored file (VocabularyFile); the file of an earlier version is parsed.
    this.loaded = this.idle ? null : ((large ? null : VocabularyFile.open(store.dir)) ?? loadVocabulary(store.dir));
    this.recount = !this.idle && (large || !this.loaded);
    this.vocab = this.loaded ?? new Vocabulary();
  }

  /** The passages `path` has in the index now leave the counts (before they are replaced or removed). */
  async forget(path: string): Promise<void> {
    if (!this.recount) this.vocab.add(fileWordCounts(await this.store.getFilePassages(path)), -1);
  }

  /**
   * Counts a file's new passages and gives its German ones their compound parts (its own words count as parts too).
   * `counts`: their fileWordCounts when already computed (in the parser worker).
   */
  learn(path: string, passages: IndexedPassage[], counts?: Map<string, number>): void {
    const delta = counts ?? fileWordCounts(passages);
    this.vocab.add(delta);
    if (!this.recount) {
      annotateCompounds(passages, this.vocab);
    } else {
      for (const n of delta.values()) this.occurrences += n;
      if (this.occurrences > this.splitsFrom * (1 + SPLIT_CACHE_GROWTH) || this.splits.size > SPLIT_CACHE_WORDS) {
        this.splits = new Map();
        this.splitsFrom = this.occurrences;
      }
      annotateCompounds(passages, this.vocab, this.splits);
    }
    if (passages.some((p) => p.lang === 'de')) this.germanWritten.push(path);
  }

  /** Saves the vocabulary (recounted and the written German passages re-split when needed). */
  async finish(embedder: Embedder, cancelled: boolean, signal?: AbortSignal): Promise<void> {
    if (this.idle) return;
    if (cancelled) this.recount = true;
    if (this.work === 0 && this.loaded) return;
    let final = this.vocab;
    const store = this.store;
    if (this.recount) {
      // A run that began with an empty index and wrote every file it learned has counted the table already.
      if (this.known > 0 || cancelled || final instanceof VocabularyFile) final = await recountFromTable(store);
      if (this.germanWritten.length > 0) {
        const cache = new Map<string, string[]>();
        this.rewritten = await store.rewriteKeywordParts(
          this.germanWritten,
          (t) => {
            if (cache.size > SPLIT_CACHE_WORDS) cache.clear();
            return compoundParts(t, final, cache);
          },
          embedder.id === 'builtin' ? (texts) => embedder.embed(texts, signal) : undefined,
        );
      }
    }
    saveVocabulary(store.dir, final);
    await store.publish();
  }
}

/**
 * The vocabulary of the German passages in the table, read in two streamed passes (each file's finest level, then the
 * words of those passages), as fileWordCounts counts a file: memory holds the counts, never the text.
 */
async function recountFromTable(store: IndexStore): Promise<Vocabulary> {
  const finest = new Map<string, number>();
  await store.eachGermanPassage(false, (batch) => {
    for (const p of batch) if (p.level > (finest.get(p.path) ?? -1)) finest.set(p.path, p.level);
  });
  const counts = new Map<string, number>();
  await store.eachGermanPassage(true, (batch) => {
    for (const p of batch) if (p.level === finest.get(p.path)) countWords(p.text, counts);
  });
  return new Vocabulary(counts);
}
