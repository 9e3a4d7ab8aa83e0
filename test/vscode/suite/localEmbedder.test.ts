// docsRag.embedder "local" inside the real VS Code: a model folder (docsRag.local.modelPath = the tiny generated model)
// re-embeds the index with the in-process ONNX model in a worker thread; search uses it; back to builtin afterwards.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, folder, waitUntil } from './helpers';

const config = () => vscode.workspace.getConfiguration('docsRag', folder());

describe('local embedder (docsRag.embedder "local" with a model folder)', function () {
  this.timeout(240_000);

  it('re-embeds the index with the local model, searches with it, and returns to builtin', async () => {
    const repo = process.env.DOCS_RAG_REPO;
    assert.ok(repo, 'DOCS_RAG_REPO is not set');
    const modelDir = path.join(repo, 'test/fixtures/models/tiny-embedding');
    const a = await api();
    await config().update('local.modelPath', modelDir, vscode.ConfigurationTarget.Workspace);
    await config().update('embedder', 'local', vscode.ConfigurationTarget.Workspace);
    try {
      await waitUntil('the index re-embedded with the local model', async () => {
        await a.host.idle();
        const engine = await a.host.engine(folder());
        const meta = engine.store.meta();
        return meta?.embedder.id === 'local' && meta.embedder.model === modelDir && meta.embedder.dimension === 32 && (await engine.store.countPassages()) > 0;
      }, 180_000, 1000);
      const { hits } = await a.service.search('Resturlaub übertragen', { k: 5 });
      assert.ok(hits.length > 0, 'search works on the locally embedded index');
    } finally {
      await config().update('embedder', undefined, vscode.ConfigurationTarget.Workspace);
      await config().update('local.modelPath', undefined, vscode.ConfigurationTarget.Workspace);
    }
    await waitUntil('back to the builtin embedder', async () => {
      await a.host.idle();
      return (await a.host.engine(folder())).store.meta()?.embedder.id === 'builtin';
    }, 120_000, 1000);
  });
});
