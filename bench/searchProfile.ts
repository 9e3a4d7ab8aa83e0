// Profile of the vector-search part of retrieval latency (run: node --import tsx bench/searchProfile.ts 10000).
// Uses the tables built by 'npm run bench -- search'. Measures FTS vs vector search variants on the same table.
import '../src/rag/store/quietLogs';
import * as lancedb from '@lancedb/lancedb';
import { createEmbedder } from '../src/rag/embed';
import { defaultConfig } from '../src/rag/config';
import { loadBeir } from '../src/rag/eval/datasets';
const pct = (v: number[], p: number) => { const s = [...v].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)].toFixed(1); };
if (process.argv[2] !== 'ivf') (async () => {
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

/**
 * `node --import tsx bench/searchProfile.ts ivf 10000`: copies the n-passage bench table, builds an IVF_FLAT (cosine)
 * vector index on the copy, and measures vector search with all passage columns at nprobes 32 and 8 — the effect of
 * indexing below the store's 20,000-row threshold.
 */
async function ivfOnCopy(n: string): Promise<void> {
  const fs = await import('node:fs');
  const src = `/tmp/docs-rag-bench-search/n${n}`;
  const dst = `${src}-ivf`;
  fs.rmSync(dst, { recursive: true, force: true });
  fs.cpSync(src, dst, { recursive: true });
  const db = await lancedb.connect(dst);
  const t = await db.openTable('passages');
  const t0 = performance.now();
  await t.createIndex('vector', { config: lancedb.Index.ivfFlat({ distanceType: 'cosine' }), replace: true });
  console.log(`${n} IVF_FLAT build ${(performance.now() - t0).toFixed(0)} ms`);
  const emb = createEmbedder({ ...defaultConfig().embed, provider: 'builtin' });
  await emb.init();
  const qs = loadBeir(require('node:path').resolve(__dirname, '../../shared/eval/scifact')).queries.slice(0, 60).map((q) => q.text);
  const vecs = await emb.embed(qs);
  for (const nprobes of [32, 8]) {
    const ms: number[] = [];
    for (let i = 0; i < vecs.length; i++) {
      const s = performance.now();
      await t.vectorSearch(vecs[i]).distanceType('cosine').nprobes(nprobes).limit(80).toArray();
      if (i >= 10) ms.push(performance.now() - s);
    }
    console.log(`${n} IVF_FLAT vector k=80 all columns nprobes ${nprobes}: p50 ${pct(ms, 50)} p95 ${pct(ms, 95)}`);
  }
  await db.close();
  fs.rmSync(dst, { recursive: true, force: true });
}
if (process.argv[2] === 'ivf') ivfOnCopy(process.argv[3] ?? '10000').catch((e) => { console.error(e); process.exitCode = 1; });
