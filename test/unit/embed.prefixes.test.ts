// The query/document seam end to end: a prefix model (nomic-embed-text) through the real `ollama` client against the
// Ollama-API test server. Indexing sends passages with `search_document: `; the retriever's query, its multi-query
// variants and the agent's semantic_search send `search_query: `; HyDE's hypothetical passage is a document.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { OllamaChatModel } from '../../src/rag/llm/ollamaChat';
import { ToolRunner } from '../../src/rag/answer/tools';
import { openEngine, type Engine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';
import { createRetriever } from '../../src/rag/search';
import { startFakeOllama, type FakeChatRequest, type FakeOllama } from '../helpers/ollamaServer';

const HYDE = 'Die Ruhezeit zwischen zwei Arbeitstagen beträgt mindestens elf Stunden.';
const VARIANT = 'Ruhezeit nach Ende der Arbeitszeit';

describe('embedding prefixes: queries vs documents through every path (real ollama client, test server)', function () {
  this.timeout(120_000);
  let dir: string;
  let server: FakeOllama;
  let engine: Engine;
  const embedInputs = (from: number) =>
    server.requests
      .slice(from)
      .filter((r) => r.path === '/api/embed')
      .flatMap((r) => (Array.isArray(r.body.input) ? (r.body.input as string[]) : [String(r.body.input)]));
  const system = (req: FakeChatRequest) => req.messages.find((m) => m.role === 'system')?.content ?? '';

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'embed-prefix-'));
    const folder = path.join(dir, 'docs');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'ruhezeit.md'), '# Ruhezeit\n\nNach Beendigung der täglichen Arbeitszeit gilt eine ununterbrochene Ruhezeit von mindestens elf Stunden.\n');
    fs.writeFileSync(path.join(folder, 'cargo.md'), '# Profiles\n\nThe codegen-units setting controls how many code generation units a crate is split into.\n');
    server = await startFakeOllama({
      chat: (req) => (system(req).includes('rewrite search queries') ? JSON.stringify({ queries: [VARIANT] }) : HYDE),
    });
    engine = await openEngine({
      folder,
      storeDir: path.join(dir, 'store'),
      config: { embed: { provider: 'ollama', model: 'nomic-embed-text', ollamaHost: server.url } },
      embedderOverride: true,
    });
  });
  after(async () => {
    await engine?.close();
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('indexing sends every passage with the document prefix', async () => {
    const from = server.requests.length;
    const r = await indexFolder(engine);
    assert.equal(r.files, 2);
    const inputs = embedInputs(from).filter((t) => t !== 'dimension probe');
    assert.ok(inputs.length >= 2, 'passages were embedded');
    for (const t of inputs) assert.match(t, /^search_document: /, t);
  });

  it('search embeds the query and its variants with the query prefix, the HyDE passage with the document prefix', async () => {
    const from = server.requests.length;
    const chatModel = new OllamaChatModel({ model: 'llama3.2', host: server.url, timeoutMs: 10_000 });
    const res = await createRetriever(engine, { config: 'default', chatModel, overrides: { queryExpansion: 'both', translateQuestion: 'off' } }).retrieve('Wie lange muss ich zwischen zwei Schichten frei haben?', {
      k: 3,
      context: false,
    });
    assert.equal(res.warnings.length, 0, res.warnings.join('; '));
    assert.equal(res.hits[0].passage.path, 'ruhezeit.md');
    const inputs = embedInputs(from);
    assert.ok(inputs.some((t) => /^search_query: .*zwei Schichten/.test(t)), `the query: ${JSON.stringify(inputs)}`);
    assert.ok(inputs.includes(`search_query: ${VARIANT}`), `the variant: ${JSON.stringify(inputs)}`);
    assert.ok(inputs.includes(`search_document: ${HYDE}`), `the HyDE passage: ${JSON.stringify(inputs)}`);
    assert.equal(inputs.length, 3);
  });

  it('the agent\'s semantic_search embeds its query with the query prefix', async () => {
    const from = server.requests.length;
    const runner = new ToolRunner({ store: engine.store, embedder: engine.embedder });
    const out = await runner.run({ name: 'semantic_search', arguments: { query: 'codegen units' } });
    assert.match(out, /cargo\.md/);
    assert.deepEqual(embedInputs(from), ['search_query: codegen units']);
  });
});
