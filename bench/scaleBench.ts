// The real-scale benchmark: every German federal law as Markdown (../shared/eval/scale/gesetze-md.tar.gz), indexed with
// the CLI as a user runs it (`node dist/cli.js`, builtin embedder, OCR off). Prints the first build (wall, time to
// searchable, peak RSS of the run and of each maintenance step), a run with nothing changed, five one-file edits (each:
// the run's wall time until the edit is searchable, found by `docs-rag search`, its peak RSS, what it left to the
// background), `docs-rag status --json`, the store's size against the Markdown bytes, and query latency p50 / p95 of
// `default` and `bm25` (in-process, the workspace's questions, after the background maintenance finished) beside plain
// SQLite FTS5 over the store's passages (bench/fts5.ts; its table in a temporary file, built in batches).
//
//   npm run build && npm run bench -- scale [--folder DIR (unpacked there when empty, reused after)] [--keep] [--queries N]
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { openEngine } from '../src/rag/engine';
import { percentile } from '../src/rag/eval/metrics';
import { isAlive } from '../src/rag/index/writerLock';
import { createRetriever } from '../src/rag/search';
import { fts5FromStore } from './fts5';

const ROOT = path.resolve(__dirname, '..');
const CLI = path.join(ROOT, 'dist/cli.js');

function sharedDir(): string {
  return process.env.DOCS_RAG_SHARED ?? path.resolve(ROOT, '../shared');
}

interface CliRun {
  ms: number;
  code: number;
  json: Record<string, unknown>;
  stderr: string;
}

/** Runs the built CLI as a user does; the last stdout line is its JSON. */
function cli(args: string[], cwd: string): CliRun {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', env: { ...process.env, LANCEDB_LOG: 'error' }, maxBuffer: 1 << 28 });
  const ms = performance.now() - t0;
  const last = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(last) as Record<string, unknown>;
  } catch {
    /* not JSON: reported through code and stderr */
  }
  return { ms, code: r.status ?? -1, json, stderr: (r.stderr ?? '').slice(-2000) };
}

function duBytes(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += duBytes(p);
    else if (e.isFile()) total += fs.statSync(p).size;
  }
  return total;
}

function markdownBytes(dir: string, storeName: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === storeName) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) total += markdownBytes(p, storeName);
    else if (e.isFile() && e.name.endsWith('.md')) total += fs.statSync(p).size;
  }
  return total;
}

async function waitForPid(pid: number | undefined, limitMs: number): Promise<number> {
  const t0 = performance.now();
  while (pid !== undefined && isAlive(pid) && performance.now() - t0 < limitMs) await new Promise((r) => setTimeout(r, 250));
  return performance.now() - t0;
}

