// The links table of the LanceDB store (real LanceDB in a temp dir): written and removed with a file's passages, cross-file
// edges resolved when read (a target file that changes, appears or disappears), old stores without the table.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { openStore, type LanceStore } from '../../src/rag/store';
import { LinksTable } from '../../src/rag/store/links';
import type { FileRecord } from '../../src/rag/store/types';
import type { IndexedPassage, LinkRow } from '../../src/rag/types';
import { lawsOf, resolveEdges, targetMap } from '../../src/rag/links/resolve';

const DIM = 4;
const info = { id: 'test', model: 'm1', dimension: DIM, vectorLayout: 'float' as const };
const vec = (i: number) => Float32Array.from({ length: DIM }, (_, j) => (j === i % DIM ? 1 : 0));

function passage(file: string, i: number, text: string, hash = `h-${file}`): IndexedPassage {
  return {
    id: `${file}#${i}:${hash}`,
    path: file,
    fileHash: hash,
    format: 'md',
    level: 2,
    chunkPath: `doc/section-0/chunk-${i}`,
    parentId: null,
    order: i,
    headingPath: ['T'],
    title: 'T',
    text,
    overlap: '',
    lang: 'en',
    loc: { startLine: i * 10 + 1, endLine: i * 10 + 5 },
    indexText: text,
  };
}
const record = (file: string, n: number, hash = `h-${file}`): FileRecord => ({
  path: file, size: 1, mtimeMs: 1, hash, status: 'indexed', reason: '', passages: n, pipelineKey: 'test:m1', indexedAt: 1,
});
const edge = (from: IndexedPassage, key: string, to = '', kind: LinkRow['kind'] = 'name'): LinkRow => ({ role: 'edge', from: from.id, path: from.path, kind, key, to, anchor: key });
const target = (p: IndexedPassage, key: string): LinkRow => ({ role: 'target', from: p.id, path: p.path, kind: 'name', key, to: '', anchor: '' });

for (const mode of ['in memory', 'queried'] as const) describe(`LanceStore links table (graph ${mode})`, () => {
  const cacheMaxRows = LinksTable.cacheMaxRows;
  before(() => (LinksTable.cacheMaxRows = mode === 'queried' ? 0 : cacheMaxRows));
  after(() => (LinksTable.cacheMaxRows = cacheMaxRows));
  let dir: string;
  let store: LanceStore;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-links-'));
    store = await openStore(dir);
    await store.useEmbedder(info);
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** a.md: a0 mentions name:x (cross-file) and links to a1 (same file). */
  async function writeA() {
    const a = [passage('a.md', 0, 'uses x'), passage('a.md', 1, 'second')];
    await store.replaceFiles([{ record: record('a.md', 2), passages: a, vectors: [vec(0), vec(1)], links: [edge(a[0], 'name:x'), edge(a[0], 'anchor:a.md#second', a[1].id, 'link')] }]);
    return a;
  }
  async function writeB(hash: string, provides = true) {
    const b = [passage('b.md', 0, `defines x ${hash}`, hash)];
    await store.replaceFiles([{ record: record('b.md', 1, hash), passages: b, vectors: [vec(2)], links: provides ? [target(b[0], 'name:x')] : [] }]);
    return b;
  }
  const pairs = async (ids: string[]) => (await store.linksOf(ids)).map((l) => `${l.from} -> ${l.to} (${l.kind})`).sort();

  it('resolves a cross-file edge when its target file appears, follows it when it changes, drops it when it goes', async () => {
    const a = await writeA();
    assert.deepEqual(await pairs([a[0].id]), [`${a[0].id} -> ${a[1].id} (link)`]);
    const b1 = await writeB('v1');
    assert.deepEqual(await pairs([a[0].id]), [`${a[0].id} -> ${a[1].id} (link)`, `${a[0].id} -> ${b1[0].id} (name)`]);
    // Incoming: the target sees who links to it.
    assert.deepEqual(await pairs([b1[0].id]), [`${a[0].id} -> ${b1[0].id} (name)`]);
    const b2 = await writeB('v2');
    assert.notEqual(b2[0].id, b1[0].id);
    assert.deepEqual(await pairs([a[0].id]), [`${a[0].id} -> ${a[1].id} (link)`, `${a[0].id} -> ${b2[0].id} (name)`]);
    await writeB('v3', false);
    assert.deepEqual(await pairs([a[0].id]), [`${a[0].id} -> ${a[1].id} (link)`]);
    await store.removeFiles(['b.md']);
    const counts = await store.linkCounts();
    assert.equal(counts?.links, 1);
    assert.equal(counts?.byKind.link, 1);
    assert.equal(counts?.unresolved, 1);
  });

  it('removes a file\'s rows with its passages (removed, replaced without links, failed)', async () => {
    const a = await writeA();
    await writeB('v1');
    assert.equal((await store.linkCounts())?.links, 2);
    await store.recordFileStatuses([{ ...record('b.md', 0, 'v9'), status: 'error', reason: 'corrupt' }]);
    assert.equal((await store.linkCounts())?.links, 1);
    await store.replaceFiles([{ record: record('a.md', 1, 'h2'), passages: [passage('a.md', 0, 'now plain', 'h2')], vectors: [vec(0)] }]);
    assert.deepEqual(await store.linksOf([a[0].id]), []);
    assert.equal((await store.linkCounts())?.links, 0);
  });

  it('the repair after a killed run drops links whose file record does not match them', async () => {
    await writeA();
    await writeB('v1');
    // As if a run died after writing a.md's passages and links but before its record: the record still has the old hash.
    await store.recordFileStatuses([record('a.md', 2, 'old-hash')]);
    assert.ok((await store.repair()) > 0);
    const counts = await store.linkCounts();
    assert.equal(counts?.links, 0);
    assert.equal(counts?.unresolved, 0);
  });

  it('opening never creates the table; a store without it opens, searches and reports no links', async () => {
    const p = passage('c.md', 0, 'cargo builds packages');
    await store.replaceFiles([{ record: record('c.md', 1), passages: [p], vectors: [vec(0)] }]);
    await store.ensureIndexes();
    await store.close();
    store = await openStore(dir);
    const db = await lancedb.connect(dir);
    assert.ok(!(await db.tableNames()).includes('links'));
    assert.equal(await store.linkCounts(), null);
    assert.deepEqual(await store.linksOf([p.id]), []);
    assert.equal((await store.fullTextSearch('cargo', { k: 5 }))[0]?.passage.id, p.id);
    assert.ok(!(await db.tableNames()).includes('links'));
    db.close();
  });
});

