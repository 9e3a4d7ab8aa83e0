// The vector index's probe shares on a copy of a finished store: one IVF_FLAT training as the store does it
// (sqrt(n)/4 partitions), recall@10 by the store's rule (32 of its rows, a row as near as the 10th exact neighbour counts)
// and the pipeline-shaped vector query's latency (k = 80, level IN (1, 2); 16 rows twice) per nprobes, against exact search.
//   LANCEDB_LOG=error node --import tsx bench/vectorProbes.ts <copy of a store>   (it replaces the copy's vector index)
import * as lancedb from '@lancedb/lancedb';
import { Index } from '@lancedb/lancedb';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
(async () => {
  const db = await lancedb.connect(process.argv[2]);
  const t = await db.openTable('passages');
  const rows = await t.countRows();
  const partitions = Math.max(2, Math.round(Math.sqrt(rows) / 4));
  const step = Math.floor(rows / 32);
  const offsets = Array.from({ length: 32 }, (_, i) => i * step + (step >> 1));
  const sample = (await t.takeOffsets(offsets).select(['id', 'vector']).toArray()).map((r) => ({ id: r.id as string, v: Float32Array.from(r.vector.toArray()) }));
  const nearest = async (v: Float32Array, self: string, nprobes?: number) => {
    let q = t.vectorSearch(v).distanceType('cosine').select(['id']).limit(11);
    q = nprobes === undefined ? q.bypassVectorIndex() : q.nprobes(nprobes);
    return (await q.toArray()).filter((r) => r.id !== self).slice(0, 10).map((r) => r._distance as number);
  };
  const exact: number[][] = [];
  for (const s of sample) exact.push(await nearest(s.v, s.id));
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
    let found = 0, total = 0;
    if (nprobes !== undefined) for (const [i, s] of sample.entries()) {
      const tenth = exact[i][exact[i].length - 1] ?? 0;
      const got = await nearest(s.v, s.id, nprobes);
      found += Math.min(exact[i].length, got.filter((d) => d <= tenth + 1e-6).length);
      total += exact[i].length;
    }
    const ms: number[] = [];
    for (let r = 0; r < 2; r++) for (const s of sample.slice(0, 16)) ms.push(await pipeline(s.v, nprobes));
    console.log(JSON.stringify({ nprobes: nprobes ?? 'exact', recall: total ? Math.round((found / total) * 1000) / 1000 : 1, medianMs: Math.round(median(ms)) }));
  }
})();
