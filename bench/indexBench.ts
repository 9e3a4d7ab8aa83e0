// Indexing benchmark: index time vs raw parse time (target ≤ 2×) on the shared workspace and a generated 10,000-file
// workspace with the builtin embedder; re-indexing one changed file in the 10,000-file index (target ≤ 1 s + that file's
// embedding); peak RSS. Every step runs in its own child process, sequentially; medians over --runs (default 3).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { generateWorkspace } from './indexGen';
import { INDEXING_MALLOC_ENV, withIndexingFlags } from '../src/indexProcess/protocol';
import { LANCE_WRITER_ENV } from '../src/rag/store/lanceEnv';

const ROOT = path.resolve(__dirname, '..');
const SHARED = process.env.DOCS_RAG_SHARED ? path.resolve(process.env.DOCS_RAG_SHARED) : path.resolve(ROOT, '../shared');

type Row = Record<string, number | string | undefined>;

function step(args: string[]): Row {
  const r = spawnSync(process.execPath, [...withIndexingFlags(['--import', 'tsx']), path.join(__dirname, 'indexChild.ts'), ...args], {
    cwd: ROOT,
    // The environment of every indexing process (the CLI's and the extension's): malloc and LanceDB settings.
    env: { ...INDEXING_MALLOC_ENV, ...LANCE_WRITER_ENV, ...process.env },
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`bench step ${args[0]} failed: ${r.stderr}`);
  const last = r.stdout.trim().split('\n').pop()!;
  process.stderr.write(`  ${args[0]} ${path.basename(args[1])}: ${last}\n`);
  return JSON.parse(last) as Row;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

function measure(label: string, folder: string, runs: number, tmp: string): Row {
  const parses: Row[] = [];
  const indexes: Row[] = [];
  for (let i = 0; i < runs; i++) {
    parses.push(step(['parse', folder]));
    const store = path.join(tmp, `store-${label}-${i}`);
    indexes.push(step(['index', folder, store]));
    if (i < runs - 1) fs.rmSync(store, { recursive: true, force: true });
  }
  const parseMs = median(parses.map((r) => Number(r.ms)));
  const indexMs = median(indexes.map((r) => Number(r.ms)));
  const searchableMs = median(indexes.map((r) => Number(r.searchableMs)));
  return {
    workspace: label,
    files: indexes[0].files,
    passages: indexes[0].chunks,
    errors: indexes[0].errors,
    'parse ms (median)': parseMs,
    'searchable ms (median)': searchableMs,
    'of which optimize ms': median(indexes.map((r) => Number(r.optimizeMs))),
    'searchable / parse': Number((searchableMs / parseMs).toFixed(2)),
    'then vector index ms (median)': median(indexes.map((r) => Number(r.vectorIndexMs))),
    'index ms incl. vector index (median)': indexMs,
    'index / parse': Number((indexMs / parseMs).toFixed(2)),
    'CPU s parse / index run (median)': `${(median(parses.map((r) => Number(r.cpuMs))) / 1000).toFixed(1)} / ${(median(indexes.map((r) => Number(r.cpuMs))) / 1000).toFixed(1)}`,
    'runs (parse ms)': parses.map((r) => r.ms).join(' '),
    'runs (index ms)': indexes.map((r) => r.ms).join(' '),
    'peak RSS parse MB': Math.max(...parses.map((r) => Number(r.maxRssMB))),
    'peak RSS index MB': Math.max(...indexes.map((r) => Number(r.runMaxRssMB))),
    'peak RSS maintenance steps MB': Math.max(...indexes.map((r) => Number(r.stepsMaxRssMB))),
  };
}

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: { runs: { type: 'string' }, files: { type: 'string' }, only: { type: 'string' } },
    allowPositionals: true,
  });
  const runs = Number(values.runs ?? 3);
  const count = Number(values.files ?? 10_000);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-bench-'));
  const generated = path.join(os.tmpdir(), `docs-rag-bench-${count}`);
  const workspace = path.join(SHARED, 'eval/workspace');
  console.log(`## Indexing benchmark (builtin embedder, ${os.cpus().length} CPUs, Node ${process.version}, ${runs} runs, medians)`);
  try {
    const rows: Row[] = [];
    if (!values.only || values.only === 'workspace') {
      rows.push(measure('shared/eval/workspace', workspace, runs, tmp));
      console.log(JSON.stringify(rows.at(-1)));
    }
    if (!values.only || values.only === 'generated') {
      const gen = generateWorkspace(workspace, generated, count);
      console.log(`generated ${gen.files} files, ${(gen.bytes / 1e6).toFixed(1)} MB in ${generated}`);
      rows.push(measure(`generated-${count}`, generated, runs, tmp));
      console.log(JSON.stringify(rows.at(-1)));
      // Re-index one changed file in the big index (the last store of measure() is kept).
      const store = path.join(tmp, `store-generated-${count}-${runs - 1}`);
      const re: Row[] = [];
      // file-1, file-5, file-9...: Markdown files of the generated set (every 4th file is .txt).
      for (let i = 0; i < runs; i++) re.push(step(['reindex', generated, store, `d000/file-${4 * i + 1}.md`]));
      const pick = (k: string) => median(re.map((r) => Number(r[k])));
      const row = {
        workspace: `generated-${count}: one changed file`,
        'full-walk run ms, cold workers (median)': pick('walkRunMs'),
        'full-walk run ms, warm workers (median)': pick('warmWalkRunMs'),
        'hinted run (paths) ms (median)': pick('hintedRunMs'),
        "that file's parse ms": pick('fileParseMs'),
        "that file's embed ms": pick('fileEmbedMs'),
        'optimize afterwards ms': pick('optimizeAfterMs'),
        'vector recall@10 (vector index vs exact)': pick('vectorRecallAt10'),
        'vector query ms vector index / exact': `${pick('vectorAnnMs')} / ${pick('vectorFlatMs')}`,
        'indexes': re[0].indexes,
        'runs (full-walk ms)': re.map((r) => r.walkRunMs).join(' '),
        'peak RSS MB': Math.max(...re.map((r) => Number(r.maxRssMB))),
      };
      rows.push(row);
      console.log(JSON.stringify(row));
    }
    console.log('\n| ' + 'measure | value |\n|---|---|');
    for (const r of rows) for (const [k, v] of Object.entries(r)) console.log(`| ${k} | ${v} |`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
