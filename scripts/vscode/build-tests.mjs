// Bundles the extension-host test entries with esbuild (mocha bundled in; vscode and the native/heavy
// modules external, loaded from the repo's node_modules at run time):
//   test/vscode/suite/index.ts        → out/vscode-tests/suite/index.js   (D2's suites; skipped if absent)
//   test/vscode/runner/smoke/index.ts → out/vscode-tests/smoke/index.js   (smoke suite, also run against the packaged VSIX)
import * as esbuild from 'esbuild';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const entries = [
  { name: 'suite', entry: 'test/vscode/suite/index.ts', out: 'out/vscode-tests/suite/index.js' },
  { name: 'smoke', entry: 'test/vscode/runner/smoke/index.ts', out: 'out/vscode-tests/smoke/index.js' },
];
const only = process.argv.slice(2).filter((a) => !a.startsWith('-'));

for (const e of entries) {
  if (only.length && !only.includes(e.name)) continue;
  const entry = path.join(root, e.entry);
  if (!existsSync(entry)) {
    console.log(`[build-tests] ${e.entry} not found; skipping the ${e.name} bundle`);
    continue;
  }
  await esbuild.build({
    entryPoints: [entry],
    outfile: path.join(root, e.out),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: 'inline',
    external: ['vscode', '@lancedb/lancedb', 'apache-arrow', 'playwright-core'],
    logLevel: 'warning',
    // mocha's optional parallel mode resolves worker files at run time; we never use it.
    logOverride: { 'require-resolve-not-external': 'silent' },
    // Node resolution of externals from out/vscode-tests/<name>/ walks up to the repo's node_modules.
  });
  console.log(`[build-tests] ${e.entry} → ${e.out}`);
}
