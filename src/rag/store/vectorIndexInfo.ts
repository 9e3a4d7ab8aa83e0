// What the last vector-index build decided (`<store>/vector-index.json`) and how to say it, without LanceDB: the
// extension host's status report reads it too, and the host never loads LanceDB (ARCHITECTURE.md).
import * as fs from 'node:fs';
import * as path from 'node:path';

export const VECTOR_INDEX_FILE = 'vector-index.json';

/**
 * From this many passages a vector index (IVF_FLAT, cosine) is trained: searched whole it gives the scan's hits faster
 * (SciFact's 5,183 rows: 2.6 against 8.1 ms a query; 101k: 25 against 218 ms). Below it a scan costs a few ms and the
 * training would cost more than it saves. (Until 2026-11-27 it was 10,000: an index searched in part lost quality
 * depending on its random training, and SciFact sat near the line. At 5,000 the gate's SciFact set searches an index.)
 */
export const VECTOR_INDEX_MIN_ROWS = 5_000;

/** vector-index.json: the last build of the vector index. */
export interface VectorIndexInfo {
  /**
   * 'ivf': an IVF_FLAT index, searched in all `partitions` (exact results from the index's in-memory vectors).
   * 'exact': written by versions before 2026-11-27, whose recall check dropped the index; the next run trains it again.
   */
  mode: 'ivf' | 'exact';
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
  if (info.mode === 'ivf') return `exact, from the IVF_FLAT index in memory (all ${info.partitions} partitions searched)`;
  return 'exact (an earlier version dropped the trained index: the next run trains it again)';
}
