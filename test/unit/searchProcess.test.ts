// The search process (src/searchProcess/): the real child (the TypeScript entry under tsx) over Node's IPC channel,
// a real LanceDB index, the real `ollama` client against the Ollama-API test server for the pipeline's chat calls,
// which the child sends back to the model held by this process. Kills are made deterministic by stopping the child
// (SIGSTOP) before the request is sent.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { indexFolder } from '../../src/rag/index/indexer';
import { OllamaChatModel } from '../../src/rag/llm/ollamaChat';
import { createRetriever } from '../../src/rag/search';
import { SearchProcess, type ReaderEngine } from '../../src/searchProcess/client';
import { startFakeOllama, type FakeChatRequest, type FakeOllama } from '../helpers/ollamaServer';
import { indexedTempFolder, type TempIndex } from '../helpers/tempIndex';

const WORKER = path.resolve(__dirname, '../../src/searchProcess/main.ts');

const FILES: Record<string, string> = {
  'ruhe.md': '# Ruhe\n\nNach Ende der täglichen Arbeitszeit gilt eine ununterbrochene Ruhezeit von elf Stunden für jede Schichtkraft.\n',
  'urlaub.md': '# Urlaub\n\nDer Urlaub der Werkskraft wird im laufenden Kalenderjahr gewährt; eine Übertragung ist nur aus dringenden Gründen möglich.\n',
  'crates.md': '# Crates\n\nThe yank command removes a published crate version so that new lockfiles cannot select it.\n',
  'profiles.md': '# Profiles\n\nThe release profile sets codegen units and optimisation level for builds of the workspace.\n',
};

