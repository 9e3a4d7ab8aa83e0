// End-to-end tests of the LLM stages (multi-query expansion, HyDE, rerank) through the real `ollama` client
// (OllamaChatModel) against the Ollama-API test server, over a real LanceDB store with the builtin embedder —
// including failures (malformed output, timeout, unreachable host), which must fall back to the model-free path.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { OllamaChatModel } from '../../src/rag/llm/ollamaChat';
import { createEmbedder } from '../../src/rag/embed';
import { defaultConfig } from '../../src/rag/config';
import { createRetriever } from '../../src/rag/search';
import { openStore } from '../../src/rag/store';
import type { LanceStore } from '../../src/rag/store/lanceStore';
import { embedderInfo, type Embedder, type IndexedPassage } from '../../src/rag/types';
import { closedPort, startFakeOllama, type FakeChatRequest, type FakeOllama } from '../helpers/ollamaServer';

const DOCS: { path: string; text: string; lang: 'de' | 'en' }[] = [
  { path: 'urlaub.md', lang: 'de', text: 'Der Urlaub muss im laufenden Kalenderjahr gewährt und genommen werden. Eine Übertragung ist nur bei dringenden Gründen statthaft.' },
  { path: 'ruhezeit.md', lang: 'de', text: 'Die Arbeitnehmer müssen nach Beendigung der täglichen Arbeitszeit eine ununterbrochene Ruhezeit von mindestens elf Stunden haben.' },
  { path: 'lohn.md', lang: 'de', text: 'Der Mindestlohn beträgt brutto 8,50 Euro je Zeitstunde.' },
  { path: 'yank.md', lang: 'en', text: 'The yank command removes a previously published crate version from the index so new projects cannot depend on it.' },
  { path: 'profiles.md', lang: 'en', text: 'The codegen-units setting controls how many code generation units a crate is split into. The release profile default is 16.' },
  { path: 'features.md', lang: 'en', text: 'Features provide a mechanism to express conditional compilation and optional dependencies.' },
  { path: 'workspace.md', lang: 'en', text: 'A workspace is a collection of packages that share the same Cargo.lock and output directory.' },
  { path: 'registry.md', lang: 'en', text: 'Publishing a crate uploads a specific version to the crates.io registry; the upload is permanent.' },
];

async function buildStore(dir: string, embedder: Embedder): Promise<LanceStore> {
  const store = await openStore(dir);
  await embedder.init();
  await store.useEmbedder(embedderInfo(embedder));
  const passages: IndexedPassage[] = DOCS.map((d, i) => ({
    id: `p${i}`, path: d.path, fileHash: `h${i}`, format: 'md', level: 2, chunkPath: 'doc/section-0/chunk-0', parentId: null, order: 0,
    headingPath: [d.path], title: d.path, text: d.text, overlap: '', lang: d.lang, loc: { startLine: 1, endLine: 1 }, indexText: d.text,
  }));
  const vectors = await embedder.embed(passages.map((p) => p.indexText));
  await store.replaceFiles(
    passages.map((p, i) => ({
      record: { path: p.path, size: 1, mtimeMs: 0, hash: p.fileHash, status: 'indexed', reason: '', passages: 1, pipelineKey: 'builtin', indexedAt: 0 },
      passages: [p],
      vectors: [vectors[i]],
    })),
  );
  await store.optimize();
  return store;
}

type ChatHandler = (req: FakeChatRequest) => string;
const system = (req: FakeChatRequest) => req.messages.find((m) => m.role === 'system')?.content ?? '';
const user = (req: FakeChatRequest) => req.messages.filter((m) => m.role === 'user').pop()?.content ?? '';

