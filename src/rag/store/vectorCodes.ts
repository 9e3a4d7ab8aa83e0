// Compact vector codes: how the store keeps the vectors of an embedder whose layout is 'codes' (the builtin lexical
// sketch), instead of 32-bit floats.
//
// A vector is first rotated: random signs, then the fast Walsh–Hadamard transform (an orthogonal map, so dot products
// and norms stay as they were), which spreads a sparse sketch's weight evenly over every coordinate. Of the rotated
// vector the store keeps
//   - `vector`: one sign bit per coordinate, of CODE_SIGN_ROTATIONS rotations with different signs (LanceDB searches
//     these by Hamming distance, which orders rows by the angle estimate of random-hyperplane hashing), and
//   - `vectorCodes`: one byte per coordinate, the nearest of 255 evenly spaced values from -scale to scale, zero among
//     them, with `vectorScale`, the largest coordinate's magnitude. (Without a zero value every small coordinate would
//     grow by half a step: scores of related rows would come out too high, the more so the coarser their grid.)
// A search takes the nearest rows by the sign bits (codeCandidates) and ranks those by the dot product of the rotated
// query (full precision) with their codes: within a few ten-thousandths of the exact cosine, so the ranking is the
// floats'. Both were chosen on the quality gate (EVALUATION.md): 4-bit codes, off by a few thousandths, reordered the
// close scores of SciFact's abstracts. 32-bit floats took 3.2 times the bytes.
import type { VectorLayout } from '../types';
/**
 * A search for k rows ranks CODE_CANDIDATE_FACTOR·k candidates (at least CODE_MIN_CANDIDATES) by their codes, more in
 * a large table. Reading a candidate's codes costs far more than its Hamming distance, so the candidates are few; but
 * every search reads every row's bits, so at a large corpus the bits must be few too. Two rotations' bits with 4k
 * candidates gave the quality gate the figures that 1,024 bits gave only with 16k and keep the default within twice
 * its keyword search's time at 10k passages. The sign bits' estimate of the angle has the same error in any table, but
 * the more rows a table holds the more of them lie within that error of the k-th neighbour: above CODE_BASE_ROWS the
 * factor grows with the square root of the rows (up to CODE_MAX_FACTOR), which at 275k passages brought the default's
 * results near those of ranking every row by its codes (bench/codesFidelity.ts, EVALUATION.md).
 */
export const CODE_CANDIDATE_FACTOR = 4;
export const CODE_MIN_CANDIDATES = 128;
const CODE_BASE_ROWS = 10_000;
const CODE_MAX_FACTOR = 32;

/** The candidates a search for k rows of a table of `rows` ranks by their codes. */
export function codeCandidates(k: number, rows: number): number {
  const factor = Math.min(CODE_MAX_FACTOR, CODE_CANDIDATE_FACTOR * Math.max(1, Math.sqrt(rows / CODE_BASE_ROWS)));
  return Math.max(CODE_MIN_CANDIDATES, Math.round(k * factor));
}

/** Bits per rotated coordinate of the re-ranking codes (a byte each). */
export const CODE_BITS = 8;
/** Steps on each side of zero: codes 0 … 2·HALF stand for -scale … scale (code 255 is unused). */
const HALF = 127;

/** The rotation's length for vectors of `dimension`: the next power of two (the transform needs one; zeros pad). */
export function codeDimension(dimension: number): number {
  let d = 1;
  while (d < dimension) d <<= 1;
  return d;
}

/**
 * Rotations whose sign bits make up the `vector` column: each adds D independent-ish hyperplanes, so the Hamming
 * distance estimates the angle with 1/√(rotations·D) of its error and fewer candidates need their codes read.
 */
export const CODE_SIGN_ROTATIONS = 2;

/** Bytes of the sign-bit column and of the re-ranking codes for vectors of `dimension`. */
export function codeBytes(dimension: number): { bits: number; codes: number } {
  const d = Math.max(8, codeDimension(dimension));
  return { bits: (d / 8) * CODE_SIGN_ROTATIONS, codes: d };
}

const signCache = new Map<string, Float32Array>();
/** Rotation r's fixed random signs (part of the layout: other signs give other codes). */
function signs(d: number, r = 0): Float32Array {
  const key = `${d}:${r}`;
  let s = signCache.get(key);
  if (!s) {
    s = new Float32Array(d);
    let h = (0x2545f491 + Math.imul(r, 0x9e3779b9)) | 0;
    for (let i = 0; i < d; i++) {
      h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) + i;
      h = Math.imul(h ^ (h >>> 12), 0x297a2d39) | 0;
      s[i] = (h >>> 11) & 1 ? 1 : -1;
    }
    signCache.set(key, s);
  }
  return s;
}

/** In-place fast Walsh–Hadamard transform, scaled to be orthonormal (its own inverse). */
function hadamard(x: Float32Array): void {
  const d = x.length;
  for (let h = 1; h < d; h <<= 1) {
    for (let i = 0; i < d; i += h << 1) {
      for (let j = i; j < i + h; j++) {
        const a = x[j];
        const b = x[j + h];
        x[j] = a + b;
        x[j + h] = a - b;
      }
    }
  }
  const u = 1 / Math.sqrt(d);
  for (let i = 0; i < d; i++) x[i] *= u;
}

