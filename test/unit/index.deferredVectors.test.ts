// A slow embedder (local ONNX model, Ollama) gets its vectors after the text is written: keyword search works at once,
// vector search sees only filled passages, status reports "vectors n of m", a stopped fill is continued by the next
// run. Real parts: the tiny generated ONNX model through transformers.js, the real `ollama` client against the
// Ollama-API test server, real LanceDB in temp folders.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TINY_MODEL_DIR } from '../../scripts/models/tinyEmbedding';
import { statusReport } from '../../src/rag/status';
import { LocalEmbedder } from '../../src/rag/embed';
import { openEngine, type Engine } from '../../src/rag/engine';
import { fillPendingVectors } from '../../src/rag/index/fillVectors';
import { indexFolder, type IndexProgress, type IndexRunResult } from '../../src/rag/index/indexer';
import { RunQueue } from '../../src/rag/index/runQueue';
import { openStore } from '../../src/rag/store';
import { startFakeOllama, type FakeOllama } from '../helpers/ollamaServer';
import { runCliSource } from '../helpers/run';

const DOCS: Record<string, string> = {
  'urlaub.md': '# Urlaub\n\nDer Arbeitnehmer hat Anspruch auf bezahlten Erholungsurlaub von mindestens vierundzwanzig Werktagen.\n\n## Wartezeit\n\nDer volle Urlaubsanspruch entsteht erstmalig nach sechsmonatigem Bestehen des Arbeitsverhältnisses.\n',
  'cargo.md': '# Cargo\n\nCargo is the Rust package manager. It downloads dependencies and compiles packages.\n\n## Workspaces\n\nA workspace shares one Cargo.lock and one output directory between its member packages.\n',
  'pause.md': '# Ruhepausen\n\nDie Arbeit ist durch im Voraus feststehende Ruhepausen von mindestens dreißig Minuten zu unterbrechen.\n',
  'build.md': '# Build scripts\n\nA build script is a file named build.rs placed in the root of a package; Cargo compiles and runs it before the package.\n',
};

function writeDocs(folder: string): void {
  for (const [rel, text] of Object.entries(DOCS)) fs.writeFileSync(path.join(folder, rel), text);
}

