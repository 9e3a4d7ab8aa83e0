// `docs-rag mcp --watch`'s FolderWatcher (src/mcp/watch.ts) on a real folder and store: it selects changes with the
// index's own include/exclude and ignore files (index/pathFilter.ts), so files the index never holds start no run (a
// vector fill would give way to each such run), while documents, new folders, deleted paths and ignore files do.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { IndexRunResult } from '../../src/rag/index/indexer';
import { IndexAccess } from '../../src/mcp/indexAccess';
import { FolderWatcher } from '../../src/mcp/watch';
import { startFakeOllama, type FakeOllama } from '../helpers/ollamaServer';

describe('mcp --watch: which changes start a run', function () {
  this.timeout(120_000);
  let tmp: string;
  let access: IndexAccess;
  let watcher: FolderWatcher;
  const runs: (string[] | 'all')[] = [];

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-watch-'));
    const folder = path.join(tmp, 'docs');
    fs.mkdirSync(path.join(folder, 'drafts'), { recursive: true });
    // The folder is a repository's subfolder: the ignore files of tmp apply to it too.
    fs.mkdirSync(path.join(tmp, '.git'));
    fs.writeFileSync(path.join(folder, 'a.md'), '# A\n\nDas Zwiebelfischregister wird jährlich geführt.\n');
    access = new IndexAccess({ folder, storeDir: path.join(tmp, 'store'), config: { ingest: { exclude: ['**/drafts/**'] } } });
    watcher = new FolderWatcher(access, {
      debounceMs: 100,
      maxWaitMs: 1000,
      onRun: (r: IndexRunResult | Error, paths) => {
        if (r instanceof Error) throw r;
        runs.push(paths);
      },
    });
    watcher.start();
    await watcher.idle();
  });

  after(async () => {
    await watcher.stop();
    await access.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  const settle = async () => {
    // Longer than the debounce and the longest wait, so an event that queued anything has run by now.
    await new Promise((r) => setTimeout(r, 1500));
    await watcher.idle();
  };

  it('starts no run for files outside the include globs or inside excluded folders', async () => {
    assert.deepEqual(runs, ['all'], 'the catch-up run');
    const folder = access.folder;
    fs.writeFileSync(path.join(folder, 'build.log'), 'not a document\n');
    fs.writeFileSync(path.join(folder, 'cache.bin'), Buffer.alloc(64));
    fs.writeFileSync(path.join(folder, 'drafts/wip.md'), '# Draft\n');
    fs.appendFileSync(path.join(folder, 'build.log'), 'more\n');
    await settle();
    assert.deepEqual(runs, ['all'], 'no run after changes the index does not hold');
  });

  it('runs for a document, a folder moved in and a deleted path', async () => {
    const folder = access.folder;
    fs.writeFileSync(path.join(folder, 'b.md'), '# B\n\nDas Krakenhaftungsgesetz gilt sofort.\n');
    await settle();
    assert.deepEqual(runs.slice(1), [['b.md']]);
    const count = () => access.use((engine) => engine.store.countPassages());
    const before = await count();
    const outside = path.join(tmp, 'moved');
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'c.md'), '# C\n\nDie Quallenverordnung tritt außer Kraft.\n');
    fs.renameSync(outside, path.join(folder, 'moved'));
    await settle();
    // The folder's own event (Node's recursive watch may add its files' events as it starts watching it).
    assert.ok(runs.slice(2).some((p) => p !== 'all' && p.includes('moved')), JSON.stringify(runs));
    assert.ok((await count()) > before, 'the moved-in folder\'s document is indexed');
    fs.rmSync(path.join(folder, 'moved'), { recursive: true });
    await settle();
    assert.ok(runs.slice(3).some((p) => p !== 'all' && p.some((x) => x === 'moved' || x === 'moved/c.md')), JSON.stringify(runs));
    assert.equal(await count(), before, 'the deleted folder\'s passages are removed');
  });

  it('a changed .gitignore walks the folder again: newly ignored documents go; changes under them start no run', async () => {
    const folder = access.folder;
    const paths = async () => (await access.use((engine) => engine.store.listFiles())).map((f) => f.path).sort();
    fs.mkdirSync(path.join(folder, 'out'));
    fs.writeFileSync(path.join(folder, 'out/report.md'), '# Report\n\nDer Seegurkenbericht wurde erzeugt.\n');
    await settle();
    assert.ok((await paths()).includes('out/report.md'));
    const seen = runs.length;
    fs.writeFileSync(path.join(folder, '.gitignore'), 'out/\n');
    await settle();
    assert.deepEqual(runs.slice(seen), ['all'], 'one walk of the whole folder');
    assert.deepEqual(await paths(), ['a.md', 'b.md']);
    fs.writeFileSync(path.join(folder, 'out/report.md'), '# Report\n\nDer Seegurkenbericht wurde neu erzeugt.\n');
    await settle();
    assert.deepEqual(runs.slice(seen), ['all'], 'no run for a change the ignore file leaves out');
    fs.rmSync(path.join(folder, '.gitignore'));
    await settle();
    assert.deepEqual(runs.slice(seen), ['all', 'all']);
    assert.deepEqual(await paths(), ['a.md', 'b.md', 'out/report.md']);
  });

  it('a changed .gitignore above the folder, in its repository root, walks the folder again too', async () => {
    const paths = async () => (await access.use((engine) => engine.store.listFiles())).map((f) => f.path).sort();
    const seen = runs.length;
    fs.writeFileSync(path.join(tmp, '.gitignore'), '/docs/out/\n');
    await settle();
    assert.deepEqual(runs.slice(seen), ['all'], 'one walk of the whole folder');
    assert.deepEqual(await paths(), ['a.md', 'b.md']);
    // A file beside it that is no ignore file starts nothing.
    fs.writeFileSync(path.join(tmp, 'notes.txt'), 'not an ignore file\n');
    await settle();
    assert.deepEqual(runs.slice(seen), ['all']);
    fs.rmSync(path.join(tmp, '.gitignore'));
    await settle();
    assert.deepEqual(runs.slice(seen), ['all', 'all']);
    assert.deepEqual(await paths(), ['a.md', 'b.md', 'out/report.md']);
  });
});

