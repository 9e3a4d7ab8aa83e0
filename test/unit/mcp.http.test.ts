// `docs-rag mcp --http PORT`: Streamable HTTP on 127.0.0.1 through the SDK's own HTTP client, and the DNS-rebinding
// guard: requests with a foreign Host or Origin header are refused before they reach the MCP server.
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const ROOT = path.resolve(__dirname, '../..');
const SHARED = process.env.DOCS_RAG_SHARED ?? path.resolve(ROOT, '../shared');
const CLI = path.join(ROOT, 'dist/cli.js');

function post(url: URL, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: url.port, path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        let data = '';
        res.on('data', (d) => (data += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('docs-rag mcp --http (Streamable HTTP on 127.0.0.1)', function () {
  this.timeout(180_000);
  let tmp: string;
  let child: ChildProcess;
  let url: URL;

  before(async () => {
    const build = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(build.status, 0, build.stderr);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-http-'));
    fs.copyFileSync(path.join(SHARED, 'eval/workspace/gesetze/burlg.md'), path.join(tmp, 'burlg.md'));
    const r = spawnSync(process.execPath, [CLI, 'index', tmp, '--json'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    child = spawn(process.execPath, [CLI, 'mcp', '--folder', tmp, '--http', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    url = await new Promise<URL>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (d) => {
        out += d;
        const line = out.split('\n')[0];
        if (out.includes('\n')) resolve(new URL(line.trim()));
      });
      child.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
  });

  after(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('listens on 127.0.0.1 and serves the tools to the SDK client', async () => {
    assert.equal(url.hostname, '127.0.0.1');
    assert.equal(url.pathname, '/mcp');
    const client = new Client({ name: 'http-test', version: '0' });
    await client.connect(new StreamableHTTPClientTransport(url));
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), ['ask', 'read', 'search', 'status']);
      const r = await client.callTool({ name: 'search', arguments: { query: 'Wie viele Werktage beträgt der Urlaub mindestens?', k: 3 } });
      const results = (r.structuredContent as { results: { path: string; text: string }[] }).results;
      assert.equal(results[0]?.path, 'burlg.md');
    } finally {
      await client.close();
    }
  });

  it('refuses a foreign Host or Origin (DNS rebinding) and accepts local ones', async () => {
    const evilHost = await post(url, { host: `evil.example:${url.port}` });
    assert.equal(evilHost.status, 403, evilHost.body);
    assert.match(evilHost.body, /Host header/);
    const evilOrigin = await post(url, { host: `127.0.0.1:${url.port}`, origin: 'http://evil.example' });
    assert.equal(evilOrigin.status, 403, evilOrigin.body);
    assert.match(evilOrigin.body, /Origin/);
    const otherPort = await post(url, { host: `127.0.0.1:${Number(url.port) + 1}` });
    assert.equal(otherPort.status, 403);
    const local = await post(url, { host: `localhost:${url.port}`, origin: `http://localhost:${url.port}` });
    assert.equal(local.status, 200, local.body);
    assert.match(local.body, /"search"/);
  });
});
