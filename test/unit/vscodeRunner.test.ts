// Pure parts of the real-VS-Code test runner: the test URL with its payload, and the VS Code command line that
// @vscode/test-electron's runTests hands to our executable wrapper.
import * as assert from 'node:assert/strict';
import path from 'node:path';
import { testUrl } from '../vscode/runner/driver';
import { parseVsCodeArgs } from '../vscode/runner/codeWrapper';

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
});
