// How often the IVF_RQ index, searched as the store searches it (every partition, candidates re-ranked by the full
// vectors: refineFactor), misses one of the scan's k hits, over repeated trainings (k-means and the codes are random):
// uniform random unit vectors, the worst case for quantized codes (every distance alike).
//   LANCEDB_LOG=error node --import tsx bench/vectorCodesRetrain.ts <dim> <rows> <trainings> [k]     (20 questions)
// Prints, per refine factor: result lists that differ from the scan's, and hits of the scan's lists lost.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { Index } from '@lancedb/lancedb';
import { vectorPartitions } from '../src/rag/store/lanceStore';
import { VECTOR_INDEX_BITS, vectorRefineFactor } from '../src/rag/store/vectorIndexInfo';

const rng = (seed: number) => () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
const unit = (v: number[]) => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

async function main(): Promise<void> {
  const [dimS, nS, trainsS, kS] = process.argv.slice(2);
  const dim = Number(dimS);
  const n = Number(nS);
  const trains = Number(trainsS);
  const k = Number(kS ?? 80);
  const r = rng(3);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rq-retrain-'));
  try {
    const db = await lancedb.connect(dir);
    const t = await db.createTable('t', Array.from({ length: n }, (_, i) => ({ id: i, vector: unit(Array.from({ length: dim }, () => r() - 0.5)) })));
    const qs = Array.from({ length: 20 }, () => unit(Array.from({ length: dim }, () => r() - 0.5)));
    const parts = vectorPartitions(n);
    const exact: number[][] = [];
    for (const q of qs) exact.push((await t.vectorSearch(q).distanceType('cosine').bypassVectorIndex().select(['id']).limit(k).toArray()).map((x) => x.id));
    const refines = [...new Set([1, 2, vectorRefineFactor(k), 6, 8, 12])].sort((a, b) => a - b);
    const differ: Record<number, number> = Object.fromEntries(refines.map((x) => [x, 0]));
    const lost: Record<number, number> = Object.fromEntries(refines.map((x) => [x, 0]));
    for (let tr = 0; tr < trains; tr++) {
      await t.createIndex('vector', { config: Index.ivfRq({ distanceType: 'cosine', numPartitions: parts, numBits: VECTOR_INDEX_BITS } as never), replace: true });
      for (const refine of refines) {
        for (const [i, q] of qs.entries()) {
          const got = (await t.vectorSearch(q).distanceType('cosine').nprobes(parts).refineFactor(refine).select(['id']).limit(k).toArray()).map((x) => x.id);
          if (got.join() !== exact[i].join()) differ[refine]++;
          const have = new Set(got);
          lost[refine] += exact[i].filter((x) => !have.has(x)).length;
        }
      }
    }
    console.log(JSON.stringify({ dim, rows: n, k, storeRefine: vectorRefineFactor(k), trainings: trains, lists: trains * qs.length, differ, lost }));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
