// Renamed settings: the rule that reads a new key or its deprecated old name (src/views/renamedSettings.ts, over a
// configuration with VS Code's layering: default < global < workspace < folder), the manifest that declares both names,
// and `docs-rag eval --set` with old names.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseSets } from '../../src/cli/eval';
import { BASE_SETTINGS } from '../../src/rag/search/configs';
import { RENAMED_SETTINGS, renamedSetting, type SettingsReader } from '../../src/views/renamedSettings';

type Layer = 'defaultValue' | 'globalValue' | 'workspaceValue' | 'workspaceFolderValue';

/** A configuration with VS Code's layers, defaults from package.json. */
function configuration(values: Record<string, Partial<Record<Layer, unknown>>>): SettingsReader {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8'));
  const props = manifest.contributes.configuration.properties ?? manifest.contributes.configuration[0]?.properties;
  const layers = (key: string) => ({ defaultValue: props[`docsRag.${key}`]?.default, ...values[key] });
  return {
    get<T>(key: string) {
      const l = layers(key);
      return (l.workspaceFolderValue ?? l.workspaceValue ?? l.globalValue ?? l.defaultValue) as T;
    },
    inspect(key: string) {
      return { key: `docsRag.${key}`, languageIds: ['markdown'], ...layers(key) };
    },
  };
}

describe('renamed settings', () => {
  it('the new key when set, else the old key when set, else the default', () => {
    assert.equal(renamedSetting(configuration({}), 'search.queryExpansion'), false);
    assert.equal(renamedSetting(configuration({}), 'search.documentExpansionThreshold'), 0.3);
    assert.equal(renamedSetting(configuration({ 'search.expansion': { globalValue: true } }), 'search.queryExpansion'), true);
    assert.equal(renamedSetting(configuration({ 'search.expansionThreshold': { workspaceValue: 0.6 } }), 'search.documentExpansionThreshold'), 0.6);
    // The new key wins wherever it is set, even in a lower layer than the old one.
    const both = configuration({ 'search.expansion': { workspaceValue: true }, 'search.queryExpansion': { globalValue: false } });
    assert.equal(renamedSetting(both, 'search.queryExpansion'), false);
    // Set to its default value still counts as set.
    const explicitDefault = configuration({ 'search.expansionThreshold': { globalValue: 0.6 }, 'search.documentExpansionThreshold': { workspaceValue: 0.3 } });
    assert.equal(renamedSetting(explicitDefault, 'search.documentExpansionThreshold'), 0.3);
  });

  it('package.json declares both names, the old one deprecated with the same type and default', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8'));
    const props = manifest.contributes.configuration.properties ?? manifest.contributes.configuration[0]?.properties;
    // The messages are %key% placeholders of package.nls.json (English) and package.nls.de.json.
    const nls: Record<string, string>[] = ['package.nls.json', 'package.nls.de.json'].map((f) => JSON.parse(fs.readFileSync(path.join(__dirname, '../..', f), 'utf8')));
    for (const [key, old] of Object.entries(RENAMED_SETTINGS)) {
      const now = props[`docsRag.${key}`];
      const was = props[`docsRag.${old}`];
      assert.ok(now && !now.deprecationMessage, `docsRag.${key} is declared`);
      const message = /^%(.+)%$/.exec(was?.deprecationMessage ?? '')?.[1] ?? '';
      for (const texts of nls) assert.match(texts[message] ?? '', new RegExp(key.replace('.', '\\.')), `docsRag.${old} points to docsRag.${key}`);
      assert.equal(was.type, now.type);
      assert.deepEqual(was.default, now.default);
    }
  });

  it('docs-rag eval --set takes the old names with a note; the new name wins when both are given', () => {
    const notes: string[] = [];
    const sets = parseSets(['expansionThreshold=0.5', 'expansion="hyde"'], (m) => notes.push(m));
    assert.deepEqual(sets, { documentExpansionThreshold: 0.5, queryExpansion: 'hyde' });
    assert.equal(notes.length, 2);
    assert.match(notes[0], /documentExpansionThreshold/);
    assert.deepEqual(parseSets(['documentExpansionThreshold=0.4', 'expansionThreshold=0.5'], () => {}), { documentExpansionThreshold: 0.4 });
    assert.ok('documentExpansionThreshold' in BASE_SETTINGS && !('expansionThreshold' in BASE_SETTINGS));
    assert.throws(() => parseSets(['noSuchSetting=1'], () => {}), /unknown setting "noSuchSetting"/);
  });
});