/** Scores 10 for passages containing `marker`, 1 for the others, in the strict format. */
function rerankBy(marker: string): ChatHandler {
  return (req) => {
    const blocks = user(req).match(/\[\d+\][^[]*/g) ?? [];
    return JSON.stringify({ scores: blocks.map((b) => (b.includes(marker) ? 10 : 1)) });
  };
}

describe('search: LLM stages end to end (real ollama client, test server, real LanceDB)', function () {
  this.timeout(60_000);
  let dir: string;
  let store: LanceStore;
  let embedder: Embedder;
  let server: FakeOllama;
  let handler: ChatHandler = () => '';

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'search-llm-'));
    embedder = createEmbedder({ ...defaultConfig().embed, provider: 'builtin' });
    store = await buildStore(path.join(dir, 'store'), embedder);
    server = await startFakeOllama({ chat: (req) => handler(req) });
  });
  after(async () => {
    await store?.close();
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const engine = () => ({ store, embedder });
  const chat = () => new OllamaChatModel({ model: 'llama3.2', host: server.url, timeoutMs: 10_000 });
  const chatRequests = () => server.requests.filter((r) => r.path === '/api/chat');

  it('rerank: the model\'s scores reorder the candidates; score is the reranker\'s, the fusion score is kept as hybridScore', async () => {
    handler = rerankBy('Cargo.lock');
    const before = chatRequests().length;
    const base = await createRetriever(engine(), { config: 'default' }).retrieve('crate version publish registry', { k: 5, context: false });
    assert.notEqual(base.hits[0].passage.path, 'workspace.md', 'precondition: the model-free ranking does not put the marker first');
    // The reranking model here only scores passages: the question's translation (another stage) is left out.
    const res = await createRetriever(engine(), { config: 'default+rerank', chatModel: chat(), overrides: { translateQuestion: 'off' } }).retrieve('crate version publish registry', { k: 5, context: false });
    assert.ok(chatRequests().length > before, 'the reranker called /api/chat');
    assert.equal(res.warnings.length, 0, res.warnings.join('; '));
    const top = res.hits[0];
    assert.equal(top.passage.path, 'workspace.md');
    assert.equal(top.score, 1);
    assert.equal(typeof top.hybridScore, 'number');
    assert.ok(res.trace.some((s) => s.name === 'rerank' && (s.counts?.candidates ?? 0) > 0));
  });

  it('rerank: the threshold is applied before the limit (low-scored hits are dropped, not padded back)', async () => {
    handler = rerankBy('Cargo.lock');
    const res = await createRetriever(engine(), { config: 'default+rerank', chatModel: chat(), overrides: { rerankThreshold: 0.5 } }).retrieve(
      'crate version publish registry',
      { k: 5, context: false },
    );
    assert.deepEqual(res.hits.map((h) => h.passage.path), ['workspace.md']);
  });

  it('multi-query expansion: a variant finds a passage the query alone does not reach, fused by RRF', async () => {
    const query = 'zwischen zwei Schichten frei';
    handler = (req) => (system(req).includes('rewrite search queries') ? JSON.stringify({ queries: ['Ruhezeit elf Stunden Beendigung der täglichen Arbeitszeit'] }) : '{}');
    // Keyword lists only, without the dictionary bridge's translated list: the query and its one variant.
    const kwOnly = { keyword: true, vector: false, bridge: false };
    const plain = await createRetriever(engine(), { config: 'default', overrides: kwOnly }).retrieve(query, { k: 3, context: false });
    assert.ok(!plain.hits.some((h) => h.passage.path === 'ruhezeit.md'), 'precondition: keyword search alone misses it');
    const res = await createRetriever(engine(), { config: 'default+multiquery', chatModel: chat(), overrides: kwOnly }).retrieve(query, { k: 3, context: false });
    assert.equal(res.hits[0].passage.path, 'ruhezeit.md');
    const span = res.trace.find((s) => s.name === 'expansion');
    assert.equal(span?.counts?.variants, 1);
    assert.equal(res.trace.find((s) => s.name === 'full-text')?.counts?.queries, 2);
  });

  it('HyDE: the hypothetical passage is embedded and searched (vector list), in the query language', async () => {
    let sawGerman = false;
    handler = (req) => {
      if (user(req).startsWith('Antworte auf Deutsch')) sawGerman = true;
      return 'Der Mindestlohn beträgt brutto 8,50 Euro je Zeitstunde nach dem Mindestlohngesetz.';
    };
    const query = 'Welche Bezahlung ist die gesetzliche Untergrenze?';
    const rank = (hits: { passage: { path: string } }[]) => hits.findIndex((h) => h.passage.path === 'lohn.md');
    const plain = await createRetriever(engine(), { config: 'default', overrides: { keyword: false } }).retrieve(query, { k: 8, context: false });
    const res = await createRetriever(engine(), { config: 'default+hyde', chatModel: chat(), overrides: { keyword: false } }).retrieve(query, {
      k: 8,
      context: false,
    });
    assert.ok(sawGerman);
    assert.ok(rank(res.hits) >= 0 && rank(res.hits) < rank(plain.hits), `HyDE moves the answer up: ${rank(plain.hits)} -> ${rank(res.hits)}`);
    assert.equal(res.trace.find((s) => s.name === 'expansion')?.counts?.hyde, 1);
    assert.equal(res.trace.find((s) => s.name === 'vector')?.counts?.queries, 2);
  });

  const failureCases: { name: string; setup: () => Promise<{ model: OllamaChatModel; timeoutMs?: number }>; expect: RegExp }[] = [
    {
      name: 'malformed model output',
      setup: async () => {
        handler = () => 'Sorry, I cannot rate these passages.';
        return { model: chat() };
      },
      expect: /bad-output/,
    },
    {
      name: 'timeout',
      setup: async () => {
        handler = () => '{"scores": []}';
        const slow = await startFakeOllama({ chat: () => '{"queries":["x"]}', delayMs: 3000 });
        after(() => slow.close());
        return { model: new OllamaChatModel({ model: 'llama3.2', host: slow.url, timeoutMs: 10_000 }), timeoutMs: 300 };
      },
      expect: /timeout/,
    },
    {
      name: 'unreachable host',
      setup: async () => ({ model: new OllamaChatModel({ model: 'llama3.2', host: `http://127.0.0.1:${await closedPort()}`, timeoutMs: 5_000 }) }),
      expect: /unreachable/,
    },
  ];

  for (const c of failureCases) {
    it(`falls back to the model-free ranking with a warning in the trace on ${c.name} (expansion, HyDE and rerank)`, async () => {
      const query = 'codegen units release profile';
      const base = await createRetriever(engine(), { config: 'default' }).retrieve(query, { k: 5, context: false });
      const { model, timeoutMs } = await c.setup();
      const res = await createRetriever(engine(), {
        config: 'full',
        chatModel: model,
        overrides: { mmr: false, ...(timeoutMs ? { llmTimeoutMs: timeoutMs } : {}) },
      }).retrieve(query, { k: 5, context: false });
      assert.deepEqual(res.hits.map((h) => h.passage.id), base.hits.map((h) => h.passage.id), 'same as the model-free path');
      assert.ok(res.warnings.length >= 2, `warnings: ${res.warnings.join(' | ')}`);
      for (const w of res.warnings) assert.match(w, c.expect);
      const notes = res.trace.flatMap((s) => s.notes ?? []);
      assert.ok(notes.some((n) => /rerank failed/.test(n)), notes.join(' | '));
      assert.ok(notes.some((n) => /(multi-query|HyDE) failed/.test(n)), notes.join(' | '));
    });
  }

  it('without a chat model the LLM stages are skipped with a note, and the query still answers', async () => {
    const res = await createRetriever(engine(), { config: 'full' }).retrieve('yank a crate version', { k: 3, context: false });
    assert.equal(res.hits[0].passage.path, 'yank.md');
    const notes = res.trace.flatMap((s) => s.notes ?? []);
    assert.ok(notes.some((n) => /expansion.*|skipped: no chat model/.test(n)));
    assert.ok(res.trace.some((s) => s.name === 'rerank' && s.notes?.includes('skipped: no chat model')));
  });

  it('an overview question over an index without summaries falls back from the summary flow to the chunk flow', async () => {
    const res = await createRetriever(engine(), { config: 'default' }).retrieve('Give me an overview of workspaces and Cargo.lock', { k: 3, context: false });
    assert.equal(res.analysis.flow, 'chunk');
    assert.equal(res.hits[0]?.passage.path, 'workspace.md');
    assert.ok(res.trace.some((s) => s.notes?.some((n) => /fell back to the chunk flow/.test(n))));
  });

  it('trace spans carry durations and counts but no document text', async () => {
    handler = rerankBy('yank');
    const res = await createRetriever(engine(), { config: 'default+rerank', chatModel: chat() }).retrieve('yank a crate version', { k: 3 });
    const names = res.trace.map((s) => s.name);
    for (const n of ['analysis', 'embedding', 'full-text', 'vector', 'fusion', 'rerank', 'augmentation', 'budget']) assert.ok(names.includes(n), `${n} in ${names}`);
    const json = JSON.stringify(res.trace);
    for (const d of DOCS) assert.ok(!json.includes(d.text.slice(0, 30)), 'no document text in the trace');
    assert.ok(res.context && res.context.usedTokens > 0 && res.context.usedTokens <= res.context.budgetTokens);
  });
});
