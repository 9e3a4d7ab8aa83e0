// The SQLite FTS5 baseline of the benchmarks: built from a real store's finest passages, it ranks the document holding the
// question's words first, and a question written in FTS5 syntax is searched as plain words.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Fts5Index, fts5FromStore, fts5Query } from '../../bench/fts5';
import { openEngine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';

describe('bench: SQLite FTS5 baseline', function () {
  this.timeout(120_000);
  let root = '';
  let index: Fts5Index | undefined;

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-fts5-'));
    const folder = path.join(root, 'docs');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'garden.md'), '# Garden\n\nTomatoes need sun and water every day.\n');
    fs.writeFileSync(path.join(folder, 'boats.md'), '# Boats\n\nA sailing boat needs wind; the harbour charges a fee.\n');
    fs.writeFileSync(path.join(folder, 'near.md'), '# Operators\n\nThe words foo and bar appear together here, NEAR the end.\n');
    const engine = await openEngine({ folder, storeDir: path.join(root, 'store') });
    try {
      await indexFolder(engine);
    } finally {
      await engine.close();
    }
    index = (await fts5FromStore(path.join(root, 'store'))).index;
  });

  after(() => {
    index?.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('ranks the passage holding the question words first, from the store\'s L2 passages only', async () => {
    const res = await index!.retriever().retrieve('how much sun do tomatoes need?', { k: 10 });
    assert.equal(res.hits[0]?.passage.path, 'garden.md');
    assert.equal(index!.count, 3, 'one L2 passage per file, no section or document units');
    assert.ok(res.hits[0].passage.loc.startLine !== undefined, 'the location survives, so evidence can be matched');
  });

  it('quotes every word, so FTS5 syntax in a question is searched as words', () => {
    assert.equal(fts5Query('"foo" OR NEAR(bar'), '"foo" OR "or" OR "near" OR "bar"');
    const hits = index!.search('"foo" OR NEAR(bar', 10);
    assert.equal(hits[0]?.path, 'near.md');
    assert.deepEqual(index!.search('"" ( ) *', 10), []);
  });
});