describe('LanceStore links table: counts of a graph larger than one batch', () => {
  it('stream the edges in batches and agree with resolving every row at once (duplicates across batches, aliases, unresolved)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-linkcounts-'));
    const store = await openStore(dir);
    try {
      await store.useEmbedder(info);
      let seed = 7;
      const rand = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) % n;
      const files = Array.from({ length: 10 }, (_, f) => Array.from({ length: 10 }, (_, i) => passage(`f${f}.md`, i, `passage ${f} ${i}`)));
      const updates = files.map((ps, f) => {
        const links: LinkRow[] = [];
        for (const p of ps) {
          // Every passage is the target of a name and of an alias: edges through either reach the same passage.
          links.push(target(p, `name:${p.id}`), target(p, `alias:${p.id}`));
          for (let e = 0; e < 400; e++) {
            const to = files[rand(10)][rand(10)];
            const kind = (['name', 'reference', 'definition'] as const)[rand(3)];
            const missing = rand(7) === 0;
            const key = missing ? `name:missing-${rand(50)}` : `${rand(2) ? 'name' : 'alias'}:${to.id}`;
            links.push({ ...edge(p, key, '', kind), anchor: missing ? `m${rand(3)}` : `a${rand(5)}` });
          }
        }
        // Distinct rows only (the table keeps one row per role, from, kind, key and to).
        const unique = [...new Map(links.map((l) => [`${l.role}|${l.from}|${l.kind}|${l.key}|${l.to}`, l])).values()];
        return { record: record(`f${f}.md`, ps.length), passages: ps, vectors: ps.map((_, i) => vec(i)), links: unique };
      });
      await store.replaceFiles(updates);
      const all = await store.scanLinks();
      assert.ok(all.filter((r) => r.role === 'edge').length > 20_000, `more edges than one batch: ${all.filter((r) => r.role === 'edge').length}`);
      const resolved = resolveEdges(all, targetMap(all), lawsOf(all.filter((r) => r.role === 'target' && r.key.startsWith('law:'))));
      const withTarget = new Set(resolved.map((e) => `${e.from}\u0000${e.kind}\u0000${e.anchor}`));
      const expected = {
        links: resolved.length,
        byKind: Object.fromEntries((['link', 'reference', 'name', 'definition'] as const).map((k) => [k, resolved.filter((e) => e.kind === k).length])),
        unresolved: all.filter((r) => r.role === 'edge' && !withTarget.has(`${r.from}\u0000${r.kind}\u0000${r.anchor}`)).length,
      };
      assert.ok(expected.unresolved > 0 && expected.links > 0);
      assert.deepEqual(await store.linkCounts(), expected);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
