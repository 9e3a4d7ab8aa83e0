// `docs-rag mcp` with an Ollama server (the fake one of test/helpers: a real HTTP server, deterministic vectors and
// replies): a reading server while another process rebuilds the index with another embedder (tables dropped and
// recreated, another vector dimension) notices, reopens with the recorded embedder and keeps answering; `--model` answers.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startFakeOllama, type FakeOllama } from '../helpers/ollamaServer';

const ROOT = path.resolve(__dirname, '../..');
const SHARED = process.env.DOCS_RAG_SHARED ?? path.resolve(ROOT, '../shared');
const CLI = path.join(ROOT, 'dist/cli.js');
const QUESTION = 'Wie viele Werktage beträgt der Urlaub mindestens?';

describe('docs-rag mcp with an Ollama server (fake): re-embedding by another process, generated answers', function () {
  this.timeout(300_000);
  let tmp: string;
  let ollama: FakeOllama;

  before(async () => {
    const build = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(build.status, 0, build.stderr);
    ollama = await startFakeOllama();
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-reembed-'));
    for (const f of ['burlg.md', 'kschg.md', 'arbschg.md']) fs.copyFileSync(path.join(SHARED, 'eval/workspace/gesetze', f), path.join(tmp, f));
  });

  after(async () => {
    await ollama?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('keeps answering, then searches with the new embedder', async () => {
    const store = path.join(tmp, '.store');
    const first = spawnSync(process.execPath, [CLI, 'index', tmp, '--store', store, '--json'], { encoding: 'utf8' });
    assert.equal(first.status, 0, first.stderr);
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--folder', tmp, '--store', store, '--ollama-host', ollama.url], stderr: 'pipe' });
    let log = '';
    transport.stderr?.on('data', (d) => (log += d));
    const client = new Client({ name: 'reembed-test', version: '0' });
    await client.connect(transport);
    const search = async () => {
      const r = await client.callTool({ name: 'search', arguments: { query: QUESTION, k: 5 } }, undefined, { timeout: 60_000 });
      assert.ok(!r.isError, JSON.stringify(r.content));
      return (r.structuredContent as { results: { path: string }[] }).results;
    };
    try {
      assert.equal((await search())[0]?.path, 'burlg.md');
      const status = async () => (await client.callTool({ name: 'status', arguments: {} })).structuredContent as { embedder: { id: string; dimension: number } };
      assert.equal((await status()).embedder.id, 'builtin');

      const child = spawn(process.execPath, [CLI, 'index', tmp, '--store', store, '--embedder', 'ollama', '--model', 'nomic-embed-text', '--ollama-host', ollama.url, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let childErr = '';
      child.stderr.on('data', (d) => (childErr += d));
      let done = false;
      const exited = new Promise<number | null>((resolve) => child.on('close', (code) => ((done = true), resolve(code))));
      const failures: string[] = [];
      let calls = 0;
      while (!done) {
        calls++;
        try {
          await search(); // may be empty while the tables are rebuilt, but must not fail
        } catch (err) {
          failures.push(err instanceof Error ? err.message : String(err));
        }
      }
      assert.equal(await exited, 0, childErr);
      assert.deepEqual(failures, [], `${failures.length} of ${calls} calls failed during the re-embed\n${log.slice(-3000)}`);

      assert.equal((await status()).embedder.id, 'ollama');
      const embedsBefore = ollama.requests.filter((r) => r.path === '/api/embed').length;
      const after = await search();
      assert.ok(after.some((h) => h.path === 'burlg.md'), JSON.stringify(after));
      assert.ok(ollama.requests.filter((r) => r.path === '/api/embed').length > embedsBefore, 'the query was embedded by the new (Ollama) embedder');
    } finally {
      await client.close();
    }
  });

  it('ask with --model answers through the chat model (generated, not extractive)', async () => {
    const folder = path.join(tmp, 'ask');
    fs.mkdirSync(folder);
    fs.copyFileSync(path.join(SHARED, 'eval/workspace/gesetze/burlg.md'), path.join(folder, 'burlg.md'));
    const built = spawnSync(process.execPath, [CLI, 'index', folder, '--json'], { encoding: 'utf8' });
    assert.equal(built.status, 0, built.stderr);
    const chats = () => ollama.requests.filter((r) => r.path === '/api/chat').length;
    const before = chats();
    const client = new Client({ name: 'ask-test', version: '0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--folder', folder, '--model', 'qwen2.5:7b', '--ollama-host', ollama.url], stderr: 'pipe' }));
    try {
      const r = await client.callTool({ name: 'ask', arguments: { question: QUESTION } }, undefined, { timeout: 120_000 });
      assert.ok(!r.isError, JSON.stringify(r.content));
      const s = r.structuredContent as { mode: string; model: string | null; citations: { n: number; path: string }[] };
      assert.notEqual(s.mode, 'extractive');
      assert.equal(s.model, 'ollama:qwen2.5:7b');
      assert.ok(chats() > before, 'the chat model was called');
    } finally {
      await client.close();
    }
  });
});
