// The builtin embedder: a LEXICAL SKETCH, not a semantic model.
//
// What it is: signed feature hashing of
//   - word unigrams (lowercased, umlauts folded: ä→ae, ö→oe, ü→ue, ß→ss, other diacritics stripped), and
//   - character 3-, 4- and 5-grams of each word with boundary markers ("<kün", "ndig", "ung>"),
// into a fixed number of dimensions, with sublinear term frequency (1 + ln tf), German/English function words left
// out (a fixed stand-in for IDF), and L2 normalisation. No download, no weights, deterministic, in-process.
//
// What it adds over BM25: sub-word overlap. German compounds share grams with their parts
// ("Kündigungsschutzklage" ~ "Kündigungsschutz", "Klage"), inflections and typos still share most grams
// ("Arbeitszeiten" ~ "Arbeitszeit", "Urlaubsanspruc" ~ "Urlaubsanspruch"), spelling variants meet after folding
// ("Kuendigung" ~ "Kündigung"). What it cannot do: synonyms or paraphrases with different words
// ("Ferien" vs "Urlaub"). For real semantic search use the Ollama embedder (e.g. bge-m3 for German).
import { ModelError, type Embedder } from '../types';
import { FUNCTION_WORDS } from '../chunk/language';
import { COMMON_FEATURES_BASE64 } from './commonFeatures';

export const BUILTIN_MODEL = 'hash-ngram-v1';
export const BUILTIN_DIMENSION = 1024;

const UNIGRAM_WEIGHT = 1.0;
const GRAM_WEIGHTS = [0, 0, 0, 0.45, 0.55, 0.65]; // by n
const MIN_N = 3;
const MAX_N = 5;

// Scratch hash table for per-text feature counts (open addressing, generation-stamped so it needs no clearing).
const TABLE_BITS = 14;
const TABLE_SIZE = 1 << TABLE_BITS;
const keys = new Int32Array(TABLE_SIZE);
const stamps = new Uint32Array(TABLE_SIZE);
const counts = new Float32Array(TABLE_SIZE);
const weights = new Float32Array(TABLE_SIZE);
const touched = new Int32Array(TABLE_SIZE);
let generation = 0;
let touchedCount = 0;

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}

function addFeature(hash: number, weight: number): void {
  let slot = hash & (TABLE_SIZE - 1);
  for (;;) {
    if (stamps[slot] !== generation) {
      stamps[slot] = generation;
      keys[slot] = hash;
      counts[slot] = 1;
      weights[slot] = weight;
      if (touchedCount < TABLE_SIZE - 1) touched[touchedCount++] = slot;
      return;
    }
    if (keys[slot] === hash) {
      counts[slot] += 1;
      return;
    }
    slot = (slot + 1) & (TABLE_SIZE - 1);
    if (touchedCount >= TABLE_SIZE - 1) return; // table full (huge text): ignore further new features
  }
}

const FOLD: Record<string, string> = { ä: 'ae', ö: 'oe', ü: 'ue', ß: 'ss' };

/** Lowercase, fold German umlauts and ß, strip other diacritics. */
export function foldText(text: string): string {
  let t = text.toLowerCase();
  if (/[äöüß]/.test(t)) t = t.replace(/[äöüß]/g, (c) => FOLD[c]);
  // Other accented Latin letters (é, ñ, ç...): decompose and drop the marks. "§", dashes and quotes need nothing.
  if (/[\u00c0-\u024f\u1e00-\u1eff]/.test(t)) t = t.normalize('NFD').replace(/\p{M}+/gu, '');
  return t;
}

/** Content-bearing words that the language detector counts but the embedder keeps. */
const KEEP = new Set(['use', 'used', 'using', 'gilt', 'gelten', 'insbesondere', 'kann', 'können', 'muss', 'müssen', 'darf', 'dürfen', 'soll', 'sollen', 'must', 'may', 'shall']);
const FOLDED_STOPWORDS = new Set([...FUNCTION_WORDS].filter((w) => !KEEP.has(w)).map(foldText));

const WORD = /[\p{L}\p{N}]+/gu;
const CH_LT = 60; // '<'
const CH_GT = 62; // '>'
const codes = new Uint16Array(64); // '<' + word (≤ 40 chars) + '>'

