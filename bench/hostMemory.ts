// Extension-host memory with a large index open and searched (issue 15): what the extension host holds when it reads
// an index the way the extension does — the search process (dist/searchWorker.js, forked by the same client code)
// opens it and runs the search pipeline; the host loads dist/engine.js (the answer stage) on first use and builds the
// extractive answer from the retrieved passages. Reports this process's resident memory before, after opening the
// index and after the searches (peak and end), and the search process's peak.
// Usage: node --import tsx bench/hostMemory.ts <folder> <storeDir> [rounds]   (after `npm run build`)
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SearchProcess } from '../src/searchProcess/client';

const QUERIES = [
  'diffusion tensor imaging of white matter in preterm infants',
  'effect of vitamin D on bone density',
  'risk factors for myocardial infarction',
  'gene expression in breast cancer cells',
  'Urlaubsanspruch Arbeitnehmer Kündigung',
  'antibiotic resistance in hospital infections',
  'T cell activation and cytokines',
  'what causes insulin resistance',
  'mortality after hip fracture in elderly',
  'stem cell differentiation markers',
];

const mb = (n: number) => Math.round(n / 1048576);
const hwm = (pid: number | 'self' = 'self') => Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

async function main(): Promise<void> {
  const [folder, storeDir, roundsArg] = process.argv.slice(2);
  if (!folder || !storeDir) throw new Error('usage: bench/hostMemory.ts <folder> <storeDir> [rounds]');
  const rounds = Number(roundsArg ?? 5);
  global.gc?.();
  const before = process.memoryUsage().rss;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const m = require(path.resolve(__dirname, '../dist/engine.js')) as typeof import('../src/views/engineBundle');
  const searcher = new SearchProcess(path.resolve(__dirname, '../dist/searchWorker.js'), { info: () => undefined, warn: console.warn, error: console.error });
  const engine = await searcher.open({ key: 'bench', name: 'bench', folder, storeDir, config: {} });
  const passages = await engine.store.countPassages();
  const opened = process.memoryUsage().rss;
  const retriever = engine.retriever({ config: 'default' });
  const ms: number[] = [];
  let peak = 0;
  for (let r = 0; r < rounds; r++) {
    for (const q of QUERIES) {
      const t0 = performance.now();
      const res = await retriever.retrieve(q, { k: 10 });
      ms.push(performance.now() - t0);
      if (res.hits.length === 0) throw new Error(`no hits for "${q}"`);
      // The host's own work on an answer: the extractive answer with citations from the retrieved passages.
      const answer = await m.answer.answerQuestion(q, { retriever, chatModel: null, embedder: engine.embedder, maxSources: 16 });
      if (answer.citations.length === 0) throw new Error(`no citations for "${q}"`);
      peak = Math.max(peak, process.memoryUsage().rss);
    }
  }
  const endUsage = process.memoryUsage();
  const end = endUsage.rss;
  const childPeak = searcher.pid ? hwm(searcher.pid) : 0;
  await engine.close();
  searcher.dispose();
  ms.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      passages,
      searches: ms.length,
      'search ms (median)': Math.round(ms[ms.length >> 1]),
      'rss before engine MB': mb(before),
      'rss index open MB': mb(opened),
      'rss after searches MB': mb(end),
      'rss peak while searching MB': mb(peak),
      'host process peak (VmHWM) MB': Math.round(hwm()),
      'search process peak (VmHWM) MB': Math.round(childPeak),
      'growth (peak - before) MB': mb(peak - before),
      'JS heap / external / arrayBuffers at end MB': `${mb(endUsage.heapUsed)} / ${mb(endUsage.external)} / ${mb(endUsage.arrayBuffers)}`,
    }),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
