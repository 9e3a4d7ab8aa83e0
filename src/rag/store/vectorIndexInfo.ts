// What the last vector-index build decided (`<store>/vector-index.json`) and how to say it, without LanceDB: the
// extension host's status report reads it too, and the host never loads LanceDB (ARCHITECTURE.md, "Invariants").
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EmbedderInfo } from '../types';
import { CODE_BITS } from './vectorCodes';

export const VECTOR_INDEX_FILE = 'vector-index.json';

/**
 * From this many passages a vector index (IVF_RQ, or IVF_FLAT: vectorIndexKind; cosine) is trained: searched whole it
 * gives the scan's hits, faster the larger the index. Below it a scan is quick and the training
 * would cost more than it saves. At this size the gate's SciFact set searches an index, so the gate covers it.
 */
export const VECTOR_INDEX_MIN_ROWS = 5_000;

/**
 * Bits per dimension of the IVF_RQ codes (RaBitQ). The index holds these codes instead of the full vectors, which an
 * IVF_FLAT index kept in LanceDB's cache of every process that searched (4-bit codes are an eighth of 32-bit floats).
 * With 1 bit the candidates need a large refine factor; with 4 bits the estimate is close enough that a small multiple
 * of k candidates holds every true neighbour (VECTOR_REFINE_FACTOR).
 */
export const VECTOR_INDEX_BITS = 4;

/**
 * Largest dimension given IVF_RQ codes. LanceDB refuses IVF_RQ for a dimension not divisible by 8, and for large
 * dimensions its codes rank wrongly: uniform random vectors no longer find themselves first (`bench/vectorCodesDims.ts`
 * measures it per dimension). Embedders of such sizes (2,560 or 4,096 dimensions, or an odd size) get an IVF_FLAT index:
 * full vectors in memory, exact hits.
 */
export const VECTOR_RQ_MAX_DIMENSION = 1024;

/**
 * The vector index trained for an index's vectors (undefined: unknown, then the float index that works for all): for
 * the 'codes' layout an IVF_FLAT index of their sign bits by Hamming distance ('ivf_bits'), for floats by dimension.
 */
export function vectorIndexKind(embedder: Pick<EmbedderInfo, 'dimension' | 'vectorLayout'> | undefined): VectorIndexKind {
  if (embedder?.vectorLayout === 'codes') return 'ivf_bits';
  const dimension = embedder?.dimension;
  return dimension !== undefined && dimension % 8 === 0 && dimension <= VECTOR_RQ_MAX_DIMENSION ? 'ivf_rq' : 'ivf_flat';
}

export type VectorIndexKind = 'ivf_rq' | 'ivf_flat' | 'ivf_bits';

/**
 * A search takes k × this many candidates (at least VECTOR_REFINE_MIN_CANDIDATES) by the codes' estimated distance, from
 * every partition, and ranks them by the full vectors read from the table (LanceDB's refineFactor), so the hits are the
 * exact nearest rows unless a true neighbour's estimate falls behind that many others. Twice k was enough for the
 * evaluation questions on the large indexes; 4 is the margin, at a small cost a query. Uniform random
 * vectors, the codes' worst case, need more: VECTOR_REFINE_MIN_CANDIDATES.
 */
export const VECTOR_REFINE_FACTOR = 4;
export const VECTOR_REFINE_MIN_CANDIDATES = 100;

/** The refine factor of a search for k hits. */
export function vectorRefineFactor(k: number): number {
  return Math.max(VECTOR_REFINE_FACTOR, Math.ceil(VECTOR_REFINE_MIN_CANDIDATES / Math.max(1, k)));
}

/** vector-index.json: the last build of the vector index. */
export interface VectorIndexInfo {
  /**
   * 'ivf': an IVF index, searched in all `partitions`.
   * 'exact': written by versions before 2026-11-27, whose recall check dropped the index; the next run trains it again.
   */
  mode: 'ivf' | 'exact';
  /**
   * 'ivf_rq': 4-bit codes, candidates re-ranked with the full vectors; 'ivf_flat': full vectors in memory; 'ivf_bits':
   * the sign bits of a 'codes' index, in memory (vectorIndexKind). Absent: an IVF_FLAT index of an earlier version,
   * searched as it is until the next run trains the index the vectors get (in its place).
   */
  kind?: VectorIndexKind;
  rows: number;
  partitions: number;
  trainMs: number;
  builtAt: string;
}

/** The last vector-index build in the store folder `dir` (null: never built, or written before the recall check). */
export function readVectorIndexInfo(dir: string): VectorIndexInfo | null {
  try {
    const info = JSON.parse(fs.readFileSync(path.join(dir, VECTOR_INDEX_FILE), 'utf8')) as Partial<VectorIndexInfo>;
    // Files written before the recall check have no mode: treat them as unbuilt, so the next optimize trains the index.
    return info.mode && typeof info.partitions === 'number' ? (info as VectorIndexInfo) : null;
  } catch {
    return null;
  }
}

/** One line on how vector search runs, from the last build (`info`) and the table's size. */
export function describeVectorSearch(info: VectorIndexInfo | null, passages: number): string {
  if (!info) {
    return passages < VECTOR_INDEX_MIN_ROWS
      ? `exact (below ${VECTOR_INDEX_MIN_ROWS.toLocaleString('en')} passages no vector index is needed)`
      : 'exact (no vector index trained yet: the next run trains it)';
  }
  if (info.mode === 'ivf' && info.kind === 'ivf_rq') {
    return `IVF_RQ index of ${VECTOR_INDEX_BITS}-bit codes, all ${info.partitions} partitions searched, candidates ranked by the full vectors`;
  }
  if (info.mode === 'ivf' && info.kind === 'ivf_bits') {
    return `IVF index of sign bits, all ${info.partitions} partitions searched by Hamming distance, candidates ranked by ${CODE_BITS}-bit codes`;
  }
  if (info.mode === 'ivf') return `exact, from the IVF_FLAT index in memory (all ${info.partitions} partitions searched)`;
  return 'exact (an earlier version dropped the trained index: the next run trains it again)';
}
