// The reference graph end to end: the real indexer writes a fixture's links (real loaders, real LanceDB in a temp dir),
// incremental runs keep them equal to a clean build when a target file changes, disappears or appears, and the retriever
// follows them for a multi-part question (trace and `via`), not with links off.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openEngine, type Engine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';
import { createRetriever } from '../../src/rag/search';
import { hitToJson } from '../../src/rag/search/hitJson';
import { cleanBuild, copyTree, snapshot } from '../crash/snapshot';

const FIXTURE = path.join(__dirname, '../fixtures/links');


describe('indexer + store + retriever: the reference graph', function () {
  this.timeout(300_000);
  let folder: string;
  let engine: Engine;

  beforeEach(async () => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-links-'));
    copyTree(FIXTURE, folder);
    engine = await openEngine({ folder });
    await indexFolder(engine);
  });
  afterEach(async () => {
    await engine.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  /** Where the passages linked from the passage holding `text` sit ("path:line kind"). */
  async function linkedFrom(text: RegExp): Promise<string[]> {
    const all = await engine.store.getFilePassages('gesetze/bsparbg.md', [2]);
    const from = all.find((p) => text.test(p.text));
    assert.ok(from, `a passage matching ${text}`);
    const links = (await engine.store.linksOf!([from.id])).filter((l) => l.from === from.id);
    const to = await engine.store.getPassages(links.map((l) => l.to));
    return links.map((l) => `${to.find((p) => p.id === l.to)?.path}:${to.find((p) => p.id === l.to)?.loc.startLine} ${l.kind}`).sort();
  }

  it('indexes edges of every kind and counts them', async () => {
    const counts = await engine.store.linkCounts!();
    assert.ok(counts);
    for (const kind of ['link', 'reference', 'name', 'definition'] as const) assert.ok(counts.byKind[kind] > 0, `${kind}: ${JSON.stringify(counts)}`);
    assert.equal(counts.links, Object.values(counts.byKind).reduce((a, b) => a + b, 0));
    assert.ok(counts.unresolved >= 2, 'the references to § 99 and to the Sozialgesetzbuch stay unresolved');
    assert.ok((await linkedFrom(/§ 23 KSchG/)).includes('gesetze/kschg.md:13 reference'));
  });

  it('an edited, deleted and re-added target file: cross-file edges follow, and every state equals a clean build', async () => {
    const kschg = path.join(folder, 'gesetze/kschg.md');
    const original = fs.readFileSync(kschg, 'utf8');
    fs.writeFileSync(kschg, original.replace('mehr als zehn Arbeitnehmern', 'mehr als fünf Arbeitnehmern'));
    await indexFolder(engine);
    assert.ok((await linkedFrom(/§ 23 KSchG/)).includes('gesetze/kschg.md:13 reference'));
    assert.deepEqual(await snapshot(engine.storeDir), await cleanBuild(folder));

    fs.rmSync(kschg);
    await indexFolder(engine);
    assert.ok(!(await linkedFrom(/§ 23 KSchG/)).some((l) => l.startsWith('gesetze/kschg.md')));
    const gone = await snapshot(engine.storeDir);
    assert.ok(!gone.links.some((l) => l.includes('gesetze/kschg.md\t')), 'no row of the deleted file is left');
    assert.deepEqual(gone, await cleanBuild(folder));

    fs.writeFileSync(kschg, original);
    await indexFolder(engine, { paths: ['gesetze/kschg.md'] });
    assert.ok((await linkedFrom(/§ 23 KSchG/)).includes('gesetze/kschg.md:13 reference'));
    assert.deepEqual(await snapshot(engine.storeDir), await cleanBuild(folder));
  });

  it('the retriever follows an edge into another file for a multi-part question, and says so in the trace', async () => {
    const question = 'Wie viele Werktage beträgt der Urlaub mindestens, und welche Wartezeit gilt für die Kündigung?';
    const on = await createRetriever(engine).retrieve(question, { k: 10 });
    const linked = on.hits.filter((h) => h.via);
    assert.ok(linked.length > 0, 'a hit was brought by an edge');
    for (const h of linked) {
      const seed = on.hits.findIndex((x) => x.passage.id === h.via!.seed);
      assert.ok(seed >= 0 && seed < on.hits.indexOf(h), 'a neighbour ranks below the hit it was reached from');
      assert.notEqual(on.hits[seed].passage.path, h.passage.path, 'the edge leads into another file');
    }
    const span = on.trace.find((s) => s.name === 'links');
    assert.ok(span?.notes?.some((n) => n.startsWith('multi-part:')), JSON.stringify(span));
    // Traces never hold document text: no anchor ("§ 23 KSchG") and no passage text in the notes.
    assert.ok(!JSON.stringify(on.trace).includes('KSchG'));
    // The answer context keeps the linked passage right after its seed.
    const ctx = on.context!.passages.map((c) => c.passage.id);
    const first = linked[0];
    const at = ctx.indexOf(first.passage.id);
    assert.ok(at > 0 && ctx.slice(0, at).includes(first.via!.seed));

    // The JSON of a hit (CLI --json, MCP) says which edge brought it.
    assert.deepEqual(hitToJson(first).via, first.via);

    const off = await createRetriever(engine, { config: 'default-no-links' }).retrieve(question, { k: 10 });
    assert.ok(!off.hits.some((h) => h.via));
    assert.ok(!off.trace.some((s) => s.name === 'links'));
  });
});
