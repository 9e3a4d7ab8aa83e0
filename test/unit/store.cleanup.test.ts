// The store stays near the size of a clean build however many incremental runs it sees: optimize() removes old versions
// and the files only they use, and a reader opened before a cleanup keeps answering. Real loaders, real LanceDB.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openEngine, type Engine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';
import { openStore, type LanceStore } from '../../src/rag/store/lanceStore';
import { WORKSPACE } from '../crash/snapshot';

const PICK = ['gesetze/tzbfg.md', 'gesetze/burlg.md', 'gesetze/kschg.md', 'cargo-book/faq.md'];
const EDITED = 'gesetze/tzbfg.md';

function diskBytes(dir: string): number {
  let bytes = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    bytes += e.isDirectory() ? diskBytes(p) : fs.statSync(p).size;
  }
  return bytes;
}

/** A reader answers: keyword search, vector search and a file's passages all return rows. */
async function answers(reader: LanceStore, engine: Engine, word: string): Promise<void> {
  const fts = await reader.fullTextSearch(word, { k: 5 });
  assert.ok(fts.length > 0, `no keyword hit for ${word}`);
  const [vector] = await engine.embedder.embed([word]);
  assert.ok((await reader.vectorSearch(vector, { k: 5 })).length > 0, 'no vector hit');
  assert.ok((await reader.getFilePassages(EDITED)).length > 0, 'no passages of the edited file');
}

describe('store: old versions are cleaned up (bounded size) without breaking open readers', function () {
  this.timeout(300_000);
  let base: string;
  let folder: string;

  beforeEach(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-cleanup-'));
    folder = path.join(base, 'folder');
    for (const rel of PICK) {
      fs.mkdirSync(path.dirname(path.join(folder, rel)), { recursive: true });
      fs.copyFileSync(path.join(WORKSPACE, rel), path.join(folder, rel));
    }
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('the temp files a stopped write leaves are removed by the next optimize', async () => {
    const storeDir = path.join(base, 'store');
    const engine = await openEngine({ folder, storeDir });
    try {
      await indexFolder(engine);
      const store = engine.store as LanceStore;
      // What a killed compaction leaves: LanceDB's temp file beside the table's data files (and one in an index folder).
      const data = path.join(storeDir, 'passages.lance', 'data');
      const index = path.join(storeDir, 'passages.lance', '_indices', fs.readdirSync(path.join(storeDir, 'passages.lance', '_indices'))[0]);
      const left = [path.join(data, '.tmpKilled1'), path.join(index, '.tmpKilled2')];
      for (const f of left) fs.writeFileSync(f, Buffer.alloc(1 << 20));
      await store.optimize();
      assert.ok(left.every((f) => !fs.existsSync(f)), 'removed');
      assert.ok(fs.readdirSync(data).some((n) => n.endsWith('.lance')), 'the data files stay');
      await answers(store, engine, 'Befristung');
    } finally {
      await engine.close();
    }
  });

  it('after 30 one-line edits with incremental runs the store is at most 1.5x a clean build, and readers keep answering', async () => {
    const storeDir = path.join(base, 'store');
    const engine = await openEngine({ folder, storeDir });
    await indexFolder(engine);
    // A reader of its own (as the extension next to the CLI), opened before the 30 cleanups; it resolves the latest version
    // on every read.
    const reader = await openStore(storeDir);
    let pinned: LanceStore | null = null;
    try {
      await answers(reader, engine, 'Befristung');
      for (let i = 0; i < 30; i++) {
        fs.appendFileSync(path.join(folder, EDITED), `\nÄnderung ${i}: Stichwort quokka${i}.\n`);
        await indexFolder(engine, { paths: [EDITED] });
        if (i === 29) {
          // A reader that never refreshes, opened right before the cleanup: it stays on the version current then.
          pinned = await openStore(storeDir, { readConsistencyInterval: 86_400 });
          await answers(pinned, engine, 'quokka29');
        }
        // What the background maintenance runs after a change (index/lifecycle.ts); here after every edit, so every edit is
        // followed by a cleanup.
        await engine.optimizeNow();
        await answers(reader, engine, `quokka${i}`);
      }
      await answers(pinned!, engine, 'quokka29');
      await answers(reader, engine, 'Befristung');
      // Each cleanup keeps the version current when it started, for readers open then (the pinned one); the next pass
      // removes it. In a store this small a compaction rewrites every fragment, so that one version is a second copy.
      await engine.optimizeNow();
      await answers(reader, engine, 'quokka29');
    } finally {
      await pinned?.close();
      await reader.close();
      await engine.close();
    }
    const grown = diskBytes(storeDir);

    const cleanDir = path.join(base, 'clean');
    const clean = await openEngine({ folder, storeDir: cleanDir });
    try {
      await indexFolder(clean);
    } finally {
      await clean.close();
    }
    const built = diskBytes(cleanDir);
    assert.ok(grown <= 1.5 * built, `store after 30 edits: ${grown} bytes, clean build: ${built} bytes (${(grown / built).toFixed(2)}x)`);
  });
});
