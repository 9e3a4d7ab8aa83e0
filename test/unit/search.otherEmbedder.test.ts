// An index whose vectors come from another embedder than the one searching (the extension's embedder setting just
// changed, the run that re-embeds has not rebuilt the tables yet): the search is keyword-only instead of failing on
// the vectors' dimension, so keyword search keeps working through the switch.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TINY_MODEL_DIR } from '../../scripts/models/tinyEmbedding';
import { openEngine, type Engine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';
import { createRetriever } from '../../src/rag/search';
import { detectLanguage } from '../../src/rag/text/language';

describe('search: an index built by another embedder', function () {
  this.timeout(120_000);
  let folder: string;
  const engines: Engine[] = [];

  before(async () => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'search-other-embedder-'));
    fs.writeFileSync(path.join(folder, 'urlaub.md'), '# Urlaub\n\nResturlaub kann bis zum 31. März des Folgejahres übertragen werden, danach verfällt er.\n');
    fs.writeFileSync(path.join(folder, 'build.md'), '# Build cache\n\nThe build cache keeps compiled artifacts between runs of the pipeline.\n');
    const builtin = await openEngine({ folder });
    engines.push(builtin);
    await indexFolder(builtin);
  });
  after(async () => {
    for (const e of engines) await e.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('searches by keyword while the index holds the builtin vectors and the local model is chosen', async () => {
    // As the search process opens it after the setting changed: the chosen embedder, not the recorded one.
    const local = await openEngine({ folder, config: { embed: { provider: 'local', localModel: TINY_MODEL_DIR } }, embedderOverride: true });
    engines.push(local);
    assert.equal(local.embedder.id, 'local');
    assert.equal(local.store.meta()?.embedder.id, 'builtin');
    const r = await createRetriever(local, { config: 'default', detect: detectLanguage }).retrieve('Resturlaub übertragen', { k: 5, context: false });
    assert.equal(r.hits[0]?.passage.path, 'urlaub.md');
  });
});
