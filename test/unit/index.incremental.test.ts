import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openEngine, type Engine } from '../../src/rag/engine';
import { indexFolder, type IndexProgress } from '../../src/rag/index/indexer';
import { startFakeOllama } from '../helpers/ollamaServer';
import { WORKSPACE, cleanBuild, snapshot } from '../crash/snapshot';
import { needsShared } from '../helpers/shared';

/** A small mixed-format copy of the shared workspace: Markdown, PDF and DOCX, German and English. */
const PICK = [
  'cargo-book/index.md', 'cargo-book/faq.md', 'cargo-book/reference/profiles.pdf', 'cargo-book/reference/workspaces.docx',
  'cargo-book/guide/why-cargo-exists.md', 'gesetze/arbzg.pdf', 'gesetze/nachwg.docx', 'gesetze/tzbfg.md', 'gesetze/burlg.md',
];

function makeFolder(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-incr-'));
  for (const rel of PICK) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.copyFileSync(path.join(WORKSPACE, rel), path.join(dir, rel));
  }
  return dir;
}


describe('indexer: incremental runs equal a clean build', function () {
  needsShared('eval/workspace');
  this.timeout(300_000);
  let folder: string;
  let engine: Engine;

  beforeEach(async () => {
    folder = makeFolder();
    engine = await openEngine({ folder });
  });
  afterEach(async () => {
    await engine.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('an edit is searchable without folding its rows into the indexes; the maintenance after it folds them', async () => {
    const watch = () => {
      const seen = new Set<IndexProgress['phase']>();
      return { seen, onProgress: (p: IndexProgress) => seen.add(p.phase) };
    };
    const coverage = async () => (await engine.store.keywordIndexCoverage!())!;
    await indexFolder(engine);
    // The first run's compound re-split rewrote rows after its indexes were made: it folds them itself.
    assert.equal((await coverage()).unindexed, 0);
    const quiet = watch();
    await indexFolder(engine, { onProgress: quiet.onProgress });
    assert.ok(!quiet.seen.has('optimize'), [...quiet.seen].join(' '));
    assert.equal((await coverage()).unindexed, 0);
    // An edit written without an optimize leaves rows outside the index: the next run, with nothing new, folds them.
    fs.appendFileSync(path.join(folder, 'cargo-book/faq.md'), '\n\nOne more paragraph about registries and login tokens.\n');
    const edit = await indexFolder(engine, { maintenance: 'caller' });
    assert.equal(edit.updated, 1);
    assert.ok((await coverage()).unindexed > 0);
    // Found before any maintenance: rows outside the keyword indexes are scanned.
    const found = await engine.store.fullTextSearch('registries login tokens paragraph', { k: 3, lang: 'en' });
    assert.equal(found[0]?.passage.path, 'cargo-book/faq.md');
    // The fold is left to the maintenance after the run (here the caller's), and a run with nothing new plans it again.
    assert.ok(edit.maintenance?.some((j) => j.kind === 'optimize'), JSON.stringify(edit.maintenance));
    assert.equal(edit.maintained, undefined);
    const fold = watch();
    const after = await indexFolder(engine, { onProgress: fold.onProgress });
    assert.equal(after.unchanged, PICK.length);
    assert.ok(fold.seen.has('optimize'));
    assert.ok(after.maintained?.includes('optimize'), JSON.stringify(after.maintained));
    assert.equal((await coverage()).unindexed, 0);
  });

  it('a first build that appended most rows after its first batch is searchable before its compaction', async () => {
    // 450 small files: the first batch (200 files) gets the indexes, the other 250 are appended outside them.
    const many = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-many-'));
    const e = await openEngine({ folder: many });
    try {
      for (let i = 0; i < 450; i++) fs.writeFileSync(path.join(many, `note-${i}.md`), `# Note ${i}\n\nShipping note ${i} about crate ${i % 17}.\n`);
      fs.appendFileSync(path.join(many, 'note-321.md'), '\nThe walrus signs the manifest.\n');
      const r = await indexFolder(e);
      assert.equal(r.files, 450);
      assert.deepEqual(r.maintained?.slice(0, 1), ['optimize'], `the compaction ran after the indexes were built: ${JSON.stringify(r.maintained)}`);
      assert.ok(r.searchableMs !== undefined && r.searchableMs < r.ms, `searchable at ${r.searchableMs} ms of ${r.ms}`);
      assert.equal((await e.store.keywordIndexCoverage!())!.unindexed, 0);
      assert.equal((await e.store.fullTextSearch('walrus manifest', { k: 1 }))[0]?.passage.path, 'note-321.md');
    } finally {
      await e.close();
      fs.rmSync(many, { recursive: true, force: true });
    }
  });

  it('indexes every document once, then skips unchanged files (size/mtime, then content hash)', async () => {
    const phases = new Set<IndexProgress['phase']>();
    const first = await indexFolder(engine, { onProgress: (p) => phases.add(p.phase) });
    assert.deepEqual(first.errors, []);
    assert.equal(first.files, PICK.length);
    assert.equal(first.added, PICK.length);
    assert.ok(first.chunks > PICK.length * 2, `chunks ${first.chunks}`);
    for (const ph of ['scan', 'parse', 'embed', 'write', 'optimize', 'done'] as const) assert.ok(phases.has(ph), `phase ${ph}`);
    assert.ok(!fs.readdirSync(path.join(folder, '.docs-rag')).some((f) => f.endsWith('.md')), 'store holds no documents');

    const second = await indexFolder(engine);
    assert.equal(second.unchanged, PICK.length);
    assert.equal((second.added ?? 0) + (second.updated ?? 0), 0);
    assert.equal(second.chunks, first.chunks);

    // Same content, new mtime: hashed, found equal, only the record is touched.
    const f = path.join(folder, 'gesetze/tzbfg.md');
    fs.utimesSync(f, new Date(), new Date(Date.now() + 5000));
    const third = await indexFolder(engine);
    assert.equal(third.unchanged, PICK.length);
    assert.equal(third.updated, 0);
    const fourth = await indexFolder(engine);
    assert.equal(fourth.unchanged, PICK.length, 'the touched record has the new mtime');
  });

  it('other chunking settings re-chunk every unchanged file, equal to a clean build with those settings', async () => {
    await indexFolder(engine);
    await engine.close();
    const sizes = Object.fromEntries(
      Object.entries(engine.config.chunk.sizes).map(([k, v]) => [k, { size: Math.round(v.size / 2), overlap: Math.round(v.overlap / 2) }]),
    ) as typeof engine.config.chunk.sizes;
    engine = await openEngine({ folder, config: { chunk: { sizes } } });
    const rerun = await indexFolder(engine);
    assert.equal(rerun.unchanged, 0, 'no file kept passages of the old chunking');
    assert.equal(rerun.updated, PICK.length);
    const storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-clean-'));
    const clean = await openEngine({ folder, storeDir, config: { chunk: { sizes } } });
    try {
      await indexFolder(clean);
    } finally {
      await clean.close();
    }
    assert.deepEqual(await snapshot(engine.storeDir), await snapshot(storeDir));
    fs.rmSync(storeDir, { recursive: true, force: true });
  });

  it('after edits, deletes, renames and new files the index equals a clean build of the final state', async () => {
    await indexFolder(engine);
    const md = path.join(folder, 'cargo-book/faq.md');
    fs.writeFileSync(md, fs.readFileSync(md, 'utf8').replace(/Cargo/g, 'Kargo') + '\n\n## Added section\n\nA brand new paragraph about incremental indexing.\n');
    fs.rmSync(path.join(folder, 'gesetze/nachwg.docx'));
    fs.renameSync(path.join(folder, 'gesetze/burlg.md'), path.join(folder, 'gesetze/urlaub.md'));
    fs.renameSync(path.join(folder, 'cargo-book/reference/profiles.pdf'), path.join(folder, 'cargo-book/profiles-moved.pdf'));
    fs.copyFileSync(path.join(WORKSPACE, 'gesetze/kschg.md'), path.join(folder, 'gesetze/kschg.md'));
    const r = await indexFolder(engine);
    assert.deepEqual(r.errors, []);
    assert.equal(r.removed, 3);
    assert.equal(r.added, 3);
    assert.equal(r.updated, 1);
    const got = await snapshot(engine.storeDir);
    const want = await cleanBuild(folder);
    assert.deepEqual(got.duplicateIds, []);
    assert.equal(got.passages.length, want.passages.length);
    assert.deepEqual(got.passages, want.passages);
    assert.deepEqual(got.files, want.files);
    assert.ok(!got.passages.some((p) => p.startsWith('gesetze/burlg.md') || p.startsWith('gesetze/nachwg.docx')), 'nothing stale');
    // Search sees the edit and not the old text of the renamed file's old path.
    const hits = await engine.store.fullTextSearch('incremental indexing', { k: 3, lang: 'en' });
    assert.equal(hits[0]?.passage.path, 'cargo-book/faq.md');
  });

  it('a watcher hint (paths) updates only those files and equals a clean build', async () => {
    await indexFolder(engine);
    const md = path.join(folder, 'gesetze/tzbfg.md');
    fs.appendFileSync(md, '\n\n## Neuer Abschnitt\n\nDieser Absatz wurde nachträglich eingefügt und muss gefunden werden.\n');
    fs.rmSync(path.join(folder, 'cargo-book/index.md'));
    const r = await indexFolder(engine, { paths: [md, 'cargo-book/index.md'], maintenance: 'none' });
    assert.equal(r.updated, 1);
    assert.equal(r.removed, 1);
    assert.equal(r.unchanged, 0, 'files outside the hint were not looked at');
    assert.deepEqual((await snapshot(engine.storeDir)).passages, (await cleanBuild(folder)).passages);
    const hits = await engine.store.fullTextSearch('nachträglich eingefügt', { k: 3, lang: 'de' });
    assert.equal(hits[0]?.passage.path, 'gesetze/tzbfg.md');
  });

  it('a cancelled run stops between files, keeps the index consistent, and the next run completes it', async () => {
    const controller = new AbortController();
    let seen = 0;
    const r = await indexFolder(engine, {
      signal: controller.signal,
      onProgress: (p) => {
        if (p.phase === 'embed' && ++seen === 2) controller.abort();
      },
    });
    assert.equal(r.cancelled, true);
    assert.ok(r.files < PICK.length, `only part indexed (${r.files})`);
    const partial = await snapshot(engine.storeDir);
    assert.deepEqual(partial.duplicateIds, []);
    const done = await indexFolder(engine);
    assert.equal(done.files, PICK.length);
    assert.deepEqual((await snapshot(engine.storeDir)).passages, (await cleanBuild(folder)).passages);
  });

  it('a run cancelled while it walks the folder removes nothing from the index', async () => {
    await indexFolder(engine);
    const before = await snapshot(engine.storeDir);
    const controller = new AbortController();
    const r = await indexFolder(engine, {
      full: true,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.phase === 'scan') controller.abort();
      },
    });
    assert.equal(r.cancelled, true);
    assert.equal(r.removed, 0);
    assert.equal(r.files, PICK.length, 'every document is still indexed');
    assert.deepEqual((await snapshot(engine.storeDir)).passages, before.passages);
  });

  it('bad files get a per-file status with a reason and do not stop the run', async () => {
    fs.writeFileSync(path.join(folder, 'broken.pdf'), '%PDF-1.4\n%%EOF\n');
    fs.writeFileSync(path.join(folder, 'empty.md'), '\n\n');
    const r = await indexFolder(engine);
    assert.equal(r.files, PICK.length);
    const byPath = new Map(r.errors.map((e) => [e.path, e.reason]));
    assert.deepEqual([...byPath.keys()].sort(), ['broken.pdf', 'empty.md']);
    assert.match(byPath.get('empty.md')!, /no extractable text/);
    assert.ok(byPath.get('broken.pdf')!.length > 5);
    // Unchanged bad files are not parsed again but still reported.
    const again = await indexFolder(engine);
    assert.equal(again.unchanged, PICK.length + 2);
    assert.equal(again.errors.length, 2);
  });

  it('another embedder re-embeds everything (never mixing vectors) and is then remembered', async () => {
    await indexFolder(engine);
    await engine.close();
    const ollama = await startFakeOllama({ models: ['nomic-embed-text'] });
    try {
      engine = await openEngine({ folder, config: { embed: { provider: 'ollama', model: 'nomic-embed-text', ollamaHost: ollama.url } }, embedderOverride: true });
      assert.match(engine.warnings.join(' '), /re-embeds/);
      const r = await indexFolder(engine);
      assert.equal(r.reembedded, true);
      assert.equal(r.files, PICK.length);
      assert.equal(engine.store.meta()?.embedder.id, 'ollama');
      assert.ok(ollama.requests.some((q) => q.path === '/api/embed'));
      await engine.close();
      // Opened again without flags: uses the recorded Ollama embedder, nothing to redo.
      engine = await openEngine({ folder, config: { embed: { ollamaHost: ollama.url } } });
      assert.equal(engine.embedder.id, 'ollama');
      const again = await indexFolder(engine);
      assert.equal(again.reembedded, undefined);
      assert.equal(again.unchanged, PICK.length);
      const [hit] = await engine.store.vectorSearch((await engine.embedder.embed(['Arbeitszeit']))[0], { k: 1 });
      assert.ok(hit && hit.score > 0);
    } finally {
      await engine.close();
      await ollama.close();
    }
  });
});