describe('deferred vectors: keyword search first, vectors filled afterwards', function () {
  this.timeout(300_000);
  let tmp: string;
  let folder: string;
  const engines: Engine[] = [];
  const open = async (storeDir: string, embed: Record<string, unknown>) => {
    const e = await openEngine({ folder, storeDir, config: { embed }, embedderOverride: true });
    engines.push(e);
    return e;
  };

  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'deferred-vectors-'));
    folder = path.join(tmp, 'docs');
    fs.mkdirSync(folder);
    writeDocs(folder);
  });
  afterEach(async () => {
    for (const e of engines.splice(0)) await e.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('local model: keyword hits while every vector is pending, vector hits only from filled passages, the next run fills the rest', async () => {
    const storeDir = path.join(tmp, 'store');
    const engine = await open(storeDir, { provider: 'local', localModel: TINY_MODEL_DIR });
    // Stop the run the moment its text is written and the fill is about to start.
    const stop = new AbortController();
    const phases: IndexProgress[] = [];
    const first = await indexFolder(engine, {
      signal: stop.signal,
      onProgress: (p) => {
        phases.push(p);
        if (p.phase === 'vectors') stop.abort();
      },
    });
    const atFill = phases.find((p) => p.phase === 'vectors');
    assert.ok(atFill?.vectors, 'the run reports a vectors phase with counts');
    assert.equal(atFill.vectors.filled, 0);
    assert.ok(atFill.vectors.total >= 8, `passages written before any vector: ${atFill.vectors.total}`);
    assert.ok(!phases.some((p) => p.phase === 'embed'), 'no file waits for its vectors');
    assert.equal(first.cancelled, true);
    assert.deepEqual(first.vectors, { filled: 0, total: first.chunks });
    assert.equal(first.keywordReadyMs !== undefined, true);

    // Another reader (as the CLI next to the extension would be): keyword search answers, vector search has nothing yet.
    const reader = await openStore(storeDir);
    try {
      const kw = await reader.fullTextSearch('Erholungsurlaub Werktagen', { k: 5 });
      assert.ok(kw.length > 0 && kw[0].passage.path === 'urlaub.md', 'keyword search finds the passage before its vector exists');
      const [probe] = await engine.embedder.embedQueries(['Cargo workspace']);
      assert.equal((await reader.vectorSearch(probe, { k: 100 })).length, 0, 'no placeholder vector is ever a vector hit');
      const status = await statusReport(reader, folder, storeDir);
      assert.deepEqual(status.vectors, { filled: 0, total: first.chunks });
    } finally {
      await reader.close();
    }

    const waiting = await engine.store.pendingVectors!(1000);
    assert.equal(waiting.length, first.chunks);

    // Cancelled while the embedder works (the fill's first call): a stop like any other, nothing written, no error.
    const during = new AbortController();
    const embed = engine.embedder.embed.bind(engine.embedder);
    engine.embedder.embed = (texts, signal) => {
      during.abort();
      return embed(texts, signal);
    };
    try {
      const stopped = await fillPendingVectors(engine, { batch: 3, signal: during.signal });
      assert.deepEqual(stopped, { filled: 0, total: first.chunks, stopped: true });
    } finally {
      engine.embedder.embed = embed;
    }

    // Part of the vectors: batches of 3, stopped after the first one.
    const part = new AbortController();
    const filled = await fillPendingVectors(engine, { batch: 3, signal: part.signal, onBatch: (c) => c.filled > 0 && part.abort() });
    assert.equal(filled.stopped, true);
    assert.equal(filled.filled, 3);
    const all = await engine.store.getFilePassages('urlaub.md');
    const ids = (await Promise.all(Object.keys(DOCS).map((p) => engine.store.getFilePassages(p)))).flat().map((p) => p.id);
    assert.ok(all.length > 0);
    const withVector = await engine.store.getVectors(ids);
    assert.equal(withVector.size, 3, 'only filled passages have a vector to read');
    const [q] = await engine.embedder.embedQueries(['Urlaub Arbeitnehmer']);
    const hits = await engine.store.vectorSearch(q, { k: 100 });
    assert.equal(hits.length, 3, 'vector search returns exactly the filled passages');
    for (const h of hits) assert.ok(withVector.has(h.passage.id), `${h.passage.id} is a filled passage`);
    assert.ok(hits.every((h) => Number.isFinite(h.score)));

    // The next run changes nothing on disk but fills the rest.
    const next = await indexFolder(engine);
    assert.equal(next.unchanged, Object.keys(DOCS).length);
    assert.deepEqual(next.vectors, { filled: next.chunks, total: next.chunks });
    assert.equal((await engine.store.vectorSearch(q, { k: 100 })).length, next.chunks);
    // Filled vectors are the model's document vectors of the passages' indexed text, as an inline embed gives them.
    const sample = waiting.slice(0, 5);
    const expected = await engine.embedder.embed(sample.map((w) => w.indexText));
    const got = await engine.store.getVectors(sample.map((w) => w.id));
    sample.forEach((w, i) => assert.deepEqual(Array.from(got.get(w.id)!), Array.from(expected[i])));
  });

  it('local model, large run: the model is unloaded while the files are written and loaded again for the fill', async () => {
    // More than 20 files to write: a large run (an incremental run of a few files keeps its model loaded).
    for (let i = 0; i < 24; i++) fs.writeFileSync(path.join(folder, `extra-${i}.md`), `# Notiz ${i}\n\nArbeitszeit und Ruhepausen, Fall ${i}.\n`);
    const engine = await open(path.join(tmp, 'store'), { provider: 'local', localModel: TINY_MODEL_DIR });
    const local = engine.embedder as LocalEmbedder;
    const loadedIn = new Map<string, Set<boolean>>();
    const r = await indexFolder(engine, {
      onProgress: (p) => {
        const seen = loadedIn.get(p.phase) ?? new Set<boolean>();
        seen.add(local.loaded);
        loadedIn.set(p.phase, seen);
      },
    });
    assert.equal(local.dimension, 32, 'loaded first to learn the dimension');
    assert.deepEqual([...loadedIn.get('parse')!], [false], 'unloaded while the files are parsed and written');
    assert.ok(loadedIn.get('vectors')!.has(true), 'loaded again by the fill');
    assert.deepEqual(r.vectors, { filled: r.chunks, total: r.chunks });
    assert.equal(r.files, 28);

    // A small run (one changed file) keeps it loaded throughout.
    fs.appendFileSync(path.join(folder, 'pause.md'), '\nNach sechs Stunden mindestens dreißig Minuten.\n');
    const small = new Set<boolean>();
    await indexFolder(engine, { onProgress: (p) => p.phase === 'parse' && small.add(local.loaded) });
    assert.deepEqual([...small], [true]);
  });

  it('local model, first build: the fill writes into the appended fragments, its rows stay under the keyword indexes, the compaction follows it', async () => {
    // 450 files: the run appends them in three batches (three fragments).
    for (let i = 0; i < 450; i++) fs.writeFileSync(path.join(folder, `n-${i}.md`), `# Notiz ${i}\n\nRuhepausen und Werktage im Fall ${i}.\n`);
    const storeDir = path.join(tmp, 'store');
    const engine = await open(storeDir, { provider: 'local', localModel: TINY_MODEL_DIR });
    const store = engine.store as unknown as { passages: { stats(): Promise<{ fragmentStats: { numFragments: number } }> } };
    const fragments = async () => (await store.passages.stats()).fragmentStats.numFragments;
    const stop = new AbortController();
    const first = await indexFolder(engine, { signal: stop.signal, onProgress: (p) => p.phase === 'vectors' && stop.abort() });
    assert.equal(first.cancelled, true);
    assert.equal(first.maintained, undefined, 'a stopped fill runs no maintenance that would compact before the next fill');
    const before = await fragments();
    assert.ok(before >= 3, `the text step left its appended fragments for the fill: ${before}`);

    // A partial fill rewrites vector columns in place: no compaction, every row still under the keyword indexes.
    const part = new AbortController();
    await fillPendingVectors(engine, { batch: 100, signal: part.signal, onBatch: (c) => c.filled >= 200 && part.abort() });
    assert.equal(await fragments(), before);
    const coverage = await engine.store.keywordIndexCoverage!();
    assert.equal(coverage?.unindexed, 0, JSON.stringify(coverage));
    const kw = await engine.store.fullTextSearch('Ruhepausen', { k: 500 });
    assert.ok(kw.length >= 450, `keyword hits after the partial fill: ${kw.length}`);

    // One commit per fragment: each commit rewrites the vector columns of every fragment its rows are in.
    const table = (engine.store as unknown as { passages: { version(): Promise<number> } }).passages;
    const units = new Set((await engine.store.pendingVectorUnits!(100_000)).map((p) => p.unit));
    assert.ok(units.size >= 3, `fragments with waiting rows: ${units.size}`);
    const v0 = await table.version();
    const rest = await fillPendingVectors(engine, { batch: 100 });
    assert.deepEqual(rest, { filled: rest.total, total: rest.total, stopped: false });
    assert.equal((await table.version()) - v0, units.size, 'one commit per fragment with waiting rows, not one per 100 rows');
    assert.equal(await fragments(), before);

    // The next run compacts after the fill (the run that fills compacts; this one finds nothing to fill but is due).
    fs.writeFileSync(path.join(folder, 'late.md'), '# Spät\n\nEine späte Notiz über Ruhepausen.\n');
    const r = await indexFolder(engine);
    assert.deepEqual(r.vectors, { filled: r.chunks, total: r.chunks });
    assert.ok((await fragments()) < before, 'compacted once the vectors are filled');
  });

  it('local model: a passage whose text changed while it was embedded gets the vector of its new text', async () => {
    const engine = await open(path.join(tmp, 'store'), { provider: 'local', localModel: TINY_MODEL_DIR });
    const stop = new AbortController();
    await indexFolder(engine, { signal: stop.signal, onProgress: (p) => p.phase === 'vectors' && stop.abort() });
    const waiting = await engine.store.pendingVectors!(1000);
    const texts = new Map(waiting.map((w) => [w.id, w]));
    const [record] = (await engine.store.listFiles()).filter((f) => f.path === 'cargo.md');
    const passages = await engine.store.getFilePassages('cargo.md');
    const target = passages.find((p) => texts.get(p.id)?.indexText.includes('package manager'))!;
    assert.ok(target, 'a waiting passage of cargo.md');
    // Another writer rewrites the file's rows while the fill embeds (same ids; one passage's indexed text changed, as a
    // new document title or an enrichment would change it).
    const changed = 'Cargo, the Rust build tool, resolves dependencies and compiles crates.';
    const embed = engine.embedder.embed.bind(engine.embedder);
    let rewritten = false;
    engine.embedder.embed = async (batch, signal) => {
      const out = await embed(batch, signal);
      if (!rewritten) {
        rewritten = true;
        await engine.store.replaceFiles([{
          record,
          passages: passages.map((p) => ({ ...p, indexText: p.id === target.id ? changed : texts.get(p.id)!.indexText, keywordParts: texts.get(p.id)!.keywordParts })),
          vectors: [],
          vectorsPending: true,
        }]);
      }
      return out;
    };
    try {
      const r = await fillPendingVectors(engine);
      assert.deepEqual(r, { filled: r.total, total: r.total, stopped: false });
    } finally {
      engine.embedder.embed = embed;
    }
    assert.ok(rewritten);
    const got = (await engine.store.getVectors([target.id])).get(target.id)!;
    const [now] = await engine.embedder.embed([changed]);
    const [old] = await engine.embedder.embed([texts.get(target.id)!.indexText]);
    assert.deepEqual(Array.from(got), Array.from(now), 'the vector of the text the row has now');
    assert.notDeepEqual(Array.from(got), Array.from(old));
  });

  it('local model: a fill gives way to a run that waits (as the extension queues a saved file): its text is written first, it fills on', async () => {
    for (let i = 0; i < 450; i++) fs.writeFileSync(path.join(folder, `n-${i}.md`), `# Notiz ${i}\n\nRuhepausen und Werktage im Fall ${i}.\n`);
    const engine = await open(path.join(tmp, 'store'), { provider: 'local', localModel: TINY_MODEL_DIR });
    const local = engine.embedder as LocalEmbedder;
    // Wired as the extension's indexing process does (src/indexProcess/main.ts).
    const queue = new RunQueue<IndexRunResult, IndexProgress>(
      (run) => indexFolder(engine, { full: run.full, paths: run.paths, signal: run.signal, onProgress: run.onProgress, yieldFill: run.othersWaiting }),
      (r) => r.cancelled === true,
    );
    let saved: Promise<IndexRunResult> | undefined;
    let keywordHitsAtSecondFill = -1;
    const first = await queue.request({
      onProgress: (p) => {
        if (p.phase !== 'vectors' || !p.vectors?.filled || saved) return;
        // A file saved while the first build fills its vectors (after its first embedder call).
        fs.writeFileSync(path.join(folder, 'saved.md'), '# Gespeichert\n\nEine soeben gespeicherte Notiz über Zugvögel.\n');
        saved = queue.request({
          paths: [path.join(folder, 'saved.md')],
          onProgress: (q) => {
            if (q.phase === 'vectors' && keywordHitsAtSecondFill < 0) {
              keywordHitsAtSecondFill = 0;
              void engine.store.fullTextSearch('Zugvögel', { k: 3 }).then((h) => (keywordHitsAtSecondFill = h.length));
            }
          },
        });
      },
    });
    assert.equal(first.cancelled, undefined, 'giving way is not a cancel');
    assert.equal(first.vectorsYielded, true);
    assert.ok(first.vectors!.filled > 0 && first.vectors!.filled < first.vectors!.total, JSON.stringify(first.vectors));
    assert.ok(!first.maintained?.includes('train-vector-index'), 'no vector index over unfilled vectors');
    assert.equal(local.loaded, true, 'the model stays loaded for the run that continues');
    const second = await saved!;
    assert.equal(second.added, 1);
    assert.equal(second.vectorsYielded, undefined);
    assert.deepEqual(second.vectors, { filled: second.chunks, total: second.chunks });
    assert.ok(keywordHitsAtSecondFill > 0, 'the saved file was searchable before the rest of the fill');
  });

  it('the builtin embedder embeds inline (no pending vectors, no vectors phase)', async () => {
    const engine = await open(path.join(tmp, 'store'), { provider: 'builtin' });
    const phases = new Set<string>();
    const r = await indexFolder(engine, { onProgress: (p) => phases.add(p.phase) });
    assert.ok(!phases.has('vectors'));
    assert.ok(phases.has('embed'));
    assert.deepEqual(r.vectors, { filled: r.chunks, total: r.chunks });
    // Keyword-ready and searchable come together (nothing to fill); the vector-index step after them (not due here).
    assert.ok(r.keywordReadyMs !== undefined && r.searchableMs !== undefined);
    assert.ok(r.keywordReadyMs <= r.searchableMs && r.searchableMs <= r.ms, JSON.stringify(r));
    assert.ok(!r.maintained?.includes('train-vector-index'), 'too few rows for a vector index');
  });

  describe('Ollama (real client, test server)', () => {
    let server: FakeOllama;
    beforeEach(async () => {
      server = await startFakeOllama();
    });
    afterEach(async () => server.close());

    it('writes the text before any /api/embed call of the passages, then fills; status and the CLI say "vectors: n of m"', async () => {
      const storeDir = path.join(tmp, 'store');
      const engine = await open(storeDir, { provider: 'ollama', model: 'nomic-embed-text', ollamaHost: server.url });
      let embedsAtFill = -1;
      const r = await indexFolder(engine, {
        onProgress: (p) => {
          if (p.phase === 'vectors' && embedsAtFill < 0) embedsAtFill = server.requests.filter((q) => q.path === '/api/embed').length;
        },
      });
      // Only the dimension probe of init ran before the fill.
      assert.equal(embedsAtFill, 1);
      const documentCalls = server.requests.filter((q) => q.path === '/api/embed').slice(1);
      assert.ok(documentCalls.length > 0);
      assert.ok(documentCalls.every((q) => [q.body.input].flat().every((t: string) => t.startsWith('search_document: '))), 'passages get the document prefix');
      assert.deepEqual(r.vectors, { filled: r.chunks, total: r.chunks });
      await engine.close();
      engines.splice(engines.indexOf(engine), 1);

      const cli = await runCliSource(['status', '--folder', folder, '--store', storeDir]);
      assert.equal(cli.code, 0, cli.stderr);
      assert.match(cli.stdout, new RegExp(`Vectors: ${r.chunks} of ${r.chunks}\\n`));
      const json = await runCliSource(['status', '--folder', folder, '--store', storeDir, '--json']);
      assert.deepEqual(JSON.parse(json.stdout).vectors, { filled: r.chunks, total: r.chunks });
    });
  });
});
