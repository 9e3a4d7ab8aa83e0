// Peak RSS and speed of the local embedder alone (its worker and model in this process) on the first <n> passage texts of
// an index: node --import tsx bench/localEmbedMemory.ts <model folder> <store> <n> <batch> [threads]
// The model: e.g. multilingual-e5-small's shape as an int8 export, generated (no download):
//   node --import tsx scripts/models/tinyEmbedding.ts /tmp/e5q8s --dim 384 --layers 12 --heads 12 --intermediate 1536 \
//     --extra-vocab 249917 --subwords --quantized
import * as lancedb from '@lancedb/lancedb';
import * as fs from 'node:fs';
import { LocalEmbedder } from '../src/rag/embed';
const [model, store, nS, batchS, threadsS] = process.argv.slice(2);
let peak = 0;
const rss = () => {
  const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  return m ? Math.round(+m[1] / 1024) : 0;
};
setInterval(() => (peak = Math.max(peak, rss())), 50).unref();
(async () => {
  const db = await lancedb.connect(store);
  const t = await db.openTable('passages');
  const rows = (await t.query().select(['text']).limit(Number(nS)).toArray()) as { text: string }[];
  const texts = rows.map((r) => r.text);
  await db.close?.();
  const base = rss();
  const e = new LocalEmbedder({ model, batchSize: Number(batchS), timeoutMs: 600_000, threads: threadsS ? Number(threadsS) : undefined });
  await e.init();
  const loaded = rss();
  const t0 = performance.now();
  await e.embed(texts);
  const ms = performance.now() - t0;
  console.log(JSON.stringify({ n: texts.length, batch: Number(batchS), chars: texts.reduce((s, x) => s + x.length, 0) / texts.length | 0, baseMB: base, loadedMB: loaded, peakMB: Math.max(peak, rss()), perS: +(texts.length / ms * 1000).toFixed(1) }));
  await e.close();
})();
