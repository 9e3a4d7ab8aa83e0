// The settings an index records (meta.json) and how a CLI run or MCP server reads them back: flags first, then the
// recorded settings (their well-formed part only), then the defaults.
import * as assert from 'node:assert/strict';
import { defaultConfig, readRecordedSettings, recordedSettings } from '../../src/rag/config';
import { mergeConfig } from '../../src/rag/engine';

describe('config: recorded settings', () => {
  it('round trip: what a run records reads back to the same configuration', () => {
    const config = defaultConfig();
    config.ingest.useIgnoreFiles = false;
    config.ingest.ocr = { enabled: false, languages: 'eng', maxPages: 3 };
    config.enrich = { contextual: true, summaries: false, model: 'llama3.2' };
    const recorded = readRecordedSettings(JSON.parse(JSON.stringify(recordedSettings(config))));
    const back = mergeConfig({}, recorded);
    assert.deepEqual(back.ingest, config.ingest);
    assert.deepEqual(back.enrich, config.enrich);
  });

  it('a flag given wins over the recorded setting, OCR key by key; the rest stays recorded', () => {
    const config = defaultConfig();
    config.ingest.ocr = { enabled: false, languages: 'deu', maxPages: 5 };
    config.ingest.followExternalSymlinks = true;
    const merged = mergeConfig({ ingest: { ocr: { languages: 'eng' }, useIgnoreFiles: false } }, recordedSettings(config));
    assert.deepEqual(merged.ingest.ocr, { enabled: false, languages: 'eng', maxPages: 5 });
    assert.equal(merged.ingest.followExternalSymlinks, true);
    assert.equal(merged.ingest.useIgnoreFiles, false);
  });

  it('values of the wrong type or out of range in meta.json are left out: the defaults apply to them', () => {
    const recorded = readRecordedSettings({
      ingest: { include: 'not-a-list', exclude: ['**/tmp/**'], parseTimeoutMs: -1, useIgnoreFiles: 'no', ocr: { enabled: false, languages: 'deu; rm -rf', maxPages: 2.5 } },
      enrich: { contextual: 'yes' },
    });
    const merged = mergeConfig({}, recorded);
    const defaults = defaultConfig();
    assert.deepEqual(merged.ingest.include, defaults.ingest.include);
    assert.deepEqual(merged.ingest.exclude, ['**/tmp/**']);
    assert.equal(merged.ingest.parseTimeoutMs, defaults.ingest.parseTimeoutMs);
    assert.equal(merged.ingest.useIgnoreFiles, true);
    assert.deepEqual(merged.ingest.ocr, { ...defaults.ingest.ocr, enabled: false });
    assert.equal(merged.enrich, undefined);
    for (const junk of [null, 7, 'x', { ingest: 5 }, {}]) assert.deepEqual(mergeConfig({}, readRecordedSettings(junk)).ingest, defaults.ingest, JSON.stringify(junk));
  });
});
