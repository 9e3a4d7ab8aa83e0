// One measured step of the indexing benchmark, in its own process (so peak RSS belongs to that step). Prints one JSON line.
//   parse <folder>                 reading + text extraction alone (same worker pool and concurrency as the indexer)
//   index <folder> <store>         full index run into a new store (its maintenance afterwards, each job in a child: step)
//   reindex <folder> <store> <rel> change one file, then an incremental run (full walk) and a hinted run (paths)
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chunkDocument } from '../src/rag/chunk';
import { defaultConfig } from '../src/rag/config';
import { embedBuiltin } from '../src/rag/embed';
import { openEngine } from '../src/rag/engine';
import { ParserPool } from '../src/rag/ingest';
import { indexFolder } from '../src/rag/index/indexer';
import { walkFolder } from '../src/rag/index/walk';
import type { JobKind } from '../src/rag/index/lifecycle';
import { STEP_MARK, hostJobs, runMaintenanceJobs, runMaintenanceStep } from '../src/rag/index/maintenance';

const rssMB = () => Math.round(process.resourceUsage().maxRSS / 1024);
/** CPU time of the whole process (main thread, parser worker threads, LanceDB's native threads): steadier than wall time on a shared machine. */
const cpuMs = () => {
  const u = process.cpuUsage();
  return Math.round((u.user + u.system) / 1000);
};

async function parseOnly(folder: string): Promise<object> {
  const config = defaultConfig();
  const t0 = performance.now();
  const entries = await walkFolder(folder, { include: config.ingest.include, exclude: config.ingest.exclude });
  const pool = new ParserPool(config.ingest.workers);
  let next = 0;
  let ok = 0;
  let failed = 0;
  let chars = 0;
  const worker = async () => {
    while (next < entries.length) {
      const e = entries[next++];
      try {
        const doc = await pool.parse(e.abs, { timeoutMs: config.ingest.parseTimeoutMs, maxFileSizeMB: config.ingest.maxFileSizeMB });
        ok++;
        for (const b of doc.blocks) chars += b.text.length;
      } catch {
        failed++;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(3, config.ingest.workers * 2 + 1) }, worker));
  const ms = performance.now() - t0;
  await pool.close();
  return { step: 'parse', files: entries.length, ok, failed, chars, ms: Math.round(ms), cpuMs: cpuMs(), maxRssMB: rssMB() };
}

/**
 * A full run as `docs-rag index` does it: the run ends once its passages are searchable, then its maintenance runs, each
 * job in a child process (`step` below, through the same runMaintenanceJobs as the CLI). `searchableMs` is the time to
 * first search; `ms` includes the maintenance; maxRssMB is the largest of the processes' peaks.
 */
async function indexOnce(folder: string, store: string): Promise<object> {
  const t0 = performance.now();
  const engine = await openEngine({ folder, storeDir: store });
  const opened = performance.now();
  let optimizeAt = 0;
  const r = await indexFolder(engine, {
    maintenance: 'caller',
    onProgress: (p) => {
      if (p.phase === 'optimize' && !optimizeAt) optimizeAt = performance.now();
    },
  });
  // The run's own count (its passages are searchable before a large run's compaction), from the engine's opening.
  const searchableMs = r.searchableMs !== undefined ? opened - t0 + r.searchableMs : performance.now() - t0;
  await engine.close();
  const runRssMB = rssMB();
  const runCpuMs = cpuMs();
  const { after, background } = hostJobs(r.maintenance);
  const steps = await runMaintenanceJobs([...after, ...background], (kind) => [...process.execArgv, __filename, 'step', store, kind]);
  const vector = steps.ran.find((j) => j.kind === 'train-vector-index');
  const stepsRssMB = Math.max(0, ...steps.ran.map((j) => j.peakRssMB ?? 0));
  const ms = performance.now() - t0;
  return {
    step: 'index',
    files: r.files,
    chunks: r.chunks,
    errors: r.errors.length,
    ms: Math.round(ms),
    searchableMs: Math.round(searchableMs),
    optimizeMs: optimizeAt ? Math.round(t0 + searchableMs - optimizeAt) : 0,
    vectorIndexMs: vector ? vector.ms : 0,
    vectorIndexTrained: !!vector,
    maintenance: steps.ran,
    cpuMs: runCpuMs,
    runCpuMs,
    timings: r.timings,
    runMaxRssMB: runRssMB,
    stepsMaxRssMB: stepsRssMB,
    maxRssMB: Math.max(runRssMB, stepsRssMB),
  };
}

