// LLM-built enrichments over passages from the real Markdown loader and chunker, through the real `ollama` client
// against the Ollama-API test server: contextual indexText, abstractive summaries, cache hits, model failure
// fallback, and resume after `kill -9` of a child process mid-enrichment.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { OllamaChatModel } from '../../src/rag/llm/ollamaChat';
import { chunkDocument } from '../../src/rag/chunk';
import { defaultConfig } from '../../src/rag/config';
import { CACHE_FILE, EnrichCache, EnrichRun, enrichForIndex, enrichPassagesWithStats } from '../../src/rag/enrich';
import { openEngine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';
import { parseBytes } from '../../src/rag/ingest';
import type { IndexedPassage } from '../../src/rag/types';
import { closedPort, startFakeOllama, type FakeChatRequest, type FakeOllama } from '../helpers/ollamaServer';

const ROOT = path.resolve(__dirname, '../..');

/** Deterministic "model": the context names the passage's first words; summaries start with "Summary:". */
function enrichModel(req: FakeChatRequest): string {
  const system = req.messages[0]?.content ?? '';
  const user = req.messages[1]?.content ?? '';
  if (/situates a passage/.test(system)) {
    const passage = /<passage[^>]*>\n([\s\S]*?)\n<\/passage>/.exec(user)?.[1] ?? '';
    return `CTX about ${passage.split(/\s+/).slice(0, 3).join(' ')}`;
  }
  if (/You summarise/.test(system)) {
    const text = /<text[^>]*>\n([\s\S]*?)\n<\/text>/.exec(user)?.[1] ?? '';
    return `Summary: ${text.split(/\s+/).slice(0, 6).join(' ')}`;
  }
  return 'unexpected prompt';
}

function markdownDoc(sections: number): string {
  const parts = ['# Urlaubsrecht\n', 'Dieses Dokument fasst die Regeln zum Erholungsurlaub zusammen.\n'];
  for (let i = 1; i <= sections; i++) {
    parts.push(`## Abschnitt ${i}\n`);
    parts.push(`Regel ${i}: Der Arbeitnehmer hat Anspruch auf ${20 + i} Werktage Urlaub im Kalenderjahr. ${'Weitere Erläuterungen folgen hier. '.repeat(4)}\n`);
  }
  return parts.join('\n');
}

async function passagesOf(md: string, name = 'docs/urlaub.md'): Promise<IndexedPassage[]> {
  const doc = await parseBytes(new TextEncoder().encode(md), 'md', name);
  return chunkDocument(doc, { path: name, fileHash: 'hash-1' }, defaultConfig().chunk);
}

describe('enrich: contextual retrieval and summaries', function () {
  this.timeout(60_000);
  let server: FakeOllama;
  let dir: string;
  beforeEach(async () => {
    server = await startFakeOllama({ chat: enrichModel });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-enrich-'));
  });
  afterEach(async () => {
    await server.close();
    EnrichCache.forget(dir);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('prepends a context to indexText of passages, keeps text, replaces L0/L1 summaries, and caches by content', async () => {
    const passages = await passagesOf(markdownDoc(10));
    const l2 = passages.filter((p) => p.level === 2);
    assert.ok(l2.length >= 10 && passages.some((p) => p.level === 0) && passages.some((p) => p.level === 1));
    const chatModel = new OllamaChatModel({ model: 'llama3.2', host: server.url });
    const progress: number[] = [];
    const first = await enrichPassagesWithStats(passages, { chatModel, cacheDir: dir, onProgress: (p) => progress.push(p.done) });
    assert.equal(first.stats.generated, passages.length);
    assert.equal(first.stats.cached, 0);
    assert.deepEqual(progress, passages.map((_p, i) => i + 1));
    for (const [i, p] of first.passages.entries()) {
      const orig = passages[i];
      if (p.level === 2) {
        assert.equal(p.text, orig.text, 'display text stays the original');
        assert.ok(p.indexText.startsWith(`CTX about ${orig.text.split(/\s+/).slice(0, 3).join(' ')}`), p.indexText);
        assert.ok(p.indexText.endsWith(orig.indexText));
      } else {
        assert.match(p.text, /^Summary: /);
        assert.ok(p.indexText.includes(p.text));
      }
    }
    assert.equal(passages[0].indexText.startsWith('CTX'), false, 'input passages are not mutated');
    const calls = server.requests.filter((r) => r.path === '/api/chat').length;
    assert.equal(calls, passages.length);

    // A second run over the same content: every result from the cache file, no model call.
    EnrichCache.forget(dir);
    const second = await enrichPassagesWithStats(passages, { chatModel, cacheDir: dir });
    assert.equal(second.stats.cached, passages.length);
    assert.equal(second.stats.hits, passages.length);
    assert.equal(server.requests.filter((r) => r.path === '/api/chat').length, calls);
    assert.deepEqual(second.passages.map((p) => p.indexText), first.passages.map((p) => p.indexText));

    // One changed section (outside the document's lead): only its passage, its section summary and the document
    // summary built from the section summaries are recomputed.
    const changed = await passagesOf(markdownDoc(10).replace('Regel 10: Der Arbeitnehmer hat Anspruch auf 30', 'Regel 10: Die Arbeitnehmerin hat Anspruch auf 30'));
    assert.equal(changed.length, passages.length);
    const third = await enrichPassagesWithStats(changed, { chatModel, cacheDir: dir });
    assert.equal(third.stats.generated, 3, `generated ${third.stats.generated} of ${changed.length}`);
    assert.equal(third.stats.cached, changed.length - third.stats.generated);
  });

  it('falls back to the plain passages when the model fails, and warns once per run', async () => {
    await server.close();
    server = await startFakeOllama({ chat: enrichModel, models: ['llama3.2'] });
    const passages = await passagesOf(markdownDoc(2));
    const warnings: string[] = [];
    const config = { ...defaultConfig(), enrich: { contextual: true, summaries: true, model: 'qwen2.5:7b-instruct' } };
    config.embed.ollamaHost = server.url;
    const run = new EnrichRun();
    const out = await enrichForIndex(passages, { config, storeDir: dir, run, onWarning: (m) => warnings.push(m) });
    assert.deepEqual(out.passages.map((p) => [p.text, p.indexText]), passages.map((p) => [p.text, p.indexText]), 'extractive summaries and plain indexText kept');
    assert.equal(out.complete, false, 'stored without its enrichment');
    const again = await enrichForIndex(passages, { config, storeDir: dir, run, onWarning: (m) => warnings.push(m) });
    assert.equal(again.passages.length, passages.length);
    assert.equal(again.complete, false);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /ollama pull qwen2\.5:7b-instruct/);
    assert.equal(server.requests.filter((r) => r.path === '/api/chat').length, 1, 'a missing model is asked once per run, not per passage or file');
    // The next run asks again (the outage is not remembered by the process).
    await enrichForIndex(passages, { config, storeDir: dir, run: new EnrichRun(), onWarning: (m) => warnings.push(m) });
    assert.equal(server.requests.filter((r) => r.path === '/api/chat').length, 2);
    assert.equal(warnings.length, 2);
  });

  it('a file indexed while Ollama is down is enriched by the next run once Ollama is up (real client, down then up)', async () => {
    await server.close();
    const port = await closedPort();
    const folder = path.join(dir, 'docs');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'urlaub.md'), markdownDoc(2));
    fs.writeFileSync(path.join(folder, 'fristen.md'), markdownDoc(1).replace('Urlaubsrecht', 'Fristen'));
    const config = { embed: { ollamaHost: `http://127.0.0.1:${port}` }, enrich: { contextual: true, summaries: false, model: 'llama3.2' } };
    const engine = await openEngine({ folder, storeDir: path.join(dir, 'store'), config });
    try {
      // Down: both files are stored plain, the run warns once and does not fail.
      const down = await indexFolder(engine);
      assert.equal(down.errors.length, 0);
      assert.equal(down.files, 2);
      assert.equal(down.warnings?.filter((w) => /enrichment stopped/.test(w)).length, 1, String(down.warnings));
      assert.match(down.warnings!.find((w) => /enrichment stopped/.test(w))!, /Cannot reach Ollama/);
      assert.equal((await engine.store.fullTextSearch('Quokkaregel', { k: 10 })).length, 0);

      // Up on the same address: the next (incremental, not full) run enriches both files.
      server = await startFakeOllama({ port, chat: (req) => (/situates a passage/.test(req.messages[0].content) ? 'Zusammenhang: Quokkaregel' : enrichModel(req)) });
      const up = await indexFolder(engine);
      assert.equal(up.errors.length, 0);
      assert.equal(up.updated, 2, 'both plain files are redone');
      assert.ok(!up.warnings?.some((w) => /enrichment stopped/.test(w)), String(up.warnings));
      const calls = server.requests.filter((q) => q.path === '/api/chat').length;
      assert.ok(calls >= 3, `${calls} model calls`);
      const hits = await engine.store.fullTextSearch('Quokkaregel', { k: 20 });
      assert.deepEqual([...new Set(hits.map((h) => h.passage.path))].sort(), ['fristen.md', 'urlaub.md']);

      // Enriched now: a third run leaves both files alone and asks the model nothing.
      const third = await indexFolder(engine);
      assert.equal(third.unchanged, 2);
      assert.equal(server.requests.filter((q) => q.path === '/api/chat').length, calls);
    } finally {
      await engine.close();
      EnrichCache.forget(path.join(dir, 'store'));
    }
  });

  it('the indexer runs it when config.enrich is set: context words become searchable, text stays, reruns hit the cache', async () => {
    await server.close();
    // The context names a word that is nowhere in the document, so finding it proves indexText was enriched.
    server = await startFakeOllama({ chat: (req) => (/situates a passage/.test(req.messages[0].content) ? 'Zusammenhang: Quokkaregel' : enrichModel(req)) });
    const folder = path.join(dir, 'docs');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'urlaub.md'), markdownDoc(2));
    const config = { embed: { ollamaHost: server.url }, enrich: { contextual: true, summaries: false, model: 'llama3.2' } };
    const engine = await openEngine({ folder, storeDir: path.join(dir, 'store'), config });
    try {
      const r = await indexFolder(engine);
      assert.equal(r.errors.length, 0);
      const calls = server.requests.filter((q) => q.path === '/api/chat').length;
      assert.ok(calls >= 2, `${calls} model calls`);
      const hits = await engine.store.fullTextSearch('Quokkaregel', { k: 10 });
      assert.ok(hits.length >= 2 && hits.every((h) => h.passage.level === 2), 'found through the context only');
      assert.ok(hits.every((h) => !h.passage.text.includes('Quokkaregel')), 'display text is the original');
      assert.ok(fs.existsSync(path.join(dir, 'store', CACHE_FILE)));
      await indexFolder(engine, { full: true });
      assert.equal(server.requests.filter((q) => q.path === '/api/chat').length, calls, 'a full re-index pays nothing twice');
      assert.ok((await engine.store.fullTextSearch('Quokkaregel', { k: 10 })).length >= 2);
    } finally {
      await engine.close();
      EnrichCache.forget(path.join(dir, 'store'));
    }
  });

  it('the cache keeps only what indexed files use: edits and deletions prune it, the file is compacted, unchanged files keep their hits', async () => {
    await server.close();
    server = await startFakeOllama({ chat: enrichModel });
    const folder = path.join(dir, 'docs');
    const storeDir = path.join(dir, 'store');
    fs.mkdirSync(folder);
    const doc = (name: string, version: number) => markdownDoc(6).replace('Dieses Dokument', `Dieses Dokument (${name})`).replace('Urlaubsrecht', `${name} Fassung ${version}`).replace(/Werktage/g, `Werktage (${name} Fassung ${version})`);
    const files = ['a.md', 'b.md', 'c.md'];
    for (const f of files) fs.writeFileSync(path.join(folder, f), doc(f, 0));
    fs.writeFileSync(path.join(folder, 'stays.md'), doc('stays', 0));
    const config = { embed: { ollamaHost: server.url }, enrich: { contextual: true, summaries: true, model: 'llama3.2' } };
    const engine = await openEngine({ folder, storeDir, config });
    const cacheFile = path.join(storeDir, CACHE_FILE);
    const lines = () => fs.readFileSync(cacheFile, 'utf8').split('\n').filter(Boolean).length;
    const chats = () => server.requests.filter((q) => q.path === '/api/chat').length;
    try {
      await indexFolder(engine);
      // One result per passage (document and section summaries, passage contexts), none shared between the files.
      const live = EnrichCache.open(storeDir).size;
      assert.equal(live, await engine.store.countPassages());
      assert.ok(live >= 40, `${live} entries`);
      assert.equal(lines(), live);

      // 12 edit rounds of every file but one, each followed by an incremental run: all their results change each time.
      let appendOnly = live;
      for (let round = 1; round <= 12; round++) {
        for (const f of files) fs.writeFileSync(path.join(folder, f), doc(f, round));
        const written = EnrichCache.open(storeDir).written;
        const r = await indexFolder(engine);
        assert.equal(r.updated, 3);
        const cache = EnrichCache.open(storeDir);
        appendOnly += cache.written - written;
        assert.equal(cache.size, await engine.store.countPassages(), `round ${round}: memory holds the live entries only`);
        assert.ok(lines() <= cache.size + Math.max(200, cache.size / 2), `round ${round}: ${lines()} lines for ${cache.size} live entries`);
      }
      assert.ok(appendOnly > 5 * live, `${appendOnly}`);
      assert.ok(lines() < appendOnly / 2, `${lines()} lines, append-only would be ${appendOnly}`);

      // A new process reads the compacted file: a full run pays nothing, the unchanged file's results were kept.
      EnrichCache.forget(storeDir);
      const before = chats();
      await indexFolder(engine, { full: true });
      assert.equal(chats(), before, 'every result still used is a cache hit');
      assert.equal(EnrichCache.open(storeDir).size, await engine.store.countPassages());

      // Deleted files lose their entries.
      fs.rmSync(path.join(folder, 'a.md'));
      fs.rmSync(path.join(folder, 'b.md'));
      await indexFolder(engine);
      const left = await engine.store.countPassages();
      assert.ok(left < live);
      assert.equal(EnrichCache.open(storeDir).size, left);
    } finally {
      await engine.close();
      EnrichCache.forget(storeDir);
    }
  });

  it('cancellation stops between passages, throws, and keeps what was finished in the cache', async () => {
    await server.close();
    server = await startFakeOllama({ chat: enrichModel, delayMs: 30 });
    const passages = await passagesOf(markdownDoc(8));
    const chatModel = new OllamaChatModel({ model: 'llama3.2', host: server.url });
    const ac = new AbortController();
    await assert.rejects(
      enrichPassagesWithStats(passages, { chatModel, cacheDir: dir, signal: ac.signal, onProgress: (p) => p.done === 4 && ac.abort() }),
      (e: unknown) => e instanceof Error && e.name === 'ModelError' && /cancel/i.test(e.message),
    );
    EnrichCache.forget(dir);
    const again = await enrichPassagesWithStats(passages, { chatModel, cacheDir: dir });
    assert.equal(again.stats.cached, 4);
    assert.equal(again.stats.generated, passages.length - 4);
  });

  it('is off unless configured', async () => {
    const passages = await passagesOf(markdownDoc(1));
    const out = await enrichForIndex(passages, { config: defaultConfig(), storeDir: dir });
    assert.equal(out.passages, passages);
    assert.equal(out.complete, true);
    assert.equal(server.requests.length, 0);
  });

  it('resumes after kill -9 mid-enrichment: finished results are cache hits, only the rest is generated', async () => {
    await server.close();
    server = await startFakeOllama({ chat: enrichModel, delayMs: 150 });
    const md = markdownDoc(12);
    const mdFile = path.join(dir, 'doc.md');
    fs.writeFileSync(mdFile, md);
    const passages = await passagesOf(md);
    const total = passages.length;
    assert.ok(total >= 20, `${total} passages`);

    const script = path.join(dir, 'child.ts');
    fs.writeFileSync(
      script,
      [
        `import * as fs from 'node:fs';`,
        `import { OllamaChatModel } from ${JSON.stringify(path.join(ROOT, 'src/rag/llm/ollamaChat'))};`,
        `import { chunkDocument } from ${JSON.stringify(path.join(ROOT, 'src/rag/chunk'))};`,
        `import { defaultConfig } from ${JSON.stringify(path.join(ROOT, 'src/rag/config'))};`,
        `import { enrichPassages } from ${JSON.stringify(path.join(ROOT, 'src/rag/enrich'))};`,
        `import { parseBytes } from ${JSON.stringify(path.join(ROOT, 'src/rag/ingest'))};`,
        `(async () => {`,
        `  const doc = await parseBytes(fs.readFileSync(${JSON.stringify(mdFile)}), 'md', 'docs/urlaub.md');`,
        `  const passages = chunkDocument(doc, { path: 'docs/urlaub.md', fileHash: 'hash-1' }, defaultConfig().chunk);`,
        `  const chatModel = new OllamaChatModel({ model: 'llama3.2', host: process.argv[2] });`,
        `  await enrichPassages(passages, { chatModel, cacheDir: ${JSON.stringify(dir)}, onProgress: (p) => process.stdout.write(p.done + '\\n') });`,
        `  process.stdout.write('finished\\n');`,
        `})();`,
      ].join('\n'),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script, server.url], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const cacheFile = path.join(dir, CACHE_FILE);
    const lines = () => (fs.existsSync(cacheFile) ? fs.readFileSync(cacheFile, 'utf8').split('\n').filter(Boolean).length : 0);
    const deadline = Date.now() + 30_000;
    while (lines() < 5) {
      if (Date.now() > deadline || child.exitCode !== null) assert.fail(`child did not progress: ${out} ${err}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    assert.ok(!out.includes('finished'), 'killed before it finished');
    const done = lines();
    assert.ok(done >= 5 && done < total, `${done} of ${total} cached before the kill`);

    const before = server.requests.filter((r) => r.path === '/api/chat').length;
    const chatModel = new OllamaChatModel({ model: 'llama3.2', host: server.url });
    const rerun = await enrichPassagesWithStats(passages, { chatModel, cacheDir: dir });
    assert.equal(rerun.stats.cached, done, 'every result finished before the kill is a cache hit');
    assert.equal(rerun.stats.generated, total - done);
    assert.equal(server.requests.filter((r) => r.path === '/api/chat').length - before, total - done);
    assert.equal(lines(), total);
  });
});
