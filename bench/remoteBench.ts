// A team member's query latency against a store in S3-compatible object storage, beside the same index on local disk.
// Starts s3rver (an S3 API server) on loopback, builds the evaluation workspace (or --folder) with the built CLI into
// s3://bench/docs and into a local folder, then alternates local and remote: `docs-rag search` processes (what a CLI
// call or script pays: Node's start, opening the store, one query) and queries through one open engine each (what
// the extension's search process and an MCP server pay per question). Prints medians, the remote / local ratio and the
// S3 requests each remote search made (each a round trip to a real bucket).
//
//   npm run build && npm run bench -- remote [--folder DIR] [--rounds N]
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import S3rver from 's3rver';
import { openEngine, type Engine } from '../src/rag/engine';
import { percentile } from '../src/rag/eval/metrics';
import { createRetriever } from '../src/rag/search';

const ROOT = path.resolve(__dirname, '..');
const CLI = path.join(ROOT, 'dist/cli.js');
const QUESTIONS = [
  'Wie viele Werktage Urlaub hat ein Arbeitnehmer mindestens?',
  'Wann entsteht der volle Urlaubsanspruch?',
  'How do I add a dependency from crates.io?',
  'What does cargo build --release do?',
  'Kündigungsfrist Arbeitsverhältnis',
];

function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ ms: number; code: number; stderr: string }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...env, LANCEDB_LOG: 'error' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ ms: performance.now() - t0, code: code ?? -1, stderr: stderr.slice(-2000) }));
  });
}

const median = (xs: number[]) => percentile(xs, 50);
const fmt = (ms: number) => `${Math.round(ms)} ms`;

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { folder: { type: 'string' }, rounds: { type: 'string' } } });
  const folder = path.resolve(values.folder ?? path.join(process.env.DOCS_RAG_SHARED ?? path.resolve(ROOT, '../shared'), 'eval/workspace'));
  const rounds = Number(values.rounds ?? 10);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-remote-bench-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', directory: path.join(root, 's3'), silent: true, configureBuckets: [{ name: 'bench', configs: [] }] });
  fs.mkdirSync(path.join(root, 's3'));
  const { port } = await server.run();
  // Requests the server answered (each one a round trip to a real bucket).
  let requests = 0;
  (server as unknown as { httpServer: import('node:http').Server }).httpServer.on('request', () => requests++);
  // s3rver's own account; a real bucket takes the user's credentials from the same variables.
  const env = { ...process.env, AWS_ENDPOINT_URL: `http://127.0.0.1:${port}`, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1', AWS_ALLOW_HTTP: 'true', XDG_CACHE_HOME: path.join(root, 'cache') };
  const stores = { local: path.join(root, 'local-store'), remote: 's3://bench/docs' };
  const out = (label: string, value: string) => process.stdout.write(`${label.padEnd(44)} ${value}\n`);
  try {
    process.stdout.write(`remote store bench: ${folder}, s3rver on 127.0.0.1, ${rounds} rounds alternating local and remote\n`);
    for (const [kind, store] of Object.entries(stores)) {
      const r = await cli(['index', folder, '--store', store, '--maintenance', 'wait', '--ocr', 'off', '--json'], env);
      if (r.code !== 0) throw new Error(`index into ${store} failed: ${r.stderr}`);
      out(`first build, ${kind}`, fmt(r.ms));
    }
    const proc: Record<string, number[]> = { local: [], remote: [] };
    const perProcess: number[] = [];
    for (let i = 0; i < rounds; i++) {
      for (const kind of i % 2 === 0 ? ['local', 'remote'] : ['remote', 'local']) {
        const before = requests;
        const r = await cli(['search', QUESTIONS[i % QUESTIONS.length], '--folder', folder, '--store', stores[kind as keyof typeof stores], '--json'], env);
        if (r.code !== 0) throw new Error(`search failed: ${r.stderr}`);
        proc[kind].push(r.ms);
        if (kind === 'remote') perProcess.push(requests - before);
      }
    }
    out('docs-rag search process, local', `p50 ${fmt(median(proc.local))}`);
    out('docs-rag search process, remote', `p50 ${fmt(median(proc.remote))} (${(median(proc.remote) / median(proc.local)).toFixed(2)}x)`);
    out('S3 requests per docs-rag search process', `p50 ${median(perProcess)}, max ${Math.max(...perProcess)}`);
    // One open engine each, as a long-lived reader; the AWS variables are this process's for the remote one.
    Object.assign(process.env, env);
    const engines: Record<string, Engine> = {
      local: await openEngine({ folder, storeDir: stores.local }),
      remote: await openEngine({ folder, storeDir: stores.remote }),
    };
    const query: Record<string, number[]> = { local: [], remote: [] };
    const perQuery: number[] = [];
    try {
      for (const kind of ['local', 'remote']) await createRetriever(engines[kind]).retrieve(QUESTIONS[0], { k: 10 });
      for (let i = 0; i < rounds * QUESTIONS.length; i++) {
        for (const kind of i % 2 === 0 ? ['local', 'remote'] : ['remote', 'local']) {
          const t0 = performance.now();
          const before = requests;
          await createRetriever(engines[kind]).retrieve(QUESTIONS[i % QUESTIONS.length], { k: 10 });
          query[kind].push(performance.now() - t0);
          if (kind === 'remote') perQuery.push(requests - before);
        }
      }
    } finally {
      for (const e of Object.values(engines)) await e.close();
    }
    out('query in an open engine, local', `p50 ${fmt(median(query.local))}, p95 ${fmt(percentile(query.local, 95))}`);
    out('query in an open engine, remote', `p50 ${fmt(median(query.remote))}, p95 ${fmt(percentile(query.remote, 95))} (${(median(query.remote) / median(query.local)).toFixed(2)}x)`);
    out('S3 requests per query in an open engine', `p50 ${median(perQuery)}, max ${Math.max(...perQuery)}`);
  } finally {
    await server.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}
