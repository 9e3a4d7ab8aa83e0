// A lead for the search process's memory: IVF_RQ (1-bit RaBitQ codes in the index) searched in every partition, its
// candidates re-ranked with the full vectors read from the table (refineFactor), against the IVF_FLAT index the store
// trains (full vectors in the index). Recall@80 of real questions (the builtin embedder, the pipeline's vector query)
// against a scan of the table, median query time, and the process's resident memory after the queries.
//   LANCEDB_LOG=error node --import tsx bench/vectorRefine.ts <copy of a store> <queries.jsonl> rq|flat
// It replaces the copy's vector index.
import * as fs from 'node:fs';
import * as lancedb from '@lancedb/lancedb';
import { Index } from '@lancedb/lancedb';
import { createEmbedder } from '../src/rag/embed';
import { defaultConfig } from '../src/rag/config';
async function main(): Promise<void> {
  const [dir, qf, kind] = process.argv.slice(2);
  const t = await (await lancedb.connect(dir)).openTable('passages');
  const texts = fs.readFileSync(qf, 'utf8').trim().split('\n').map((l) => JSON.parse(l).text as string).slice(0, 60);
  const qs = await createEmbedder(defaultConfig().embed).embed(texts);
  const exact: string[][] = [];
  for (const v of qs) exact.push((await t.vectorSearch(v).distanceType('cosine').where('level IN (1, 2)').select(['id']).bypassVectorIndex().limit(80).toArray()).map((r) => r.id as string));
  const parts = 80;
  const t0 = performance.now();
  if (kind === 'rq') await t.createIndex('vector', { config: Index.ivfRq({ distanceType: 'cosine', numPartitions: parts } as never), replace: true });
  else await t.createIndex('vector', { config: Index.ivfFlat({ distanceType: 'cosine', numPartitions: parts }), replace: true });
  const trainMs = Math.round(performance.now() - t0);
  for (const refine of kind === 'rq' ? [1, 5, 10] : [0]) {
    let rec = 0; const ms: number[] = [];
    for (const [i, v] of qs.entries()) {
      let q = t.vectorSearch(v).distanceType('cosine').where('level IN (1, 2)').select(['id']).nprobes(parts).limit(80);
      if (refine > 1) q = q.refineFactor(refine);
      const a = performance.now();
      const got = new Set((await q.toArray()).map((r) => r.id as string));
      ms.push(performance.now() - a);
      rec += exact[i].filter((id) => got.has(id)).length / exact[i].length;
    }
    ms.sort((a, b) => a - b);
    const rss = Math.round(Number(fs.readFileSync('/proc/self/status', 'utf8').match(/VmRSS:\s+(\d+)/)![1]) / 1024);
    console.log(JSON.stringify({ kind, refine, trainMs, recallAt80: Math.round((rec / qs.length) * 1000) / 1000, medianMs: Math.round(ms[ms.length >> 1] * 10) / 10, rssMB: rss }));
  }
}

void main();
