// Does a recall check on the table's own rows (the store's rule until 2026-11-27: 32 rows as queries, their 10 nearest
// other rows) predict the recall real questions get from an IVF_FLAT index probed in part? On a copy of a finished store:
// one IVF_FLAT training as the store does it, then per probe share that check's recall@10, the recall@10 / @80 of real
// questions (a BEIR set's queries.jsonl or a workspace's questions, embedded by the builtin embedder) with the pipeline's
// vector query (k = 80, level IN (1, 2)) and its median time; exact search (a scan of the table) as the reference.
//   LANCEDB_LOG=error node --import tsx bench/vectorQueryRecall.ts <copy of a store> <queries.jsonl> [limit] [shares, e.g. 0.5,0.75,1]
// It leaves the trained index in the copy and writes its vector-index.json (eval the copy afterwards).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { Index } from '@lancedb/lancedb';
import { createEmbedder } from '../src/rag/embed';
import { defaultConfig } from '../src/rag/config';
import { vectorPartitions } from '../src/rag/store/lanceStore';

const VECTOR_PROBE_SHARES = [1 / 8, 1 / 4, 3 / 8, 1 / 2, 3 / 4, 1];

/** The former store check: 32 rows spread over the table, recall@10 of their 10 nearest other rows (ties count). */
async function rowCheck(t: lancedb.Table, rows: number) {
  const step = Math.max(1, Math.floor(rows / 32));
  const offsets = Array.from({ length: Math.min(32, rows) }, (_, i) => Math.min(rows - 1, i * step + (step >> 1)));
  const sample = (await t.takeOffsets(offsets).select(['id', 'vector']).toArray()).map((r) => ({ id: r.id as string, v: Float32Array.from(r.vector.toArray() as ArrayLike<number>) }));
  const nearest = async (v: Float32Array, self: string, nprobes?: number) => {
    let q = t.vectorSearch(v).distanceType('cosine').select(['id']).limit(11);
    q = nprobes === undefined ? q.bypassVectorIndex() : q.nprobes(nprobes);
    return (await q.toArray()).filter((r) => r.id !== self).slice(0, 10).map((r) => r._distance as number);
  };
  const exact: number[][] = [];
  for (const s of sample) exact.push(await nearest(s.v, s.id));
  return async (nprobes: number) => {
    let found = 0;
    let total = 0;
    for (const [i, s] of sample.entries()) {
      const tenth = exact[i][exact[i].length - 1] ?? 0;
      found += Math.min(exact[i].length, (await nearest(s.v, s.id, nprobes)).filter((d) => d <= tenth + 1e-6).length);
      total += exact[i].length;
    }
    return total ? Math.round((found / total) * 1000) / 1000 : 1;
  };
}

async function main(): Promise<void> {
  const [storeDir, queriesFile, limitArg, sharesArg] = process.argv.slice(2);
  const shares = sharesArg ? sharesArg.split(',').map(Number) : VECTOR_PROBE_SHARES;
  const t = await (await lancedb.connect(storeDir)).openTable('passages');
  const rows = await t.countRows();
  const texts = fs
    .readFileSync(queriesFile, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { text?: string; query?: string })
    .map((q) => q.text ?? q.query ?? '')
    .slice(0, Number(limitArg ?? 200));
  const embedder = createEmbedder(defaultConfig().embed);
  const queries = await embedder.embed(texts);
  const search = async (v: Float32Array, k: number, nprobes?: number) => {
    let q = t.vectorSearch(v).distanceType('cosine').where('level IN (1, 2)').select(['id']).limit(k);
    q = nprobes === undefined ? q.bypassVectorIndex() : q.nprobes(nprobes);
    return (await q.toArray()).map((r) => ({ id: r.id as string, d: r._distance as number }));
  };
  const inTurn = async <T>(f: (v: Float32Array) => Promise<T>) => {
    const out: T[] = [];
    for (const v of queries) out.push(await f(v));
    return out;
  };
  const exact = await inTurn((v) => search(v, 80));
  const exactMs: number[] = [];
  for (const v of queries.slice(0, 32)) {
    const a = performance.now();
    await search(v, 80);
    exactMs.push(performance.now() - a);
  }
  exactMs.sort((a, b) => a - b);
  const partitions = vectorPartitions(rows);
  const check = await rowCheck(t, rows);
  await t.createIndex('vector', { config: Index.ivfFlat({ distanceType: 'cosine', numPartitions: partitions }), replace: true });
  console.log(JSON.stringify({ rows, partitions, queries: queries.length, exactMedianMs: Math.round(exactMs[16] * 10) / 10 }));
  // A row found counts when it is as near as the exact list's k-th (ties at equal distance are arbitrary).
  const recall = (got: { d: number }[], ref: { d: number }[], k: number) => {
    const kth = ref[Math.min(k, ref.length) - 1]?.d ?? 0;
    return ref.length ? Math.min(k, ref.length, got.slice(0, k).filter((r) => r.d <= kth + 1e-6).length) / Math.min(k, ref.length) : 1;
  };
  let nprobes = 0;
  for (const share of shares) {
    nprobes = Math.max(1, Math.ceil(partitions * share));
    const got = await inTurn((v) => search(v, 80, nprobes));
    const mean = (k: number) => Math.round((got.reduce((s, g, i) => s + recall(g, exact[i], k), 0) / got.length) * 1000) / 1000;
    const ms: number[] = [];
    for (const v of queries.slice(0, 32)) {
      const a = performance.now();
      await search(v, 80, nprobes);
      ms.push(performance.now() - a);
    }
    ms.sort((a, b) => a - b);
    console.log(JSON.stringify({ nprobes, checkRecallAt10: await check(nprobes), queryRecallAt10: mean(10), queryRecallAt80: mean(80), medianMs: Math.round(ms[16] * 10) / 10 }));
  }
  fs.writeFileSync(
    path.join(storeDir, 'vector-index.json'),
    JSON.stringify({ mode: 'ivf', rows, partitions, trainMs: 0, builtAt: new Date().toISOString() }),
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
