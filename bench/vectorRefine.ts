// The vector index kind and its search settings: IVF_RQ with 1–8 bits per dimension, searched in every partition with
// its candidates re-ranked on the full vectors (refineFactor), or IVF_FLAT (full vectors in the index), on a copy of a
// store. Recall@80 and @10 of real questions (the builtin embedder, the pipeline's vector query: k = 80, level 1–2, all
// passage columns and the vector) against a scan of the table, the median time of a second round of the queries, and the
// process's resident memory before and after them (the training's memory included: compare the growth).
//   LANCEDB_LOG=error node --import tsx bench/vectorRefine.ts <copy of a store> <queries.jsonl> rq|flat|none [bits] [refines] [n]
// e.g. `… rq 4 1,2,4`. It replaces the copy's vector index; the scan's ids are cached beside the copy.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { Index } from '@lancedb/lancedb';
import { vectorPartitions } from '../src/rag/store/lanceStore';
import { createEmbedder } from '../src/rag/embed';
import { defaultConfig } from '../src/rag/config';
import { PASSAGE_COLUMNS } from '../src/rag/store/schema';
async function main(): Promise<void> {
  const [dir, qf, kind, bitsS, refinesS, nS] = process.argv.slice(2);
  const t = await (await lancedb.connect(dir)).openTable('passages');
  const n = Number(nS ?? 60);
  const texts = fs.readFileSync(qf, 'utf8').trim().split('\n').map((l) => (JSON.parse(l).text ?? JSON.parse(l).query) as string).slice(0, n);
  const qs = await createEmbedder(defaultConfig().embed).embed(texts);
  const cache = path.join(path.dirname(dir), path.basename(qf) + `.${n}.exact.json`);
  let exact: string[][];
  if (fs.existsSync(cache)) exact = JSON.parse(fs.readFileSync(cache, 'utf8'));
  else {
    exact = [];
    for (const v of qs) exact.push((await t.vectorSearch(v).distanceType('cosine').where('level IN (1, 2)').select(['id']).bypassVectorIndex().limit(80).toArray()).map((r) => r.id as string));
    fs.writeFileSync(cache, JSON.stringify(exact));
  }
  const rows = await t.countRows();
  const parts = vectorPartitions(rows);
  const bits = Number(bitsS ?? 1);
  const t0 = performance.now();
  if (kind === 'rq') await t.createIndex('vector', { config: Index.ivfRq({ distanceType: 'cosine', numPartitions: parts, numBits: bits } as never), replace: true });
  else if (kind === 'flat') await t.createIndex('vector', { config: Index.ivfFlat({ distanceType: 'cosine', numPartitions: parts }), replace: true });
  const trainMs = Math.round(performance.now() - t0);
  const rssOf = () => Math.round(Number(fs.readFileSync('/proc/self/status', 'utf8').match(/VmRSS:\s+(\d+)/)![1]) / 1024);
  const rss0 = rssOf();
  for (const refine of (refinesS ?? '1').split(',').map(Number)) {
    let rec = 0; let rec10 = 0; const ms: number[] = [];
    for (let round = 0; round < 2; round++) for (const [i, v] of qs.entries()) {
      let q = t.vectorSearch(v).distanceType('cosine').where('level IN (1, 2)').select([...PASSAGE_COLUMNS, 'vector', '_distance']).nprobes(parts).limit(80);
      if (refine > 1) q = q.refineFactor(refine);
      const a = performance.now();
      const res = (await q.toArray()).map((r) => r.id as string);
      if (round === 0) { const got = new Set(res); rec += exact[i].filter((id) => got.has(id)).length / exact[i].length; const g10 = new Set(res.slice(0, 10)); rec10 += exact[i].slice(0, 10).filter((id) => g10.has(id)).length / Math.min(10, exact[i].length); }
      else ms.push(performance.now() - a);
    }
    ms.sort((a, b) => a - b);
    console.log(JSON.stringify({ kind, bits, refine, rows, parts, trainMs, recallAt80: +(rec / qs.length).toFixed(3), recallAt10: +(rec10 / qs.length).toFixed(3), medianMs: +ms[ms.length >> 1].toFixed(1), rssBeforeMB: rss0, rssMB: rssOf() }));
  }
}
void main();