const s = (ms: number) => (ms / 1000).toFixed(1);

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { folder: { type: 'string' }, keep: { type: 'boolean' }, queries: { type: 'string' } }, allowPositionals: false });
  if (!fs.existsSync(CLI)) throw new Error('dist/cli.js is missing: run `npm run build` first');
  let base = values.folder ? path.resolve(values.folder) : fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-scale-'));
  fs.mkdirSync(base, { recursive: true });
  // An empty or new --folder is filled from the archive, so the same command unpacks once and reuses the copy after.
  if (fs.readdirSync(base).length === 0) {
    const tar = path.join(sharedDir(), 'eval/scale/gesetze-md.tar.gz');
    const r = spawnSync('tar', ['-xzf', tar, '-C', base]);
    if (r.status !== 0) throw new Error(`could not unpack ${tar}: ${r.stderr}`);
  }
  const folder = fs.existsSync(path.join(base, 'gesetze')) ? path.join(base, 'gesetze') : base;
  const storeDir = path.join(folder, '.docs-rag');
  const rows: [string, string][] = [];
  const out = (k: string, v: string) => {
    rows.push([k, v]);
    process.stdout.write(`${k}: ${v}\n`);
  };
  process.stdout.write(`scale bench on ${folder} (node ${process.version}, ${os.cpus().length} cores)\n`);

  if (!fs.existsSync(path.join(storeDir, 'meta.json'))) {
    const first = cli(['index', folder, '--ocr', 'off', '--maintenance', 'wait', '--json'], folder);
    if (first.code !== 0) throw new Error(`first build failed: ${first.stderr}`);
    const steps = (first.json.maintenance as { kind: string; ms: number; peakRssMB?: number }[] | undefined) ?? [];
    out('first build', `${s(first.ms)} s wall, searchable after ${s(Number(first.json.searchableMs))} s; ${first.json.files} documents, ${first.json.chunks} passages`);
    out('first build peak RSS', `run ${first.json.runRssMB} MB; ${steps.map((j) => `${j.kind} ${j.peakRssMB ?? '?'} MB (${s(j.ms)} s)`).join(', ')}`);
  }
  const md = markdownBytes(folder, '.docs-rag');

  const unchanged = cli(['index', folder, '--json'], folder);
  out('unchanged run', `${s(unchanged.ms)} s wall (${unchanged.json.unchanged} unchanged; in-process ms: ${Object.entries((unchanged.json.timings as Record<string, number> | undefined) ?? {}).map(([k, v]) => `${k} ${v}`).join(', ')}), peak RSS ${unchanged.json.runRssMB} MB`);
  await waitForPid((unchanged.json.backgroundMaintenance as { pid?: number } | undefined)?.pid, 600_000);

  // Five edits, one file each: files spread over the corpus, a sentence of words found nowhere else.
  // The laws lie at <letter>/<law>/index.md.
  const files = fs
    .readdirSync(folder, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
    .flatMap((d) => fs.readdirSync(path.join(folder, d.name)).map((law) => `${d.name}/${law}`))
    .filter((d) => fs.existsSync(path.join(folder, d, 'index.md')))
    .sort();
  let lastBackground: number | undefined;
  for (let i = 0; i < 5; i++) {
    const rel = `${files[Math.floor(((i + 0.5) * files.length) / 5)]}/index.md`;
    // A word found nowhere else, letters only (a token of letters and digits is searched by its parts).
    const marker = `zeltplatzquittung${(Date.now() + i).toString(26).replace(/[0-9]/g, (d) => 'qrstuvwxyz'[Number(d)])}`;
    fs.appendFileSync(path.join(folder, rel), `\n\nNachtrag: Die ${marker} gilt als Beleg.\n`);
    const edit = cli(['index', folder, '--json'], folder);
    if (edit.code !== 0) throw new Error(`edit run failed: ${edit.stderr}`);
    const found = cli(['search', marker, '--folder', folder, '--json', '--k', '3'], folder);
    const top = ((found.json.results as { path: string }[] | undefined) ?? [])[0]?.path;
    const bg = edit.json.backgroundMaintenance as { pid?: number; jobs?: string[] } | undefined;
    lastBackground = bg?.pid;
    const steps = Object.entries((edit.json.timings as Record<string, number> | undefined) ?? {}).map(([k, v]) => `${k} ${v}`).join(', ');
    out(`edit ${i + 1} (${rel})`, `${s(edit.ms)} s wall to searchable (in-process ms: ${steps}), found first: ${top === rel ? 'yes' : `no (${top})`}, search process ${s(found.ms)} s, peak RSS ${edit.json.runRssMB} MB, background: ${bg?.jobs?.join(', ') ?? 'none'}`);
  }
  const bgMs = await waitForPid(lastBackground, 1_800_000);
  out('background maintenance after the last edit', `ended ${s(bgMs)} s after the edit run returned`);

  const status = cli(['status', '--folder', folder, '--json'], folder);
  out('status --json', `${s(status.ms)} s wall (process start included)`);
  const store = duBytes(storeDir);
  out('store size', `${(store / 1e6).toFixed(0)} MB for ${(md / 1e6).toFixed(0)} MB of Markdown (${(store / md).toFixed(2)}x)`);

  // Query latency, in-process, the workspace's questions (several are about laws of this corpus).
  const qfile = path.join(sharedDir(), 'eval/workspace/queries-dev.jsonl');
  const questions = fs.readFileSync(qfile, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { query: string }).query);
  const n = Math.min(questions.length, Number(values.queries ?? 50));
  const ftsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-scale-fts5-'));
  const rss0 = process.memoryUsage().rss;
  const fts = await fts5FromStore(storeDir, { file: path.join(ftsDir, 'fts5.db') });
  out('SQLite FTS5 table', `${fts.index.count} passages in ${s(fts.ms)} s (RSS +${((process.memoryUsage().rss - rss0) / 1e6).toFixed(0)} MB)`);
  const engine = await openEngine({ folder });
  try {
    for (const config of ['bm25', 'default', 'fts5', 'bm25', 'default', 'fts5']) {
      const retriever = config === 'fts5' ? fts.index.retriever() : createRetriever(engine, { config });
      for (const q of questions.slice(0, 3)) await retriever.retrieve(q, { k: 10, context: false }); // warm-up
      const times: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        await retriever.retrieve(questions[i % questions.length], { k: 10, context: false }); // as `docs-rag search` (no answer context)
        times.push(performance.now() - t0);
      }
      out(`query ${config}`, `p50 ${percentile(times, 50).toFixed(0)} ms, p95 ${percentile(times, 95).toFixed(0)} ms (${n} questions)`);
    }
  } finally {
    await engine.close();
    fts.index.close();
    fs.rmSync(ftsDir, { recursive: true, force: true });
  }
  process.stdout.write(`\n| measure | figure |\n| --- | --- |\n${rows.map(([k, v]) => `| ${k} | ${v} |`).join('\n')}\n`);
  if (!values.folder && !values.keep) fs.rmSync(base, { recursive: true, force: true });
}