describe('search process: the pipeline in a child, the chat model in the parent', function () {
  this.timeout(120_000);
  let index: TempIndex;
  let server: FakeOllama;
  let searcher: SearchProcess;
  let reader: ReaderEngine;
  let handler: (req: FakeChatRequest) => string = () => '{}';
  const logged: string[] = [];

  before(async () => {
    index = await indexedTempFolder('docs-rag-search-process-', FILES);
    server = await startFakeOllama({ chat: (req) => handler(req) });
    searcher = new SearchProcess(WORKER, { info: (m) => logged.push(m), warn: (m) => logged.push(m), error: (m) => logged.push(m) }, { execArgv: ['--import', 'tsx'] });
    reader = await searcher.open({ key: 'test', name: 'test', folder: index.folder, storeDir: index.engine.storeDir, config: {} });
  });

  after(async () => {
    await reader?.close();
    searcher?.dispose();
    await server?.close();
    await index?.close();
  });

  it('gives the hits of the same pipeline run in this process, from a reader in another process', async () => {
    const query = 'Wie lange dauert die Ruhezeit nach der Arbeitszeit?';
    const here = await createRetriever(index.engine, { config: 'default' }).retrieve(query, { k: 4 });
    const there = await reader.retriever({ config: 'default' }).retrieve(query, { k: 4 });
    assert.ok(searcher.pid && searcher.pid !== process.pid);
    assert.equal(there.hits[0].passage.path, 'ruhe.md');
    assert.deepEqual(
      there.hits.map((h) => h.passage.id),
      here.hits.map((h) => h.passage.id),
    );
    assert.ok(there.context && there.context.passages.length > 0, 'the answer context comes along');
    assert.equal(reader.store.meta()?.embedder.id, 'builtin');
    assert.equal(await reader.store.countPassages(), await index.engine.store.countPassages());
    const [vector] = await reader.embedder.embedQueries(['Ruhezeit']);
    assert.ok(vector instanceof Float32Array && vector.length === reader.embedder.dimension, 'vectors arrive as Float32Array');
  });

  it('runs the expansion through the chat model of this process (the requests reach its Ollama host from here)', async () => {
    handler = (req) => (req.messages.some((m) => m.role === 'system' && m.content.includes('rewrite search queries')) ? JSON.stringify({ queries: ['Ruhezeit elf Stunden Ende der täglichen Arbeitszeit'] }) : '{}');
    const chatModel = new OllamaChatModel({ host: server.url, model: 'llama3.2' });
    const before = server.requests.filter((r) => r.path === '/api/chat').length;
    const kwOnly = { keyword: true, vector: false, bridge: false };
    const res = await reader.retriever({ config: 'default+multiquery', chatModel, overrides: kwOnly }).retrieve('zwischen zwei Schichten frei', { k: 3, context: false });
    assert.ok(server.requests.filter((r) => r.path === '/api/chat').length > before, 'the chat request went through this process');
    assert.equal(res.trace.find((s) => s.name === 'expansion')?.counts?.variants, 1);
    assert.equal(res.hits[0].passage.path, 'ruhe.md');
  });

  it('a cancelled search rejects at once and cancels the chat call it was waiting for; the child keeps serving', async () => {
    let started!: () => void;
    const chatStarted = new Promise<void>((r) => (started = r));
    const slow = await startFakeOllama({ delayMs: 20_000, chat: () => '{}' });
    try {
      const chatModel = new OllamaChatModel({ host: slow.url, model: 'llama3.2' });
      let chatEnded: Promise<unknown> = Promise.resolve();
      const counting = {
        id: chatModel.id,
        contextWindow: chatModel.contextWindow,
        chat: (...a: Parameters<OllamaChatModel['chat']>) => {
          started();
          const call = chatModel.chat(...a);
          chatEnded = call.then(
            () => 'answered',
            (err: Error) => err.name,
          );
          return call;
        },
      };
      const abort = new AbortController();
      const t0 = Date.now();
      const pending = reader.retriever({ config: 'default+multiquery', chatModel: counting }).retrieve('Ruhezeit', { k: 3, signal: abort.signal });
      await chatStarted;
      abort.abort();
      await assert.rejects(pending, (err: Error) => err.name === 'AbortError');
      assert.equal(await chatEnded, 'ModelError', 'the chat call in this process was cancelled');
      assert.ok(Date.now() - t0 < 15_000, 'did not wait for the slow model');
      const next = await reader.retriever({ config: 'default' }).retrieve('yank crate version', { k: 2 });
      assert.equal(next.hits[0].passage.path, 'crates.md');
    } finally {
      await slow.close();
    }
  });

  it('sees what another process indexed, the meta included', async () => {
    const passages = await reader.store.countPassages();
    const lastRun = reader.store.meta()?.lastRun?.finishedAt ?? 0;
    index.write('neu.md', '# Neu\n\nDie Pegelmessung am Nordufer erfolgt stündlich durch den Flusswart.\n');
    await new Promise((r) => setTimeout(r, 20));
    const run = await indexFolder(index.engine);
    assert.equal(run.errors.length, 0);
    assert.ok((await reader.store.countPassages()) > passages);
    assert.ok((reader.store.meta()?.lastRun?.finishedAt ?? 0) > lastRun, 'meta() follows the reads');
    const res = await reader.retriever({ config: 'default' }).retrieve('Pegelmessung Flusswart', { k: 2 });
    assert.equal(res.hits[0].passage.path, 'neu.md');
  });

  it('a killed child fails the request it held with the reason; the next request reopens the reader in a new child', async () => {
    const first = searcher.pid!;
    process.kill(first, 'SIGSTOP');
    let pending: Promise<unknown>;
    try {
      pending = reader.store.listFiles();
      await new Promise((r) => setTimeout(r, 100));
    } finally {
      process.kill(first, 'SIGKILL');
    }
    await assert.rejects(pending, /the search process killed by SIGKILL; search again/);
    assert.ok(logged.some((l) => /search process killed by SIGKILL/.test(l)));
    const files = await reader.store.listFiles();
    assert.ok(files.some((f) => f.path === 'ruhe.md'));
    assert.ok(searcher.pid && searcher.pid !== first, 'a new child');
  });
});
