// FileRecord.pipelineKey (formerly FileRecord.embedder) is stored in the files table's `embedder` column, as every
// index written before the rename has it: such an index opens unchanged and its files are recognised as up to date.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { openEngine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';
import { FILES_TABLE } from '../../src/rag/store/schema';

/** The files table's columns in indexes written before the rename (commit 50c67f2 and earlier). */
const COLUMNS_BEFORE = ['path', 'size', 'mtimeMs', 'hash', 'status', 'reason', 'passages', 'embedder', 'indexedAt'];

describe('store: the pipeline key keeps its stored column', () => {
  let folder: string;
  let storeDir: string;
  beforeEach(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-key-'));
    storeDir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-key-store-'));
    fs.writeFileSync(path.join(folder, 'a.md'), '# Urlaub\n\nDer Urlaubsanspruch beträgt 30 Arbeitstage im Kalenderjahr.\n');
    fs.writeFileSync(path.join(folder, 'b.md'), '# Notice\n\nThe notice period is four weeks to the end of a month.\n');
  });
  afterEach(() => {
    fs.rmSync(folder, { recursive: true, force: true });
    fs.rmSync(storeDir, { recursive: true, force: true });
  });

  it('writes the key into the `embedder` column and reads it back as pipelineKey: a second run finds nothing to redo', async () => {
    let engine = await openEngine({ folder, storeDir });
    try {
      const first = await indexFolder(engine);
      assert.equal(first.added, 2);
    } finally {
      await engine.close();
    }

    // On disk: the same columns as before the rename, the key in `embedder`.
    const db = await lancedb.connect(storeDir);
    const table = await db.openTable(FILES_TABLE);
    const schema = await table.schema();
    assert.deepEqual(schema.fields.map((f) => f.name), COLUMNS_BEFORE);
    const rows = (await table.query().toArray()) as Record<string, unknown>[];
    assert.equal(rows.length, 2);
    for (const r of rows) assert.match(String(r.embedder), /^builtin:.*\+p\d+\./, 'the whole pipeline key is stored');
    table.close();
    db.close();

    engine = await openEngine({ folder, storeDir });
    try {
      const records = await engine.store.listFiles();
      assert.deepEqual(records.map((r) => r.pipelineKey).sort(), rows.map((r) => String(r.embedder)).sort());
      const second = await indexFolder(engine, { full: false });
      assert.equal(second.unchanged, 2);
      assert.equal((second.added ?? 0) + (second.updated ?? 0) + (second.removed ?? 0), 0);
      // A changed file is redone and keeps the same key.
      fs.appendFileSync(path.join(folder, 'b.md'), '\nIt can be extended by contract.\n');
      const third = await indexFolder(engine);
      assert.equal(third.updated, 1);
      const after = await engine.store.listFiles();
      assert.equal(after.find((r) => r.path === 'b.md')?.pipelineKey, records.find((r) => r.path === 'b.md')?.pipelineKey);
    } finally {
      await engine.close();
    }
  });
});
