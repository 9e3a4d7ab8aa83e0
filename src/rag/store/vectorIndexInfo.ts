// What the last vector-index build decided (`<store>/vector-index.json`) and how to say it, without LanceDB: the
// extension host's status report reads it too, and the host never loads LanceDB (ARCHITECTURE.md).
import * as fs from 'node:fs';
import * as path from 'node:path';

export const VECTOR_INDEX_FILE = 'vector-index.json';

/**
 * From this many passages a vector index (IVF_FLAT, cosine) is trained and checked against exact search. Below it search
 * is exact: IVF training is random, and near the recall threshold (SciFact's 5,183 rows: 0.947 at 7 of 18 partitions in one
 * build, >= 0.95 in another) a random build decided whether the vector list lost a tenth of its quality (default nDCG@10
 * 0.681 exact vs 0.606 with the index). Exact search at 5k rows costs ~20 ms.
 */
export const VECTOR_INDEX_MIN_ROWS = 10_000;
/** The index is used only where its recall@10 against exact (flat) search, measured at build time, reaches this. */
export const VECTOR_MIN_RECALL = 0.95;

/** vector-index.json: the build-time decision and the recall measurement behind it. */
export interface VectorIndexInfo {
  /** 'ivf': IVF_FLAT searched with `nprobes`; 'exact': no index passed the recall check, search is flat. */
  mode: 'ivf' | 'exact';
  rows: number;
  partitions: number;
  nprobes: number | null;
  /** Measured recall@10 against exact search, by nprobes (the table's own rows as queries, self excluded; a row as near as the 10th exact neighbour counts). */
  recallAt10: Record<string, number>;
  minRecall: number;
  sample: number;
  /** Trainings done (VECTOR_TRAINING_ATTEMPTS at most); recallAt10 is the last one's. */
  attempts: number;
  trainMs: number;
  checkMs: number;
  builtAt: string;
}

/** The last vector-index build's decision in the store folder `dir` (null: never built, or written before the recall check). */
export function readVectorIndexInfo(dir: string): VectorIndexInfo | null {
  try {
    const info = JSON.parse(fs.readFileSync(path.join(dir, VECTOR_INDEX_FILE), 'utf8')) as Partial<VectorIndexInfo>;
    // Files written before the recall check have no mode: treat them as unchecked, so the next optimize re-checks them.
    return info.mode ? (info as VectorIndexInfo) : null;
  } catch {
    return null;
  }
}

/** One line on how vector search runs, from the last build's decision (`info`) and the table's size. */
export function describeVectorSearch(info: VectorIndexInfo | null, passages: number): string {
  if (!info) {
    return passages < VECTOR_INDEX_MIN_ROWS
      ? `exact (below ${VECTOR_INDEX_MIN_ROWS.toLocaleString('en')} passages no vector index is needed)`
      : 'exact (no vector index trained yet: the next run trains it)';
  }
  const best = Object.entries(info.recallAt10).sort((a, b) => b[1] - a[1])[0];
  if (info.mode === 'ivf') return `IVF index, ${info.nprobes} of ${info.partitions} partitions searched (recall@10 ${info.recallAt10[String(info.nprobes)]} against exact search)`;
  return (
    `exact: the trained index was not kept, its recall@10 against exact search stayed below ${info.minRecall}` +
    `${best ? ` (${best[1]} at ${best[0]} of ${info.partitions} partitions)` : ''}; searches over many passages are slower`
  );
}
