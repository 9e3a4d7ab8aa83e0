// Renamed settings in the real VS Code configuration: docsRag.search.queryExpansion (was search.expansion) and
// docsRag.search.documentExpansionThreshold (was search.expansionThreshold). The old names still work when the new
// ones are not set; the new ones win when both are; neither set gives the default.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { searchOverrides } from '../../../src/views/docsService';
import { readSettings } from '../../../src/views/settings';

describe('settings: renamed keys keep their old names as deprecated aliases', () => {
  const keys = ['search.queryExpansion', 'search.expansion', 'search.documentExpansionThreshold', 'search.expansionThreshold'];
  const config = () => vscode.workspace.getConfiguration('docsRag');
  afterEach(async () => {
    for (const k of keys) await config().update(k, undefined, vscode.ConfigurationTarget.Workspace);
  });

  it('neither name set: the defaults', () => {
    const s = readSettings();
    assert.equal(s.queryExpansion, false);
    assert.equal(s.documentExpansionThreshold, 0.3);
  });

  it('only the old names set: their values are used (and reach the retriever settings)', async () => {
    await config().update('search.expansion', true, vscode.ConfigurationTarget.Workspace);
    await config().update('search.expansionThreshold', 0.6, vscode.ConfigurationTarget.Workspace);
    const s = readSettings();
    assert.equal(s.queryExpansion, true);
    assert.equal(s.documentExpansionThreshold, 0.6);
    const o = searchOverrides(s);
    assert.equal(o.queryExpansion, 'multi-query');
    assert.equal(o.documentExpansionThreshold, 0.6);
  });

  it('both names set: the new names win', async () => {
    await config().update('search.expansion', true, vscode.ConfigurationTarget.Workspace);
    await config().update('search.queryExpansion', false, vscode.ConfigurationTarget.Workspace);
    await config().update('search.expansionThreshold', 0.6, vscode.ConfigurationTarget.Workspace);
    await config().update('search.documentExpansionThreshold', 0.45, vscode.ConfigurationTarget.Workspace);
    const s = readSettings();
    assert.equal(s.queryExpansion, false);
    assert.equal(s.documentExpansionThreshold, 0.45);
  });
});
