// Activation: the extension activates in the real VS Code, registers its commands, the @docs participant's tool and
// the Docs view, keeps the engine out of activation, and records how long activation took.
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { testResultsDir } from '../runner/driverClient';
import { api, EXTENSION_ID } from './helpers';

describe('activation', () => {
  it('activates on start-up and registers every command', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, 'extension is installed');
    assert.ok((ext.packageJSON.activationEvents as string[]).includes('onStartupFinished'));
    const a = await api();
    assert.ok(ext.isActive);
    const commands = await vscode.commands.getCommands(true);
    for (const c of ['docsRag.reindex', 'docsRag.ask', 'docsRag.search', 'docsRag.status', 'docsRag.showLogs', 'docsRag.openOriginal', 'docsRag.openLocation']) {
      assert.ok(commands.includes(c), `command ${c} is registered`);
    }
    assert.ok(commands.includes('docsRag.docsView.focus'), 'the Docs view is contributed');
    assert.ok(Number.isFinite(a.activationMs) && a.activationMs >= 0);
    await fs.mkdir(testResultsDir(), { recursive: true });
    await fs.writeFile(path.join(testResultsDir(), 'activation.json'), JSON.stringify({ activationMs: a.activationMs }));
  });

  it('registers the docs_search language model tool with its input schema', async () => {
    await api();
    const tool = vscode.lm.tools.find((t) => t.name === 'docs_search');
    assert.ok(tool, 'docs_search is in vscode.lm.tools');
    const schema = tool.inputSchema as { properties?: Record<string, unknown>; required?: string[] };
    assert.ok(schema.properties?.query, 'the schema has a query property');
    assert.deepEqual(schema.required, ['query']);
  });

  it('does not load LanceDB during activation, nor when it searches (the search process reads the index)', async () => {
    const a = await api();
    assert.equal(a.engineLoadedAtActivation, false);
    await a.startup;
    const lancedbLoaded = () => Object.keys(require.cache).some((id) => id.includes('@lancedb/lancedb'));
    // The start-up index run happened in the indexing process; searches run in the search process.
    assert.ok(a.host.worker.pid, 'the start-up run went to the indexing process');
    const { hits } = await a.service.search('Urlaub', { k: 3 });
    assert.ok(hits.length > 0);
    assert.ok(a.host.searcher.pid, 'the search went to the search process');
    assert.equal(lancedbLoaded(), false, 'LanceDB is not loaded into the extension host');
  });
});
