// Smoke suite (runs inside the extension host): the extension activates from the expected location (the repo in
// the dev stage, the installed VSIX in the package stage), registers its commands, and @docs answers through
// the deterministic test language model with [n] citations taken from the fixture workspace.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import { screenshot } from '../driverClient';

const EXTENSION_ID = 'docs-rag.docs-rag';
const TEST_MODEL_ID = 'docs-rag-test-model';
const stage = process.env.DOCS_RAG_TEST_STAGE ?? 'dev';

interface RecordedRequest {
  modelId: string;
  messages: { role: string; text: string }[];
  reply: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function recordedRequests(): Promise<RecordedRequest[]> {
  return (await vscode.commands.executeCommand<RecordedRequest[]>('docsRagTestLm.getRequests')) ?? [];
}

describe(`smoke (${stage})`, () => {
  it('the test language model is available as a copilot model and streams a cited reply', async () => {
    const models = await vscode.lm.selectChatModels({ vendor: 'copilot' });
    const model = models.find((m) => m.id === TEST_MODEL_ID);
    assert.ok(model, `test model missing; got ${JSON.stringify(models.map((m) => m.id))}`);
    assert.ok(model.maxInputTokens > 0);
    const prompt =
      '<sources>\n<source n="1" location="a.md:1-2">The cache lives in the cache folder. Other text.</source>\n' +
      '<source n="2" location="b.md:3">Urlaub ist zu beantragen! Mehr.</source>\n</sources>\n\nQuestion: where?';
    const res = await model.sendRequest([vscode.LanguageModelChatMessage.User(prompt)], {}, new vscode.CancellationTokenSource().token);
    const parts: string[] = [];
    for await (const p of res.text) parts.push(p);
    assert.equal(parts.join(''), 'The cache lives in the cache folder. [1]\nUrlaub ist zu beantragen! [2]');
    assert.ok(parts.length > 3, `expected a streamed reply, got ${parts.length} part(s)`);
  });

  it(`Docs RAG activates from the ${stage === 'package' ? 'installed VSIX' : 'repository'}`, async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `${EXTENSION_ID} is not installed`);
    await ext.activate();
    assert.equal(ext.isActive, true);
    const repo = process.env.DOCS_RAG_REPO;
    if (stage === 'package') {
      assert.notEqual(path.resolve(ext.extensionPath), path.resolve(repo ?? ''), 'the package stage must run the installed VSIX, not the repo');
      assert.equal(ext.packageJSON.main, './dist/extension.js');
    } else if (repo) {
      assert.equal(path.resolve(ext.extensionPath), path.resolve(repo));
    }
  });

  it('every contributed command is registered', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext);
    await ext.activate();
    const contributed = ((ext.packageJSON.contributes?.commands ?? []) as { command: string }[]).map((c) => c.command);
    assert.ok(contributed.length > 0, 'the manifest contributes no commands');
    const registered = new Set(await vscode.commands.getCommands(true));
    const missing = contributed.filter((c) => !registered.has(c));
    assert.deepEqual(missing, [], `contributed but not registered: ${missing.join(', ')}`);
  });

  it('@docs answers from the workspace documents through the language model, with [n] citations', async function () {
    this.timeout(240_000);
    await vscode.commands.executeCommand('docsRag.reindex');
    await vscode.commands.executeCommand('docsRagTestLm.clearRequests');
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: '@docs Where does the Zephyr build cache live?' });
    const deadline = Date.now() + 120_000;
    let answer: RecordedRequest | undefined;
    let seen: RecordedRequest[] = [];
    while (Date.now() < deadline && !answer) {
      seen = await recordedRequests();
      answer = seen.find((r) => r.messages.some((m) => m.text.includes('.zephyr/cache')) && /\[\d+\]/.test(r.reply));
      if (!answer) await sleep(500);
    }
    assert.ok(
      answer,
      `no model request carried the build-cache passage with a cited reply; requests seen: ${JSON.stringify(
        seen.map((r) => ({ reply: r.reply.slice(0, 200), prompt: r.messages.map((m) => m.text).join('\n').slice(0, 300) })),
      )}`,
    );
    assert.match(answer.reply, /\.zephyr\/cache[^\n]*\[\d+\]/);
    await sleep(2000); // let the chat view render the streamed answer
    await screenshot(stage === 'package' ? 'package-chat-answer' : 'smoke-chat-answer');
  });
});

