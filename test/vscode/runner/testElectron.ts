// The standard API on top of the offline host: @vscode/test-electron's runTests with vscodeExecutablePath = code.sh.
//   node --import tsx test/vscode/runner/testElectron.ts [<tests bundle or folder>]
// Runs the given bundle (default: the smoke suite) against this repo's extension in a copy of the fixture workspace.
// Build first (node esbuild.mjs && node scripts/vscode/build-tests.mjs, and the test LM VSIX via main.ts once).
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runTests } from '@vscode/test-electron';

const repo = path.resolve(__dirname, '../../..');

async function main(): Promise<number> {
  const tests = path.resolve(process.argv[2] ?? path.join(repo, 'out/vscode-tests/smoke/index.js'));
  const ws = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-rag-test-electron-'));
  try {
    await fs.cp(path.join(repo, 'test/vscode/fixtures/workspace'), ws, { recursive: true });
    return await runTests({
      vscodeExecutablePath: path.join(repo, 'test/vscode/runner/code.sh'),
      extensionDevelopmentPath: repo,
      extensionTestsPath: tests,
      launchArgs: [ws],
    });
  } finally {
    await fs.rm(ws, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`[test-electron] failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
