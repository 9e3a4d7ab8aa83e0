// Profile of the vector-search part of retrieval latency (run: node --import tsx bench/searchProfile.ts 10000).
// Uses the tables built by 'npm run bench -- search'. Measures FTS vs vector search variants on the same table.
import '../src/rag/store/quietLogs';
import * as lancedb from '@lancedb/lancedb';
import { createEmbedder } from '../src/rag/embed';
import { defaultConfig } from '../src/rag/config';
import { loadBeir } from '../src/rag/eval/datasets';
const pct = (v: number[], p: number) => { const s = [...v].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)].toFixed(1); };
(async () => {
  const n = process.argv[2] ?? '10000';
  const db = await lancedb.connect(`/tmp/docs-rag-bench-search/n${n}`);
  const t = await db.openTable('passages');
  const emb = createEmbedder({ ...defaultConfig().embed, provider: 'builtin' });
  await emb.init();
  const qs = loadBeir(require('node:path').resolve(__dirname, '../../shared/eval/scifact')).queries.slice(0, 60).map((q) => q.text);
  const vecs = await emb.embed(qs);
  const run = async (name: string, f: (v: Float32Array) => Promise<unknown>) => {
    const ms: number[] = [];
    for (let i = 0; i < vecs.length; i++) { const s = performance.now(); await f(vecs[i]); if (i >= 10) ms.push(performance.now() - s); }
    console.log(`${n} ${name.padEnd(40)} p50 ${pct(ms, 50)} p95 ${pct(ms, 95)}`);
  };
  const cols = ['id', 'path', 'text', 'level', 'headingPath', 'title', 'loc_startLine'];
  await run('fts k=80 (fts_en)', (v) => t.query().fullTextSearch(new lancedb.MatchQuery(qs[0], 'fts_en')).select(['id']).limit(80).toArray());
  await run('vector k=80 all columns', (v) => t.vectorSearch(v).distanceType('cosine').nprobes(32).limit(80).toArray());
  await run('vector k=80 id only', (v) => t.vectorSearch(v).distanceType('cosine').nprobes(32).select(['id']).limit(80).toArray());
  await run('vector k=80 id only nprobes 8', (v) => t.vectorSearch(v).distanceType('cosine').nprobes(8).select(['id']).limit(80).toArray());
  await run('vector k=80 bypass index (flat) id only', (v) => t.vectorSearch(v).distanceType('cosine').bypassVectorIndex().select(['id']).limit(80).toArray());
  console.log('indices', (await t.listIndices()).map((i) => `${i.name}:${i.indexType}`).join(' '));
  await db.close();
})();