/** The rotated vector (length codeDimension(v.length)); rotation r of CODE_SIGN_ROTATIONS (0: the codes'). */
export function rotate(v: ArrayLike<number>, r = 0): Float32Array {
  const d = Math.max(8, codeDimension(v.length));
  const s = signs(d, r);
  const x = new Float32Array(d);
  for (let i = 0; i < v.length; i++) x[i] = v[i] * s[i];
  hadamard(x);
  return x;
}

/** The rotation undone: back in the embedder's space (length `dimension`). */
function unrotate(x: Float32Array, dimension: number): Float32Array {
  const y = Float32Array.from(x);
  hadamard(y);
  const s = signs(y.length);
  const out = new Float32Array(dimension);
  for (let i = 0; i < dimension; i++) out[i] = y[i] * s[i];
  return out;
}

/**
 * The sign bits of every rotation, 8 to a byte, rotation after rotation (coordinate i of rotation r is bit i % 8 of
 * byte (r·D + i) / 8); `first` is rotation 0, already computed.
 */
export function signBits(v: ArrayLike<number>, first: Float32Array): Uint8Array {
  const d = first.length;
  const out = new Uint8Array((d >> 3) * CODE_SIGN_ROTATIONS);
  for (let r = 0; r < CODE_SIGN_ROTATIONS; r++) {
    const x = r === 0 ? first : rotate(v, r);
    const base = r * d;
    for (let i = 0; i < d; i++) if (x[i] > 0) out[(base + i) >> 3] |= 1 << ((base + i) & 7);
  }
  return out;
}

export interface VectorCode {
  bits: Uint8Array;
  codes: Uint8Array;
  scale: number;
}

/** The stored form of one vector. */
export function encodeVector(v: ArrayLike<number>): VectorCode {
  const x = rotate(v);
  let scale = 0;
  for (let i = 0; i < x.length; i++) scale = Math.max(scale, Math.abs(x[i]));
  const codes = new Uint8Array(x.length);
  const perStep = scale > 0 ? HALF / scale : 0;
  // HALF + Math.round(x·perStep), |x·perStep| ≤ HALF: rounding half up is the floor of the value plus a half.
  for (let i = 0; i < x.length; i++) codes[i] = Math.floor(x[i] * perStep + (HALF + 0.5));
  return { bits: signBits(v, x), codes, scale };
}

/**
 * The vectors of one file in a few transferable buffers, as a parser worker hands them to the main thread: the floats,
 * or (layout 'codes') already encoded, so the encoding runs in the workers beside the other per-file work.
 */
export type PackedVectors =
  | { layout: 'float'; count: number; dimension: number; floats: Float32Array }
  | { layout: 'codes'; count: number; dimension: number; bits: Uint8Array; codes: Uint8Array; scales: Float32Array };

/** Packs `count` vectors of `dimension` in the layout; `vectorAt(i)` undefined leaves row i empty (zeros). */
export function packVectors(count: number, dimension: number, layout: VectorLayout, vectorAt: (i: number) => ArrayLike<number> | undefined): PackedVectors {
  if (layout === 'float') {
    const floats = new Float32Array(count * dimension);
    for (let i = 0; i < count; i++) {
      const v = vectorAt(i);
      if (v) floats.set(v, i * dimension);
    }
    return { layout, count, dimension, floats };
  }
  const size = codeBytes(dimension);
  const bits = new Uint8Array(count * size.bits);
  const codes = new Uint8Array(count * size.codes);
  const scales = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    const v = vectorAt(i);
    if (!v) continue;
    const c = encodeVector(v);
    bits.set(c.bits, i * size.bits);
    codes.set(c.codes, i * size.codes);
    scales[i] = c.scale;
  }
  return { layout, count, dimension, bits, codes, scales };
}

/** Row i of packed vectors: a view of its floats, or its code. */
export function unpackVector(p: PackedVectors, i: number): Float32Array | VectorCode {
  if (p.layout === 'float') return p.floats.subarray(i * p.dimension, (i + 1) * p.dimension);
  const size = codeBytes(p.dimension);
  return { bits: p.bits.subarray(i * size.bits, (i + 1) * size.bits), codes: p.codes.subarray(i * size.codes, (i + 1) * size.codes), scale: p.scales[i] };
}

/** The buffers to transfer with packed vectors. */
export function packedBuffers(p: PackedVectors): ArrayBuffer[] {
  return (p.layout === 'float' ? [p.floats.buffer] : [p.bits.buffer, p.codes.buffer, p.scales.buffer]) as ArrayBuffer[];
}

/** A query's side of a search: its rotated vector (for the re-ranking) and its sign bits (for the Hamming search). */
export function queryCode(v: ArrayLike<number>): { rotated: Float32Array; bits: Uint8Array } {
  const rotated = rotate(v);
  return { rotated, bits: signBits(v, rotated) };
}

/** Dot product of a rotated query with a stored vector's codes: the cosine, for unit vectors, within the grid's error. */
export function codeDot(rotated: Float32Array, codes: Uint8Array, scale: number): number {
  if (scale === 0) return 0;
  let weighted = 0;
  let sum = 0;
  for (let i = 0; i < codes.length; i++) {
    weighted += rotated[i] * codes[i];
    sum += rotated[i];
  }
  return (scale / HALF) * (weighted - HALF * sum);
}

/** The vector a stored code stands for, in the embedder's space (what MMR compares passages with). */
export function decodeVector(codes: Uint8Array, scale: number, dimension: number): Float32Array {
  const x = new Float32Array(codes.length);
  const step = scale / HALF;
  for (let i = 0; i < codes.length; i++) x[i] = (codes[i] - HALF) * step;
  return unrotate(x, dimension);
}