describe(`local embedder (${stage})`, () => {
  it('the extension\'s engine embeds with the tiny ONNX model: onnxruntime\'s native library loads from the extension', async function () {
    this.timeout(120_000);
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext);
    const repo = process.env.DOCS_RAG_REPO;
    assert.ok(repo, 'DOCS_RAG_REPO (the repository, for the tiny model fixture) is not set');
    // The engine bundle of the extension under test (the installed VSIX in the package stage): its LocalEmbedder
    // starts dist/localEmbedWorker.js beside it, which loads onnxruntime-node from the extension's node_modules.
    const bundle = path.join(ext.extensionPath, 'dist/engine.js');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const engine = require(bundle) as typeof import('../../../../src/views/engineBundle');
    const embedder = new engine.embed.LocalEmbedder({ model: path.join(repo, 'test/fixtures/models/tiny-embedding'), batchSize: 8, timeoutMs: 60_000 });
    try {
      const [a, b] = await embedder.embed(['Der Urlaub beträgt 24 Werktage.', 'cargo build --release']);
      assert.equal(embedder.dimension, 32);
      assert.equal(a.length, 32);
      const norm = Math.sqrt(a.reduce((s, x) => s + x * x, 0));
      assert.ok(Math.abs(norm - 1) < 1e-5, `norm ${norm}`);
      assert.ok(a.some((x, i) => Math.abs(x - b[i]) > 1e-3), 'different texts give different vectors');
      if (stage === 'package') {
        assert.ok(bundle.startsWith(path.resolve(ext.extensionPath)) && !path.resolve(ext.extensionPath).startsWith(path.resolve(repo)), 'package stage: the installed VSIX');
      }
    } finally {
      await embedder.close();
    }
  });
});

describe(`OCR (${stage})`, () => {
  it('the extension\'s own indexer reads a scanned PDF: tesseract\'s WASM core and traineddata load from the extension', async function () {
    this.timeout(180_000);
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext);
    const shared = process.env.DOCS_RAG_SHARED;
    assert.ok(shared, 'DOCS_RAG_SHARED (the evaluation data, for the scanned PDF) is not set');
    // The extension's CLI bundle (the installed VSIX in the package stage) indexes a folder holding only an image-only
    // PDF: its parser worker renders the page with the extension's canvas and recognises it with the extension's
    // tesseract.js core and dist/tessdata — no text without all of them.
    const dir = mkdtempSync(path.join(tmpdir(), 'docs-rag-ocr-'));
    try {
      const folder = path.join(dir, 'docs');
      mkdirSync(folder);
      copyFileSync(path.join(shared, 'eval/realdocs/pdf/linn.pdf'), path.join(folder, 'linn.pdf'));
      const cli = path.join(ext.extensionPath, 'dist/cli.js');
      const env = { ...process.env, ELECTRON_RUN_AS_NODE: '1', DOCS_RAG_TESSDATA: '' };
      const store = path.join(dir, 'store');
      const run = promisify(execFile);
      const indexed = JSON.parse((await run(process.execPath, [cli, 'index', folder, '--store', store, '--json'], { env })).stdout) as { files: number; errors: unknown[] };
      assert.equal(indexed.files, 1);
      assert.deepEqual(indexed.errors, []);
      const found = JSON.parse((await run(process.execPath, [cli, 'search', 'polyphonic tracks MIDI channels', '--folder', folder, '--store', store, '--json'], { env })).stdout) as { results: { path: string; text: string }[] };
      assert.equal(found.results[0]?.path, 'linn.pdf');
      assert.match(found.results[0].text, /polyphonic tracks/);
      if (stage === 'package') {
        const repo = process.env.DOCS_RAG_REPO ?? '';
        assert.ok(!path.resolve(ext.extensionPath).startsWith(path.resolve(repo)), 'package stage: the installed VSIX');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
