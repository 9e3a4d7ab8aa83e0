// Profile: cost of the level prefilter in vector and full-text search (run: node --import tsx bench/searchProfileFilter.ts 10000).
import '../src/rag/store/quietLogs';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { defaultConfig } from '../src/rag/config';
import { createEmbedder } from '../src/rag/embed';
import { loadBeir } from '../src/rag/eval/datasets';

const pct = (v: number[], p: number) => [...v].sort((a, b) => a - b)[Math.min(v.length - 1, Math.ceil((p / 100) * v.length) - 1)].toFixed(1);

(async () => {
  const n = process.argv[2] ?? '10000';
  const db = await lancedb.connect(`/tmp/docs-rag-bench-search/n${n}`);
  const t = await db.openTable('passages');
  const emb = createEmbedder({ ...defaultConfig().embed, provider: 'builtin' });
  await emb.init();
  const qs = loadBeir(path.resolve(__dirname, '../../shared/eval/scifact')).queries.slice(0, 60).map((q) => q.text);
  const vecs = await emb.embed(qs);
  const run = async (name: string, f: (i: number) => Promise<unknown>) => {
    const ms: number[] = [];
    for (let i = 0; i < vecs.length; i++) {
      const s = performance.now();
      await f(i);
      if (i >= 10) ms.push(performance.now() - s);
    }
    console.log(`${n} ${name.padEnd(48)} p50 ${pct(ms, 50)} p95 ${pct(ms, 95)}`);
  };
  await run('vector k=80, no filter', (i) => t.vectorSearch(vecs[i]).distanceType('cosine').nprobes(32).limit(80).toArray());
  await run('vector k=80, where level IN (1, 2) (prefilter)', (i) => t.vectorSearch(vecs[i]).distanceType('cosine').nprobes(32).where('level IN (1, 2)').limit(80).toArray());
  await run('vector k=80, where level IN (1, 2) postfilter', (i) => t.vectorSearch(vecs[i]).distanceType('cosine').nprobes(32).where('level IN (1, 2)').postfilter().limit(80).toArray());
  await run('fts k=80, no filter', (i) => t.query().fullTextSearch(new lancedb.MatchQuery(qs[i], 'fts_en')).limit(80).toArray());
  await run('fts k=80, where level IN (1, 2)', (i) => t.query().fullTextSearch(new lancedb.MatchQuery(qs[i], 'fts_en')).where('level IN (1, 2)').limit(80).toArray());
  await db.close();
})();
