// The vector index's probe shares on a copy of a finished store: one IVF_FLAT training as the store does it
// (`vectorPartitions`), recall@10 by the store's own check (`recallCheck`) and the pipeline-shaped vector query's latency
// (k = 80, level IN (1, 2); 16 of the check's rows twice) per nprobes, against exact search.
//   LANCEDB_LOG=error node --import tsx bench/vectorProbes.ts <copy of a store>   (it replaces the copy's vector index)
import * as lancedb from '@lancedb/lancedb';
import { Index } from '@lancedb/lancedb';
import { recallCheck, vectorPartitions } from '../src/rag/store/lanceStore';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const db = await lancedb.connect(process.argv[2]);
  const t = await db.openTable('passages');
  const rows = await t.countRows();
  const partitions = vectorPartitions(rows);
  const check = await recallCheck(t, rows);
  const t0 = Date.now();
  await t.createIndex('vector', { config: Index.ivfFlat({ distanceType: 'cosine', numPartitions: partitions }), replace: true });
  console.log(JSON.stringify({ rows, partitions, trainMs: Date.now() - t0 }));
  const pipeline = async (v: Float32Array, nprobes?: number) => {
    let q = t.vectorSearch(v).distanceType('cosine').where('level IN (1, 2)').limit(80);
    q = nprobes === undefined ? q.bypassVectorIndex() : q.nprobes(nprobes);
    const a = performance.now();
    await q.toArray();
    return performance.now() - a;
  };
  for (const share of [1 / 8, 1 / 4, 3 / 8, 1 / 2, 5 / 8, undefined]) {
    const nprobes = share === undefined ? undefined : Math.ceil(partitions * share);
    const recall = nprobes === undefined ? 1 : await check.recallAt(nprobes);
    const ms: number[] = [];
    for (let r = 0; r < 2; r++) for (const v of check.samples.slice(0, 16)) ms.push(await pipeline(v, nprobes));
    console.log(JSON.stringify({ nprobes: nprobes ?? 'exact', recall, medianMs: Math.round(median(ms)) }));
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
