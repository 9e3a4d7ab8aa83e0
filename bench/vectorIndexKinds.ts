// Vector index kinds on an existing store (issue 15 item 2 / issue 9 item 5): trains ONE kind per process on a copy of a
// store and reports the process's peak resident memory (VmHWM), the training time, and recall@10 against exact search
// measured the way the store checks its index (VECTOR_RECALL_SAMPLE rows of the table as queries, self excluded) at the
// probe shares of VECTOR_PROBE_SHARES, plus the median query time at each share.
// Usage: node --import tsx bench/vectorIndexKinds.ts <copy of a store> <ivf_flat|ivf_pq|ivf_rq|hnsw_sq> [refineFactor]
import * as fs from 'node:fs';
import * as lancedb from '@lancedb/lancedb';
// The probe shares and sample size of the store's former recall check (until 2026-11-27; the store now searches every partition).
const VECTOR_PROBE_SHARES = [1 / 8, 1 / 4, 3 / 8, 1 / 2];
const VECTOR_RECALL_SAMPLE = 32;

const toF32 = (v: unknown) => (v instanceof Float32Array ? v : Float32Array.from(v as ArrayLike<number>));

async function main(): Promise<void> {
  const [store, kind = 'ivf_flat', refineArg] = process.argv.slice(2);
  if (!store) throw new Error('usage: bench/vectorIndexKinds.ts <store copy> <ivf_flat|ivf_pq|ivf_rq|hnsw_sq> [refineFactor]');
  const refine = refineArg ? Number(refineArg) : undefined;
  const db = await lancedb.connect(store);
  const table = await db.openTable('passages');
  const rows = await table.countRows();
  const partitions = Math.max(2, Math.round(Math.sqrt(rows) / 4));
  const configs: Record<string, lancedb.Index> = {
    ivf_flat: lancedb.Index.ivfFlat({ distanceType: 'cosine', numPartitions: partitions }),
    ivf_pq: lancedb.Index.ivfPq({ distanceType: 'cosine', numPartitions: partitions }),
    ivf_rq: lancedb.Index.ivfRq({ distanceType: 'cosine', numPartitions: partitions }),
    hnsw_sq: lancedb.Index.hnswSq({ distanceType: 'cosine', numPartitions: 1 }),
  };
  const t0 = Date.now();
  await table.createIndex('vector', { config: configs[kind], replace: true });
  const trainMs = Date.now() - t0;
  const peakTrain = Math.round(Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024);
  const step = Math.max(1, Math.floor(rows / VECTOR_RECALL_SAMPLE));
  const offsets = Array.from({ length: Math.min(VECTOR_RECALL_SAMPLE, rows) }, (_, i) => Math.min(rows - 1, i * step + (step >> 1)));
  const sample = (await table.takeOffsets(offsets).select(['id', 'vector']).toArray()).map((r) => ({ id: r.id as string, v: toF32(r.vector) }));
  const nearest = async (v: Float32Array, self: string, nprobes?: number) => {
    let q = table.vectorSearch(v).distanceType('cosine').select(['id']).limit(11);
    if (nprobes === undefined) q = q.bypassVectorIndex();
    else {
      q = kind === 'hnsw_sq' ? q.ef(Math.max(40, nprobes * 10)) : q.nprobes(nprobes);
      if (refine) q = q.refineFactor(refine);
    }
    return (await q.toArray()).map((r) => r.id as string).filter((id) => id !== self).slice(0, 10);
  };
  const exact: string[][] = [];
  for (const s of sample) exact.push(await nearest(s.v, s.id));
  const recall: Record<string, { recall: number; medianMs: number }> = {};
  for (const share of VECTOR_PROBE_SHARES) {
    const nprobes = Math.max(1, Math.ceil(partitions * share));
    let found = 0;
    let total = 0;
    const times: number[] = [];
    for (const [i, s] of sample.entries()) {
      const t = performance.now();
      const got = new Set(await nearest(s.v, s.id, nprobes));
      times.push(performance.now() - t);
      found += exact[i].filter((id) => got.has(id)).length;
      total += exact[i].length;
    }
    times.sort((a, b) => a - b);
    recall[String(nprobes)] = { recall: Math.round((found / total) * 1000) / 1000, medianMs: Math.round(times[times.length >> 1] * 10) / 10 };
  }
  const peak = Math.round(Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024);
  console.log(JSON.stringify({ kind, refine: refine ?? null, rows, partitions, trainMs, 'peak after training MB': peakTrain, 'peak MB': peak, recallAt10: recall }));
  table.close();
  db.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
