// An index that comes with the folder (a cloned repository holding a crafted `.docs-rag/`) is not trusted: its store
// folder is not the one the index was created in, so the next run empties it, reads every file again and says so, and
// no edited passage is quoted afterwards. Until then, opening it warns. An index built in place stays incremental.
// Real files, real indexer, real LanceDB (the passage edited with LanceDB itself).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { openEngine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';
import { createRetriever } from '../../src/rag/search';
import { PASSAGES_TABLE } from '../../src/rag/store/schema';
import { detectLanguage } from '../../src/rag/text/language';

const FORGED = 'Visitors may take the master key home overnight.';

describe('index: an index shipped inside the folder', function () {
  this.timeout(180_000);
  let base: string;

  beforeEach(() => (base = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-shipped-'))));
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('a copied index with an edited passage is rebuilt by the next run, which says so; the edit is never quoted', async () => {
    const origin = path.join(base, 'origin');
    fs.mkdirSync(origin);
    fs.writeFileSync(path.join(origin, 'policy.md'), '# Key policy\n\nThe master key never leaves the reception desk.\n');
    fs.writeFileSync(path.join(origin, 'rota.md'), '# Rota\n\nThe night porter locks the gate at ten.\n');
    const built = await openEngine({ folder: origin });
    try {
      await indexFolder(built);
    } finally {
      await built.close();
    }
    // The index built in place stays incremental: nothing is read again.
    const again = await openEngine({ folder: origin });
    try {
      assert.deepEqual(again.warnings, []);
      const r = await indexFolder(again);
      assert.equal(r.unchanged, 2);
    } finally {
      await again.close();
    }
    // The attacker's edit, then the folder with its index is "cloned" (copied with timestamps, so size and mtime match).
    const db = await lancedb.connect(path.join(origin, '.docs-rag'));
    const table = await db.openTable(PASSAGES_TABLE);
    await table.update({ where: "path = 'policy.md'", values: { text: FORGED } });
    table.close();
    db.close();
    const clone = path.join(base, 'clone');
    fs.cpSync(origin, clone, { recursive: true, preserveTimestamps: true });

    const engine = await openEngine({ folder: clone });
    try {
      assert.ok(engine.warnings.some((w) => /not built in this place.*not verified/.test(w)), engine.warnings.join('\n'));
      const run = await indexFolder(engine);
      assert.ok(run.warnings?.some((w) => /not built in this place.*every file is read and indexed again/.test(w)), JSON.stringify(run.warnings));
      assert.equal(run.unchanged, 0);
      assert.equal(run.files, 2);
      const texts = (await engine.store.getFilePassages('policy.md')).map((p) => p.text);
      assert.ok(texts.length > 0 && texts.every((t) => !t.includes('master key home')), texts.join('\n'));
      const { hits } = await createRetriever(engine, { detect: detectLanguage }).retrieve('may visitors take the master key home', { k: 10, context: false });
      assert.ok(hits.length > 0 && hits.every((h) => !h.passage.text.includes('master key home')));
    } finally {
      await engine.close();
    }
    // Rebuilt here, it is this place's index now: no warning, incremental again.
    const later = await openEngine({ folder: clone });
    try {
      assert.deepEqual(later.warnings, []);
      assert.equal((await indexFolder(later)).unchanged, 2);
    } finally {
      await later.close();
    }
  });
});
