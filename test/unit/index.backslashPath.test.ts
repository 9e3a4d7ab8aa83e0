// On POSIX a backslash is a character of a file name: `back\slash.md` is its own file, next to `back/slash.md`. Its
// passages must carry its own path (cited as itself, not as the other file) and go when it is deleted: the path is
// normalised the same way when passages are written and when they are removed. Real files, indexer and LanceDB.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openEngine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';
import { createRetriever } from '../../src/rag/search';
import { detectLanguage } from '../../src/rag/text/language';

describe('index: a backslash in a file name (POSIX)', function () {
  this.timeout(180_000);
  let base: string;

  before(function () {
    if (path.sep === '\\') this.skip(); // a separator there, never part of a name
  });
  beforeEach(() => (base = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-backslash-'))));
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('is cited as itself, and its passages go when the file is deleted', async () => {
    const folder = path.join(base, 'folder');
    fs.mkdirSync(path.join(folder, 'back'), { recursive: true });
    fs.writeFileSync(path.join(folder, 'back\\slash.md'), '# Heron\n\nThe grey heron nests in the alder trees by the mill pond.\n');
    fs.writeFileSync(path.join(folder, 'back', 'slash.md'), '# Otter\n\nThe otter hunts at dusk below the weir.\n');
    const storeDir = path.join(base, 'store');
    const search = async () => {
      const engine = await openEngine({ folder, storeDir });
      try {
        await indexFolder(engine);
        const { hits } = await createRetriever(engine, { detect: detectLanguage }).retrieve('grey heron alder trees', { k: 5, context: false });
        const paths = new Set((await engine.store.listFiles()).map((r) => r.path));
        return { hits: hits.filter((h) => /heron/.test(h.passage.text)).map((h) => h.passage.path), passages: await engine.store.countPassages(), paths };
      } finally {
        await engine.close();
      }
    };
    const first = await search();
    assert.deepEqual([...first.paths].sort(), ['back/slash.md', 'back\\slash.md']);
    assert.ok(first.hits.length > 0);
    assert.deepEqual([...new Set(first.hits)], ['back\\slash.md']);
    fs.rmSync(path.join(folder, 'back\\slash.md'));
    const after = await search();
    assert.deepEqual([...after.paths], ['back/slash.md']);
    assert.deepEqual(after.hits, [], 'no passage of the deleted file is left');
    assert.ok(after.passages < first.passages);
  });
});
