// Peak RSS per phase of one index run in this process (any embedder; the fill's embedding, vector writes and optimizes
// as sub-phases), and the RSS when the fill starts. Stops the run after <seconds> (a fill of a large corpus with a real
// model takes an hour). Run it with the indexing environment (INDEXING_MALLOC_ENV, LANCE_WRITER_ENV, INDEXING_NODE_FLAGS):
//   env MALLOC_ARENA_MAX=2 … node --max-semi-space-size=2 --import tsx bench/phaseMemory.ts <folder> <new store> <seconds> [local model folder]
import * as fs from 'node:fs';
import { openEngine } from '../src/rag/engine';
import { indexFolder } from '../src/rag/index/indexer';
const [folder, store, secs, model] = process.argv.slice(2);
const rss = () => Math.round(+/VmRSS:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))![1] / 1024);
let phase = 'open';
const peaks = new Map<string, { peak: number; from: number; n: number }>();
const t0 = performance.now();
const tick = () => {
  const r = rss();
  const p = peaks.get(phase) ?? { peak: 0, from: Math.round((performance.now() - t0) / 1000), n: 0 };
  p.peak = Math.max(p.peak, r);
  p.n++;
  peaks.set(phase, p);
};
setInterval(tick, 50).unref();
(async () => {
  const ac = new AbortController();
  setTimeout(() => ac.abort(), Number(secs) * 1000).unref();
  const engine = await openEngine({ folder, storeDir: store, config: model ? { embed: { provider: 'local', localModel: model } } : undefined } as never);
  let filled = '';
  let atFill = 0;
  // Sub-phases of the fill: embedding, the vector writes, the optimize every 2,048 rows.
  const tag = <T,>(name: string, f: () => Promise<T>) => async () => {
    const before = phase;
    tick();
    phase = `${before}:${name}`;
    try {
      return await f();
    } finally {
      tick();
      phase = before;
    }
  };
  const e = engine.embedder;
  const embed = e.embed.bind(e);
  e.embed = (t, sig) => tag('embed', () => embed(t, sig))();
  const opt = engine.optimizeNow.bind(engine);
  (engine as { optimizeNow: typeof opt }).optimizeNow = (...a: Parameters<typeof opt>) => tag('optimize', () => opt(...a))();
  const st = engine.store;
  const fv = st.fillVectors.bind(st);
  st.fillVectors = (rows) => tag('write', () => fv(rows))();
  const r = await indexFolder(engine, {
    signal: ac.signal,
    maintenance: 'caller',
    onProgress: (p) => {
      tick();
      phase = p.phase === 'parse' || p.phase === 'embed' || p.phase === 'write' ? 'files' : p.phase;
      if (p.vectors) filled = `${p.vectors.filled}/${p.vectors.total}`;
      if (p.phase === 'vectors' && !atFill) atFill = rss();
    },
  });
  tick();
  await engine.close();
  console.log(JSON.stringify({ atFill, s: Math.round((performance.now() - t0) / 1000), keywordReadyMs: r.keywordReadyMs, filled, maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024), phases: Object.fromEntries(peaks) }));
})();
