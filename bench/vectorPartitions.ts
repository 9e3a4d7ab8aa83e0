// IVF_FLAT indexes of several partition counts on a copy of a store, each searched in all its partitions: training time,
// the pipeline-shaped vector query's median and 90th-percentile time (k = 80, level IN (1, 2); 64 SciFact questions, twice)
// and the process's resident memory (it grows: every index stays in LanceDB's cache).
//   LANCEDB_LOG=error node --import tsx bench/vectorPartitions.ts <copy of a store> <queries.jsonl> 1,2,8,80
// It replaces the copy's vector index.
import * as fs from 'node:fs';
import * as lancedb from '@lancedb/lancedb';
import { Index } from '@lancedb/lancedb';
import { createEmbedder } from '../src/rag/embed';
import { defaultConfig } from '../src/rag/config';
async function main(): Promise<void> {
  const [dir, qf, parts] = process.argv.slice(2);
  const t = await (await lancedb.connect(dir)).openTable('passages');
  const texts = fs.readFileSync(qf, 'utf8').trim().split('\n').map((l) => JSON.parse(l).text as string).slice(0, 64);
  const qs = await createEmbedder(defaultConfig().embed).embed(texts);
  for (const p of parts.split(',').map(Number)) {
    const t0 = performance.now();
    await t.createIndex('vector', { config: Index.ivfFlat({ distanceType: 'cosine', numPartitions: p }), replace: true });
    const trainMs = Math.round(performance.now() - t0);
    const ms: number[] = [];
    for (let r = 0; r < 2; r++) for (const v of qs) { const a = performance.now(); await t.vectorSearch(v).distanceType('cosine').where('level IN (1, 2)').select(['id']).nprobes(p).limit(80).toArray(); ms.push(performance.now() - a); }
    ms.sort((a, b) => a - b);
    const rss = Number(fs.readFileSync('/proc/self/status', 'utf8').match(/VmRSS:\s+(\d+)/)![1]) >> 10;
    console.log(JSON.stringify({ partitions: p, trainMs, medianMs: Math.round(ms[ms.length >> 1] * 10) / 10, p90Ms: Math.round(ms[Math.floor(ms.length * 0.9)] * 10) / 10, rssMB: rss }));
  }
}

void main();
