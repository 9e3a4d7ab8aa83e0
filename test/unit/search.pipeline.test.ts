// The retrieval orchestrator over a real index of real workspace files (loaders, chunker, builtin embedder, LanceDB):
// flows, level filters, per-request alpha, context augmentation (parent, neighbours, document expansion) and the budget.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { detectLanguage } from '../../src/rag/text/language';
import { openEngine, type Engine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';
import { createRetriever } from '../../src/rag/search';
import { WORKSPACE, needsShared } from '../helpers/shared';

const WS = WORKSPACE;

describe('search: pipeline over a real index', function () {
  needsShared('eval/workspace');
  this.timeout(180_000);
  let folder: string;
  let engine: Engine;

  before(async () => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'search-pipe-'));
    for (const f of ['gesetze/kschg.md', 'gesetze/burlg.md', 'gesetze/arbzg.pdf', 'cargo-book/reference/publishing.md', 'cargo-book/reference/profiles.pdf']) {
      fs.mkdirSync(path.dirname(path.join(folder, f)), { recursive: true });
      fs.copyFileSync(path.join(WS, f), path.join(folder, f));
    }
    engine = await openEngine({ folder });
    const res = await indexFolder(engine);
    assert.equal(res.errors.length, 0, JSON.stringify(res.errors));
  });
  after(async () => {
    await engine?.close();
    if (folder) fs.rmSync(folder, { recursive: true, force: true });
  });

  const retriever = (config = 'default', overrides = {}) => createRetriever(engine, { config, overrides, detect: detectLanguage });

  it('chunk flow: levels from the analysis (L1-L2), overridable per request', async () => {
    const r = await retriever().retrieve('Frist Kündigungsschutzklage', { k: 20, context: false });
    assert.deepEqual(r.analysis.levels, [1, 2]);
    assert.ok(r.hits.length > 0 && r.hits.every((h) => h.passage.level >= 1));
    const l2 = await retriever().retrieve('Frist Kündigungsschutzklage', { k: 20, levels: [2], context: false });
    assert.ok(l2.hits.every((h) => h.passage.level === 2));
    const l0 = await retriever().retrieve('Kündigungsschutz', { k: 5, levels: [0], context: false });
    assert.ok(l0.hits.length > 0 && l0.hits.every((h) => h.passage.level === 0), 'document summaries only');
    const agg = await retriever().retrieve('Liste alle Regelungen zum Urlaub auf', { k: 30, context: false });
    assert.equal(agg.analysis.type, 'aggregative');
    assert.deepEqual(agg.analysis.levels, [0, 1, 2]);
  });

  it('summary flow: section summaries of the matching document in document order, L0 when there are too many sections', async () => {
    const q = 'Gib mir einen Überblick über das Kündigungsschutzgesetz';
    const r = await retriever().retrieve(q, { k: 10, context: false });
    assert.equal(r.analysis.flow, 'summary');
    assert.ok(r.hits.length > 0);
    assert.ok(r.hits.every((h) => h.passage.level === 1), 'L1 summaries');
    assert.equal(r.hits[0].passage.path, 'gesetze/kschg.md');
    const kschg = r.hits.filter((h) => h.passage.path === 'gesetze/kschg.md').map((h) => h.passage.order);
    assert.deepEqual(kschg, [...kschg].sort((a, b) => a - b), 'document order');
    const small = await retriever('default', { summaryMaxSections: 3 }).retrieve(q, { k: 10, context: false });
    assert.ok(small.hits.length > 0 && small.hits.every((h) => h.passage.level === 0), 'fell back to L0');
    assert.ok(small.trace.some((s) => s.notes?.some((n) => /fell back to L0/.test(n))));
    const forced = await retriever().retrieve('Frist Kündigungsschutzklage', { k: 5, flow: 'summary', context: false });
    assert.equal(forced.analysis.flow, 'summary');
  });

  it('alpha per request switches to weighted fusion: 0 = keyword ranking, 1 = vector ranking', async () => {
    const q = 'Ruhezeit nach Arbeitsende';
    // ties (a section and its passage often score the same) are ordered by id, as fusion does
    const ids = (r: { hits: { passage: { id: string }; score: number }[] }) =>
      [...r.hits].sort((a, b) => b.score - a.score || (a.passage.id < b.passage.id ? -1 : 1)).map((h) => h.passage.id);
    const kw = await retriever('bm25').retrieve(q, { k: 10, context: false });
    const vec = await retriever('vector').retrieve(q, { k: 10, context: false });
    assert.notDeepEqual(ids(kw), ids(vec), 'precondition: the lists differ');
    assert.deepEqual(ids(await retriever().retrieve(q, { k: 10, alpha: 0, context: false })).slice(0, 5), ids(kw).slice(0, 5));
    assert.deepEqual(ids(await retriever().retrieve(q, { k: 10, alpha: 1, context: false })).slice(0, 5), ids(vec).slice(0, 5));
  });

  it('context: parent sections, neighbours and document expansion (in document order, deduplicated) within the budget', async () => {
    const r = await retriever().retrieve('Wie lange dauert der Mindesturlaub?', { k: 5, levels: [2] }); // passages only, so parents are not hits themselves
    const ctx = r.context!;
    assert.ok(ctx);
    const roles = new Set(ctx.passages.map((c) => c.role));
    for (const role of ['hit', 'parent', 'neighbour', 'document']) assert.ok(roles.has(role as never), `role ${role}`);
    const ids = ctx.passages.map((c) => c.passage.id);
    assert.equal(new Set(ids).size, ids.length, 'no duplicates');
    assert.ok(ctx.usedTokens <= ctx.budgetTokens);
    const aug = r.trace.find((s) => s.name === 'augmentation')!;
    assert.ok((aug.counts?.expandedDocuments ?? 0) >= 1 && (aug.counts?.expandedDocuments ?? 0) <= 3);
    // the expanded passages of one document keep document order among themselves
    const burlg = ctx.passages.filter((c) => c.role === 'document' && c.passage.path === r.hits[0].passage.path).map((c) => c.passage);
    const docOrder = (await engine.store.getFilePassages(r.hits[0].passage.path, [2])).map((p) => p.id);
    const positions = burlg.map((p) => docOrder.indexOf(p.id));
    assert.deepEqual(positions, [...positions].sort((a, b) => a - b));
    // a smaller budget (e.g. the retry after a context overflow) holds fewer passages
    const small = await retriever().retrieve('Wie lange dauert der Mindesturlaub?', { k: 5, budgetTokens: 600 });
    assert.ok(small.context!.passages.length < ctx.passages.length);
    assert.ok(small.context!.usedTokens <= 600 || small.context!.passages.length === 1);
    // switched off: no expanded documents
    const off = await retriever('default', { enableDocumentExpansion: false }).retrieve('Wie lange dauert der Mindesturlaub?', { k: 5 });
    assert.ok(!off.context!.passages.some((c) => c.role === 'document'));
  });

  it('an empty query returns no hits and no error', async () => {
    const r = await retriever().retrieve('   ', { k: 5 });
    assert.deepEqual(r.hits, []);
  });
});