describe('mcp --watch: a vector fill gives way to a change', function () {
  this.timeout(180_000);
  let tmp: string;
  let server: FakeOllama;
  let access: IndexAccess;
  let watcher: FolderWatcher;

  before(async () => {
    // A slow embedder (every /api/embed answered after 300 ms): the fill of the catch-up run takes several calls.
    server = await startFakeOllama({ delayMs: 300 });
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-watch-fill-'));
  });
  after(async () => {
    await watcher?.stop();
    await access?.close();
    await server.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('a file saved during the catch-up run\'s fill is written by the next run, which fills on (yieldFill wired)', async () => {
    const folder = path.join(tmp, 'docs');
    fs.mkdirSync(folder);
    for (let i = 0; i < 400; i++) fs.writeFileSync(path.join(folder, `n-${i}.md`), `# Notiz ${i}\n\nRuhepausen und Werktage im Fall ${i}.\n`);
    access = new IndexAccess({
      folder,
      storeDir: path.join(tmp, 'store'),
      config: { embed: { provider: 'ollama', model: 'nomic-embed-text', ollamaHost: server.url } },
      embedderOverride: true,
    });
    const runs: { paths: string[] | 'all'; r: IndexRunResult }[] = [];
    watcher = new FolderWatcher(access, {
      debounceMs: 100,
      maxWaitMs: 1000,
      onRun: (r, paths) => {
        if (r instanceof Error) throw r;
        runs.push({ paths, r });
      },
    });
    watcher.start();
    // The fill has begun once a passage batch reached the model (the first /api/embed is init's dimension probe).
    const until = Date.now() + 120_000;
    while (server.requests.filter((q) => q.path === '/api/embed').length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    fs.writeFileSync(path.join(folder, 'saved.md'), '# Gespeichert\n\nEine soeben gespeicherte Notiz über Zugvögel.\n');
    await watcher.idle();
    while (runs.length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    const [catchUp, next] = runs;
    assert.equal(catchUp.paths, 'all');
    assert.equal(catchUp.r.vectorsYielded, true, JSON.stringify(catchUp.r.vectors));
    assert.ok(catchUp.r.vectors!.filled < catchUp.r.vectors!.total, JSON.stringify(catchUp.r.vectors));
    assert.deepEqual(next.paths, ['saved.md']);
    assert.equal(next.r.added, 1);
    const last = runs[runs.length - 1].r;
    assert.equal(last.vectors!.filled, last.vectors!.total, 'the next run filled every vector');
    assert.ok(last.vectors!.total > catchUp.r.vectors!.total, 'the saved file\'s passages included');
  });
});