/** Sparse features of one text into the scratch table. */
function extract(text: string): void {
  generation = (generation + 1) >>> 0;
  if (generation === 0) {
    stamps.fill(0);
    generation = 1;
  }
  touchedCount = 0;
  const folded = foldText(text);
  WORD.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = WORD.exec(folded)) !== null) {
    const w = m[0];
    if (w.length > 40 || FOLDED_STOPWORDS.has(w)) continue;
    // Unigram.
    let h = 0x811c9dc5 | 0;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 0x01000193);
    addFeature(fmix(h ^ 0x5bd1e995), UNIGRAM_WEIGHT);
    // Character n-grams of "<w>" (not for numbers or very short words).
    if (w.length < 3 || (w.charCodeAt(0) >= 48 && w.charCodeAt(0) <= 57)) continue;
    codes[0] = CH_LT;
    for (let i = 0; i < w.length; i++) codes[i + 1] = w.charCodeAt(i);
    codes[w.length + 1] = CH_GT;
    const len = w.length + 2;
    for (let i = 0; i + MIN_N <= len; i++) {
      let g = 0x811c9dc5 | 0;
      for (let k = 0; k < MAX_N && i + k < len; k++) {
        g = Math.imul(g ^ codes[i + k], 0x01000193);
        const n = k + 1;
        if (n >= MIN_N) addFeature(fmix(g + n), GRAM_WEIGHTS[n]);
      }
    }
  }
}

// Fixed IDF-like down-weighting of features common in ordinary German and English text (see commonFeatures.ts):
// a small open-addressing table (exact hashes; ~160 KB, stays in cache), read once per distinct feature.
const COMMON_BITS = 15;
const COMMON_MASK = (1 << COMMON_BITS) - 1;
let commonKeys: Int32Array | undefined;
let commonValues: Uint8Array | undefined;
function loadCommonTable(): void {
  const bytes = Buffer.from(COMMON_FEATURES_BASE64, 'base64');
  const keys = new Int32Array(1 << COMMON_BITS);
  const values = new Uint8Array(1 << COMMON_BITS); // 0 = empty slot
  for (let i = 0; i + 5 <= bytes.length; i += 5) {
    const h = bytes.readInt32LE(i);
    let slot = (h ^ (h >>> 15)) & COMMON_MASK;
    while (values[slot] !== 0 && keys[slot] !== h) slot = (slot + 1) & COMMON_MASK;
    keys[slot] = h;
    values[slot] = Math.max(1, bytes[i + 4]);
  }
  commonKeys = keys;
  commonValues = values;
}

function commonWeight(h: number, keys: Int32Array, values: Uint8Array): number {
  let slot = (h ^ (h >>> 15)) & COMMON_MASK;
  for (;;) {
    const v = values[slot];
    if (v === 0) return 1;
    if (keys[slot] === h) return v / 255;
    slot = (slot + 1) & COMMON_MASK;
  }
}

/** The distinct feature hashes of a text (used to build the common-feature table offline). */
export function featureHashes(text: string): number[] {
  extract(text);
  const out: number[] = [];
  for (let t = 0; t < touchedCount; t++) out.push(keys[touched[t]]);
  return out;
}

/** Embeds one text into an L2-normalised vector. */
export function embedBuiltin(text: string, dimension = BUILTIN_DIMENSION): Float32Array {
  extract(text);
  if (!commonKeys || !commonValues) loadCommonTable();
  const ck = commonKeys!;
  const cv = commonValues!;
  const v = new Float32Array(dimension);
  const mask = dimension - 1;
  const pow2 = (dimension & mask) === 0;
  for (let t = 0; t < touchedCount; t++) {
    const slot = touched[t];
    const h = keys[slot];
    const value = weights[slot] * (1 + Math.log(counts[slot])) * commonWeight(h, ck, cv);
    const idx = pow2 ? h & mask : (h >>> 0) % dimension;
    v[idx] += h < 0 ? -value : value; // sign from the top bit, independent of the index bits
  }
  let norm = 0;
  for (let i = 0; i < dimension; i++) norm += v[i] * v[i];
  if (norm === 0) {
    v[0] = 1; // empty text: a fixed unit vector (never NaN)
    return v;
  }
  const inv = 1 / Math.sqrt(norm);
  for (let i = 0; i < dimension; i++) v[i] *= inv;
  return v;
}

export class BuiltinEmbedder implements Embedder {
  readonly id = 'builtin';
  readonly model = BUILTIN_MODEL;
  dimension = BUILTIN_DIMENSION;

  async init(): Promise<void> {
    // Nothing to load.
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (const t of texts) {
      if (signal?.aborted) throw new ModelError('cancelled', 'Cancelled.');
      out.push(embedBuiltin(t, this.dimension));
    }
    return out;
  }
}