async function reindexOne(folder: string, store: string, rel: string): Promise<object> {
  const abs = path.join(folder, rel);
  if (!fs.existsSync(abs)) throw new Error(`reindex: ${abs} does not exist`);
  const engine = await openEngine({ folder, storeDir: store });
  // Warm-up: open tables, start nothing else.
  await engine.store.countPassages();
  fs.appendFileSync(abs, `\n\nEdited at ${Date.now()}: one more paragraph for the incremental benchmark.\n`);
  let t0 = performance.now();
  const walkRun = await indexFolder(engine, { maintenance: 'none' });
  const walkMs = performance.now() - t0;
  // Same again with the parser workers already running (the extension keeps its engine open).
  fs.appendFileSync(abs, `\n\nEdited once more at ${Date.now()}.\n`);
  t0 = performance.now();
  const warmRun = await indexFolder(engine, { maintenance: 'none' });
  const warmMs = performance.now() - t0;
  fs.appendFileSync(abs, `\n\nEdited again at ${Date.now()}.\n`);
  t0 = performance.now();
  const hinted = await indexFolder(engine, { paths: [abs], maintenance: 'none' });
  const hintMs = performance.now() - t0;
  // That file's own cost: parse + chunk + embed it alone.
  t0 = performance.now();
  const doc = await engine.parsers().parse(abs, { timeoutMs: 30_000, maxFileSizeMB: 50 });
  const passages = chunkDocument(doc, { path: rel, fileHash: 'x' }, engine.config.chunk, { embedText: embedBuiltin });
  const parseMs = performance.now() - t0;
  t0 = performance.now();
  await engine.embedder.embed(passages.map((p) => p.indexText));
  const embedMs = performance.now() - t0;
  t0 = performance.now();
  await engine.optimizeNow();
  const optimizeMs = performance.now() - t0;
  // Vector index check: recall@10 of the indexed search against exact flat search, and both latencies.
  const sample = (await engine.store.getFilePassages(rel)).concat(await engine.store.getFilePassages(rel.replace(/file-(\d+)/, 'file-$10')));
  const queries = (await engine.embedder.embed(sample.slice(0, 20).map((p) => p.text.slice(0, 200))));
  let overlap = 0;
  const annMs: number[] = [];
  const flatMs: number[] = [];
  for (const q of queries) {
    let t = performance.now();
    const ann = await engine.store.vectorSearch(q, { k: 10 });
    annMs.push(performance.now() - t);
    t = performance.now();
    const flat = await engine.store.vectorSearch(q, { k: 10, exact: true });
    flatMs.push(performance.now() - t);
    const ids = new Set(flat.map((h) => h.passage.id));
    overlap += ann.filter((h) => ids.has(h.passage.id)).length / Math.max(1, flat.length);
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const indexes = await engine.store.indexNames();
  await engine.close();
  return {
    step: 'reindex',
    walkRunMs: Math.round(walkRun.ms),
    walkRunWallMs: Math.round(walkMs),
    updated: walkRun.updated,
    warmWalkRunMs: Math.round(warmMs),
    warmUpdated: warmRun.updated,
    warmTimings: warmRun.timings,
    hintedTimings: hinted.timings,
    unchanged: walkRun.unchanged,
    hintedRunMs: Math.round(hintMs),
    hintedUpdated: hinted.updated,
    fileParseMs: Math.round(parseMs),
    filePassages: passages.length,
    fileEmbedMs: Math.round(embedMs),
    optimizeAfterMs: Math.round(optimizeMs),
    vectorRecallAt10: Number((overlap / Math.max(1, queries.length)).toFixed(3)),
    vectorAnnMs: Math.round(med(annMs) * 10) / 10,
    vectorFlatMs: Math.round(med(flatMs) * 10) / 10,
    indexes: indexes.join(','),
    maxRssMB: rssMB(),
  };
}

async function main(): Promise<void> {
  const [step, folder, store, rel] = process.argv.slice(2);
  if (step === 'step') {
    // A maintenance job of indexOnce: `folder` is the store here, `store` the job.
    const r = await runMaintenanceStep(folder, store as JobKind);
    process.stdout.write(`${STEP_MARK}${JSON.stringify(r)}\n`);
    return;
  }
  let out: object;
  if (step === 'parse') out = await parseOnly(folder);
  else if (step === 'index') out = await indexOnce(folder, store);
  else if (step === 'reindex') out = await reindexOne(folder, store, rel);
  else throw new Error(`unknown step ${step}`);
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
