// The German UI: package.json's contributed texts are %key% placeholders of package.nls.json (English), each
// translated in package.nls.de.json (VS Code picks the file of its display language).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const read = (f: string) => JSON.parse(fs.readFileSync(path.join(ROOT, f), 'utf8'));

/** Every string value in a JSON value, with its path. */
function strings(value: unknown, at = ''): [string, string][] {
  if (typeof value === 'string') return [[at, value]];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${at}[${i}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => strings(v, at ? `${at}.${k}` : k));
  return [];
}

describe('package.nls: the contributed texts in English and German', () => {
  const manifest = read('package.json');
  const en: Record<string, string> = read('package.nls.json');
  const de: Record<string, string> = read('package.nls.de.json');

  it('every key of package.nls.json is translated in package.nls.de.json, and no other key is there', () => {
    const missing = Object.keys(en).filter((k) => typeof de[k] !== 'string' || !de[k].trim());
    assert.deepEqual(missing, [], 'keys without a German text');
    assert.deepEqual(Object.keys(de).filter((k) => !(k in en)), [], 'German keys that package.nls.json does not have');
  });

  it('every %key% in package.json exists in package.nls.json, and every key there is used', () => {
    const used = strings(manifest).flatMap(([, v]) => /^%([^%\s]+)%$/.exec(v)?.[1] ?? []);
    assert.deepEqual(used.filter((k) => !(k in en)), [], 'placeholders without an English text');
    assert.deepEqual(Object.keys(en).filter((k) => !used.includes(k)), [], 'texts that package.json does not use');
  });

  it('the titles, descriptions and setting texts a user reads are placeholders, not English literals', () => {
    const shown = /(^displayName|^description|\.title|views\.[^.]+\[\d+\]\.name|\.contextualTitle|\.fullName|\.label|\.displayName|\.userDescription|\.category|\.(markdown)?[dD]escription|\.enumDescriptions\[\d+\]|\.deprecationMessage)$/;
    // What a model reads (tool and routing descriptions, the tool's input schema) stays English; so do identifiers.
    const forModels = /(\.disambiguation|\.modelDescription|\.inputSchema)/;
    const literal = strings({ displayName: manifest.displayName, description: manifest.description, capabilities: manifest.capabilities, contributes: manifest.contributes })
      .filter(([at, v]) => shown.test(at) && !forModels.test(at) && !/^%[^%\s]+%$/.test(v));
    assert.deepEqual(literal, []);
  });

  it('the German texts keep the setting links (#docsRag.x#) and the command links of the English ones', () => {
    const refs = (t: string) => [...t.matchAll(/#[\w.]+#|\(command:[^)]+\)/g)].map((m) => m[0]).sort();
    for (const k of Object.keys(en)) assert.deepEqual(refs(de[k] ?? ''), refs(en[k]), k);
  });
});

/** The first argument of every `l10n.t(` call in the extension's sources (src/views, src/extension.ts). */
function runtimeKeys(): { keys: string[]; notLiteral: string[] } {
  const files = [path.join(ROOT, 'src/extension.ts'), ...fs.readdirSync(path.join(ROOT, 'src/views')).map((f) => path.join(ROOT, 'src/views', f))];
  const keys: string[] = [];
  const notLiteral: string[] = [];
  for (const file of files.filter((f) => f.endsWith('.ts'))) {
    const code = fs.readFileSync(file, 'utf8');
    for (const m of code.matchAll(/\bl10n\.t\(\s*/g)) {
      const literal = /^'((?:[^'\\\n]|\\.)*)'/.exec(code.slice(m.index + m[0].length));
      if (literal) keys.push(literal[1].replace(/\\(.)/g, '$1'));
      else notLiteral.push(`${path.relative(ROOT, file)}: ${code.slice(m.index, m.index + 60)}`);
    }
  }
  return { keys: [...new Set(keys)], notLiteral };
}

describe('l10n: the runtime strings in German', () => {
  const manifest = read('package.json');
  const de: Record<string, string> = read('l10n/bundle.l10n.de.json');
  const { keys, notLiteral } = runtimeKeys();

  it('package.json names the bundle folder, and every l10n.t call takes a literal message', () => {
    assert.equal(manifest.l10n, './l10n');
    assert.deepEqual(notLiteral, []);
    assert.ok(keys.length > 0);
  });

  it('every message has a German text with the same {n} placeholders, and the bundle holds no stale message', () => {
    const holes = (t: string) => [...t.matchAll(/\{\d+\}/g)].map((m) => m[0]).sort();
    assert.deepEqual(keys.filter((k) => typeof de[k] !== 'string' || !de[k].trim()), [], 'messages without a German text');
    for (const k of keys) assert.deepEqual(holes(de[k]), holes(k), k);
    assert.deepEqual(Object.keys(de).filter((k) => !keys.includes(k)), [], 'German texts no l10n.t call uses');
  });
});
