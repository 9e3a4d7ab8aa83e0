// Each default has one home in the engine (src/rag/config.ts); the extension's settings in package.json repeat some of
// them for VS Code's settings editor, and must say the same.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  DEFAULT_EXCLUDE,
  DEFAULT_INCLUDE,
  DEFAULT_LOCAL_MODEL,
  DEFAULT_OCR_CONFIG,
  DEFAULT_OLLAMA_CHAT_MODEL,
  DEFAULT_OLLAMA_EMBED_MODEL,
  DEFAULT_OLLAMA_HOST,
  defaultConfig,
} from '../../src/rag/config';
import { knownModel } from '../../src/rag/embed/localModels';

type Property = { default?: unknown };
const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, Property> } | { properties: Record<string, Property> }[] };
};
const sections = Array.isArray(pkg.contributes.configuration) ? pkg.contributes.configuration : [pkg.contributes.configuration];
const settingDefault = (key: string): unknown => {
  for (const s of sections) if (key in s.properties) return s.properties[key].default;
  throw new Error(`package.json declares no setting ${key}`);
};

describe('config: one home per default', () => {
  it("package.json's setting defaults are the engine's", () => {
    const ingest = defaultConfig().ingest;
    assert.deepEqual(settingDefault('docsRag.include'), DEFAULT_INCLUDE);
    assert.deepEqual(settingDefault('docsRag.exclude'), DEFAULT_EXCLUDE);
    assert.equal(settingDefault('docsRag.maxFileSizeMB'), ingest.maxFileSizeMB);
    assert.equal(settingDefault('docsRag.parseTimeoutSeconds'), ingest.parseTimeoutMs / 1000);
    assert.equal(settingDefault('docsRag.ocr.enabled'), DEFAULT_OCR_CONFIG.enabled);
    assert.equal(settingDefault('docsRag.ocr.languages'), DEFAULT_OCR_CONFIG.languages);
    assert.equal(settingDefault('docsRag.ocr.maxPages'), DEFAULT_OCR_CONFIG.maxPages);
    assert.equal(settingDefault('docsRag.embedder'), defaultConfig().embed.provider);
    assert.equal(settingDefault('docsRag.ollama.host'), DEFAULT_OLLAMA_HOST);
    assert.equal(settingDefault('docsRag.ollama.embedModel'), DEFAULT_OLLAMA_EMBED_MODEL);
    assert.equal(settingDefault('docsRag.ollama.chatModel'), DEFAULT_OLLAMA_CHAT_MODEL);
  });

  it('the default local model is one the model download knows', () => {
    assert.ok(knownModel(DEFAULT_LOCAL_MODEL), DEFAULT_LOCAL_MODEL);
  });
});
