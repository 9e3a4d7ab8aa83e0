// IVF_RQ codes on uniform random unit vectors (the worst case for quantized codes: every distance alike): recall@k of
// the index searched in every partition with refineFactor r, against a scan, for 1, 2, 4 and 8 bits per dimension.
//   LANCEDB_LOG=error node --import tsx bench/vectorCodesUniform.ts <dim> <rows>     (50 questions, a temp table)
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { Index } from '@lancedb/lancedb';
import { vectorPartitions } from '../src/rag/store/lanceStore';
const rng = (seed: number) => () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
const unit = (v: number[]) => { const n = Math.hypot(...v); return v.map((x) => x / n); };
async function main() {
  const [dimS, nS, kind] = process.argv.slice(2);
  const dim = Number(dimS); const n = Number(nS);
  const r = rng(11);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rqs-'));
  const db = await lancedb.connect(dir);
  const rows = Array.from({ length: n }, (_, i) => ({ id: i, vector: unit(Array.from({ length: dim }, () => r() - 0.5)) }));
  const t = await db.createTable('t', rows);
  const qs = Array.from({ length: 50 }, () => unit(Array.from({ length: dim }, () => r() - 0.5)));
  const parts = vectorPartitions(n);
  for (const bits of [1, 2, 4, 8]) {
    await t.createIndex('vector', { config: Index.ivfRq({ distanceType: 'cosine', numPartitions: parts, numBits: bits } as never), replace: true });
    const out: Record<string, number> = {};
    for (const k of [10, 80]) for (const refine of [2, 4, 10, 20]) {
      let rec = 0;
      for (const q of qs) {
        const ex = (await t.vectorSearch(q).distanceType('cosine').bypassVectorIndex().select(['id']).limit(k).toArray()).map((x) => x.id);
        const got = new Set((await t.vectorSearch(q).distanceType('cosine').nprobes(parts).refineFactor(refine).select(['id']).limit(k).toArray()).map((x) => x.id));
        rec += ex.filter((x) => got.has(x)).length / k;
      }
      out[`k${k}r${refine}`] = +(rec / qs.length).toFixed(3);
    }
    console.log(JSON.stringify({ dim, n, bits, ...out }));
  }
  fs.rmSync(dir, { recursive: true });
}
void main();
