// Pure parts of the real-VS-Code test runner: the test URL with its payload, the VS Code command line that
// @vscode/test-electron's runTests hands to our executable wrapper, and the language pack registration of the
// German pass.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import path from 'node:path';
import { testUrl } from '../vscode/runner/driver';
import { parseVsCodeArgs } from '../vscode/runner/codeWrapper';
import { registerLanguagePacks } from '../vscode/runner/host';

describe('VS Code test runner', () => {
  it('opens the folder and passes the extension and tests as vscode-remote URIs in the payload', () => {
    const url = new URL(
      testUrl({
        origin: 'http://127.0.0.1:4711',
        workspace: '/tmp/ws dir',
        extensionDevelopmentPath: '/repo',
        extensionTestsPath: '/repo/out/vscode-tests/suite/index.js',
      }),
    );
    assert.equal(url.searchParams.get('folder'), '/tmp/ws dir');
    assert.deepEqual(JSON.parse(url.searchParams.get('payload') ?? ''), [
      ['extensionDevelopmentPath', 'vscode-remote://127.0.0.1:4711/repo'],
      ['extensionTestsPath', 'vscode-remote://127.0.0.1:4711/repo/out/vscode-tests/suite/index.js'],
    ]);
  });

  it('leaves extensionDevelopmentPath out of the payload when none is given', () => {
    const url = new URL(testUrl({ origin: 'http://127.0.0.1:1', workspace: '/w', extensionTestsPath: '/t.js' }));
    assert.deepEqual(JSON.parse(url.searchParams.get('payload') ?? ''), [['extensionTestsPath', 'vscode-remote://127.0.0.1:1/t.js']]);
  });

  it('reads the command line runTests builds and ignores sandbox and profile flags', () => {
    const cl = parseVsCodeArgs([
      '/tmp/ws',
      '--no-sandbox',
      '--disable-gpu-sandbox',
      '--disable-updates',
      '--skip-welcome',
      '--disable-workspace-trust',
      '--extensionTestsPath=/repo/out/vscode-tests/smoke/index.js',
      '--extensionDevelopmentPath=/repo',
      '--extensions-dir=/repo/.vscode-test/extensions',
      '--user-data-dir=/repo/.vscode-test/user-data',
    ]);
    assert.deepEqual(cl, {
      folder: '/tmp/ws',
      extensionTestsPath: '/repo/out/vscode-tests/smoke/index.js',
      extensionDevelopmentPath: '/repo',
    });
  });

  it('accepts space-separated values and rejects a second development path', () => {
    assert.deepEqual(parseVsCodeArgs(['--extensionTestsPath', 'rel/index.js']), { extensionTestsPath: path.resolve('rel/index.js') });
    assert.throws(
      () => parseVsCodeArgs(['--extensionDevelopmentPath=/a', '--extensionDevelopmentPath=/b']),
      /only one --extensionDevelopmentPath/,
    );
  });

  it('registers the display languages of installed extensions in languagepacks.json, as the server reads them', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-langpacks-'));
    try {
      const extensions = path.join(tmp, 'extensions');
      const userData = path.join(tmp, 'user-data');
      fs.mkdirSync(userData, { recursive: true });
      // The test German pack as the server's --install-extension unpacks it, beside an extension without localizations.
      const pack = path.join(extensions, 'docs-rag-test.docs-rag-test-langpack-de-0.0.1');
      fs.mkdirSync(pack, { recursive: true });
      fs.copyFileSync(path.join(__dirname, '../vscode/langpack-de/package.json'), path.join(pack, 'package.json'));
      const other = path.join(extensions, 'docs-rag-test.docs-rag-test-lm-0.0.1');
      fs.mkdirSync(other);
      fs.copyFileSync(path.join(__dirname, '../vscode/lm-extension/package.json'), path.join(other, 'package.json'));
      assert.deepEqual(registerLanguagePacks({ extensions, userData }), ['de']);
      const packs = JSON.parse(fs.readFileSync(path.join(userData, 'languagepacks.json'), 'utf8'));
      assert.deepEqual(Object.keys(packs), ['de']);
      assert.deepEqual(packs.de.extensions, [{ extensionIdentifier: { id: 'docs-rag-test.docs-rag-test-langpack-de' }, version: '0.0.1' }]);
      assert.deepEqual(packs.de.translations, { vscode: path.join(pack, 'translations/main.i18n.json') });
      assert.equal(packs.de.label, 'Deutsch');
      assert.match(packs.de.hash, /^[0-9a-f]{32}$/);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
