// One hit per place (search/nested.ts) and the adaptive vector weight (search/vectorWeight.ts): unit cases, and over the
// real workspace index (all of shared/eval/workspace, real loaders, builtin embedder, LanceDB) no top-10 hit of any dev
// question lies inside another hit of the same file.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { detectLanguage } from '../../src/rag/text/language';
import { openEngine, type Engine } from '../../src/rag/engine';
import { loadWorkspaceQueries } from '../../src/rag/eval/datasets';
import { evaluateWorkspace } from '../../src/rag/eval/runner';
import { indexFolder } from '../../src/rag/index/indexer';
import { createRetriever } from '../../src/rag/search';
import { collapseNested, liesInside } from '../../src/rag/search/nested';
import { adaptiveVectorWeight, keywordCoverage } from '../../src/rag/search/vectorWeight';
import type { Passage, SearchHit } from '../../src/rag/types';

const SHARED = process.env.DOCS_RAG_SHARED ?? path.resolve(__dirname, '../../../shared');
const WS = path.join(SHARED, 'eval/workspace');

function p(id: string, level: 0 | 1 | 2, loc: Passage['loc'], extra: Partial<Passage> = {}): Passage {
  return {
    id, path: 'a.md', fileHash: 'h', format: 'md', level, chunkPath: id, parentId: null, order: 0, headingPath: [], title: 'T',
    text: `text of ${id}`, overlap: '', lang: 'en', loc, ...extra,
  };
}
const hit = (passage: Passage, score: number): SearchHit => ({ passage, score });

describe('search: one hit per place', () => {
  it('keeps the more precise of nested hits at the better rank, and keeps unrelated hits', () => {
    const section = p('S', 1, { startLine: 10, endLine: 20 });
    const own = p('P', 2, { startLine: 12, endLine: 12 }, { parentId: 'S' });
    const sibling = p('Q', 2, { startLine: 30, endLine: 33 });
    const other = { ...p('O', 2, { startLine: 12, endLine: 12 }), path: 'b.md' };
    const r = collapseNested([hit(section, 0.9), hit(other, 0.8), hit(own, 0.5), hit(sibling, 0.4)]);
    assert.deepEqual(r.hits.map((h) => h.passage.id), ['P', 'O', 'Q']);
    assert.equal(r.hits[0].score, 0.9, 'the passage takes the section’s place and score');
    assert.equal(r.merged, 1);
    // The reverse order: the passage first, its section later is dropped.
    assert.deepEqual(collapseNested([hit(own, 0.9), hit(sibling, 0.8), hit(section, 0.5)]).hits.map((h) => h.passage.id), ['P', 'Q']);
  });

  it('nests by parent, by document (L0), by line range and by DOCX offsets, never by a shared PDF page alone', () => {
    const doc = p('D', 0, { startLine: 1, endLine: 100 });
    assert.ok(liesInside(p('X', 2, {}), doc));
    assert.ok(liesInside(p('X', 2, { startOffset: 5, endOffset: 9 }), p('Y', 1, { startOffset: 0, endOffset: 50 })));
    assert.ok(!liesInside(p('X', 2, { page: 3 }), p('Y', 2, { page: 3 })), 'two passages on one page are two places');
    assert.ok(liesInside(p('X', 2, { page: 3 }, { parentId: 'Y' }), p('Y', 1, { page: 3 })));
    assert.ok(!liesInside(p('X', 2, { startLine: 5, endLine: 30 }), p('Y', 1, { startLine: 10, endLine: 20 })));
  });

  it('adaptive vector weight: low when the keyword hits hold every query word, high when they miss some, fixed when the lists disagree', () => {
    const kw = [hit(p('K1', 2, {}, { text: 'The release profile sets opt-level 3 by default' }), 1)];
    const vec = [hit(p('K1', 2, {}), 1)];
    assert.equal(keywordCoverage('release profile opt-level', kw), 1);
    assert.equal(adaptiveVectorWeight('release profile opt-level', kw, vec, [0.1, 0.7], 0.5).weight, 0.1);
    const half = adaptiveVectorWeight('release Kündigungsschutzklage', kw, vec, [0.1, 0.7], 0.5);
    assert.equal(half.coverage, 0.5);
    assert.ok(Math.abs(half.weight - 0.4) < 1e-9);
    const disjoint = adaptiveVectorWeight('release profile', kw, [hit(p('V9', 2, {}), 1)], [0.1, 0.7], 0.5);
    assert.equal(disjoint.weight, 0.5);
  });
});

describe('search: one hit per place over the workspace index', function () {
  this.timeout(600_000);
  let store: string;
  let engine: Engine;

  before(async function () {
    if (!fs.existsSync(path.join(WS, 'queries-dev.jsonl'))) this.skip();
    store = fs.mkdtempSync(path.join(os.tmpdir(), 'search-places-'));
    engine = await openEngine({ folder: WS, storeDir: store, config: { ingest: { exclude: ['**/.docs-rag/**', '*.jsonl', 'FORMAT.md', 'SOURCES.md', 'README.md'] } } });
    const res = await indexFolder(engine);
    assert.equal(res.errors.length, 0, JSON.stringify(res.errors));
  });
  after(async () => {
    await engine?.close();
    if (store) fs.rmSync(store, { recursive: true, force: true });
  });

  it('no top-10 hit of any dev question lies inside another hit of the same file (and without the rule some do)', async () => {
    const queries = loadWorkspaceQueries(path.join(WS, 'queries-dev.jsonl'));
    const nestedPairs = (hits: SearchHit[]) => {
      const out: string[] = [];
      for (const a of hits) for (const b of hits) if (liesInside(a.passage, b.passage)) out.push(`${a.passage.path} ${JSON.stringify(a.passage.loc)} in ${JSON.stringify(b.passage.loc)}`);
      return out;
    };
    let before = 0;
    for (const q of queries) {
      const r = await createRetriever(engine, { detect: detectLanguage }).retrieve(q.query, { k: 10, context: false });
      assert.deepEqual(nestedPairs(r.hits), [], `${q.id}: ${q.query}`);
      assert.equal(r.hits.length, 10, `${q.id}: the freed places are filled`);
      const both = await createRetriever(engine, { config: 'default+nested', detect: detectLanguage }).retrieve(q.query, { k: 10, context: false });
      before += both.hits.filter((a) => both.hits.some((b) => liesInside(a.passage, b.passage))).length;
    }
    assert.ok(before > 0, 'default+nested still returns nested hits (eval can see both)');
  });

  it('one hit per place loses no recall: R@20 over the dev questions is not below that of both hits kept', async () => {
    const queries = loadWorkspaceQueries(path.join(WS, 'queries-dev.jsonl'));
    const recall = async (config: string) =>
      (await evaluateWorkspace(createRetriever(engine, { config, detect: detectLanguage }), queries, { config, k: 20 })).metrics['r@20'];
    const [one, both] = [await recall('default'), await recall('default+nested')];
    assert.ok(one >= both, `R@20 ${one} (one hit per place) < ${both} (both kept)`);
  });
});
