// `docs-rag ask` as a user runs it: a child process on a fresh folder (indexes it first), extractive without a model,
// generated with --model against the Ollama-API test server, and clear messages when the model cannot be used.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startFakeOllama, type FakeOllama } from '../helpers/ollamaServer';
import { assertCitationResolves, writeFixture } from './answerFixtures';
import { testModel } from './answerTestModel';

const ROOT = path.resolve(__dirname, '../..');

function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli.ts'), ...args], {
      cwd: ROOT,
      env: { ...process.env, OLLAMA_HOST: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function lastJson(stdout: string): Record<string, any> {
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

describe('cli: docs-rag ask', function () {
  this.timeout(120_000);
  let dir: string;
  let server: FakeOllama | undefined;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-ask-'));
    writeFixture(dir);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('indexes a fresh folder first and gives the extractive answer without a model; citations resolve', async () => {
    assert.ok(!fs.existsSync(path.join(dir, '.docs-rag')));
    const r = await cli(['ask', 'Wie viele Werktage Urlaub gibt es jährlich?', '--folder', dir, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /no index yet; indexing it first/);
    const out = lastJson(r.stdout);
    assert.equal(out.model, null);
    assert.equal(out.mode, 'extractive');
    assert.match(out.answer, /^Kein Sprachmodell konfiguriert — die relevantesten Textstellen:/);
    assert.ok(out.citations.length >= 1);
    assert.equal(out.citations[0].path, 'recht/urlaub.md');
    for (const c of out.citations) {
      assert.deepEqual(Object.keys(c).slice(0, 4), ['n', 'path', 'startLine', 'endLine']);
      assertCitationResolves(dir, c);
    }
    assert.ok(Array.isArray(out.unsupported));
    assert.ok(Array.isArray(out.trace.spans) && out.trace.spans.length > 0);
  });

  it('answers with --model against an Ollama-API server; every citation resolves', async () => {
    server = await startFakeOllama({ chat: testModel });
    const r = await cli(['ask', 'Which opt-level is set and are debug assertions turned off?', '--folder', dir, '--model', 'llama3.2', '--ollama-host', server.url, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const out = lastJson(r.stdout);
    assert.equal(out.model, 'ollama:llama3.2');
    assert.equal(out.mode, 'generative');
    assert.match(out.answer, /opt-level 3.*\[\d+\]/);
    assert.deepEqual(out.unsupported, []);
    assert.equal(out.citations.length, 1);
    assertCitationResolves(dir, out.citations[0]);
    assert.ok(out.trace.spans.some((s: { name: string }) => s.name === 'answer.generate'));
    assert.ok(server.requests.some((q) => q.path === '/api/show'), 'the model was checked first');
  });

  it('prints the answer and its sources as text without --json', async () => {
    server = await startFakeOllama({ chat: testModel });
    const r = await cli(['ask', 'Which flag selects the release profile?', '--folder', dir, '--model', 'llama3.2', '--ollama-host', server.url]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /--release flag\. \[1\]/);
    assert.match(r.stdout, /Sources:\n {2}\[1\] cargo\/profiles\.md:\d+-\d+ — Profiles › Release profile/);
  });

  it('a missing model: the fix on stderr, the extractive answer on stdout, exit 0', async () => {
    server = await startFakeOllama({ models: ['nomic-embed-text'] });
    const r = await cli(['ask', 'Which opt-level does the release profile set?', '--folder', dir, '--model', 'qwen2.5:7b-instruct', '--ollama-host', server.url, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /ollama pull qwen2\.5:7b-instruct/);
    const out = lastJson(r.stdout);
    assert.equal(out.modelError.kind, 'model-missing');
    assert.equal(out.mode, 'extractive');
    assert.match(out.answer, /^The language model is unavailable — the most relevant passages:/);
    assert.equal(out.citations[0].path, 'cargo/profiles.md');
  });

  it('rejects a too short question with exit 2 and the reason', async () => {
    const r = await cli(['ask', 'a', '--folder', dir]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /too short.*at least 3/);
  });
});
