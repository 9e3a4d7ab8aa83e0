// Bundles the extension host entry and the CLI. LanceDB's native module stays external
// (it is loaded from node_modules at run time and shipped inside the platform VSIX).
import * as esbuild from 'esbuild';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  external: ['vscode', '@lancedb/lancedb', 'apache-arrow'],
  logLevel: 'info',
};

const entries = [
  { entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js' },
  // The engine in its own bundle, required by the extension on first use (keeps activation fast).
  { entryPoints: ['src/views/engineBundle.ts'], outfile: 'dist/engine.js' },
  { entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
  { entryPoints: ['src/rag/ingest/parseWorker.ts'], outfile: 'dist/parseWorker.js' },
];

const contexts = await Promise.all(entries.map((e) => esbuild.context({ ...common, ...e })));
if (watch) {
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
}
