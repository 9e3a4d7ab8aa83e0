// Bundles the extension host entry and the CLI, LanceDB's JavaScript and Apache Arrow included: only LanceDB's native
// binary package stays external (its loader requires it by name; it ships inside the platform VSIX), with what LanceDB
// probes inside try/catch and never uses here (OpenAI embeddings). tesseract.js is bundled too, its worker script as a
// bundle of its own (dist/ocrWorker.js, src/rag/ingest/ocr.ts passes its path); the WASM cores it loads stay in
// node_modules (each reads its .wasm beside it). @napi-rs/canvas stays external (native binary).
// The local embedder's worker bundles transformers.js with sharp (images only, unused) replaced by an empty module;
// onnxruntime-node (native library) stays external and ships in the platform VSIX like LanceDB.
// Before bundling, scripts/ocr/traineddata.sh puts the OCR traineddata (deu, eng) into dist/tessdata.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
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
  external: ['vscode', '@lancedb/lancedb-*', '*.node', 'openai', 'tesseract.js-core', 'tesseract.js-core/*', '@napi-rs/canvas'],
  logLevel: 'info',
  // The list of bundled inputs: scripts/vscode/notices.mjs names every npm package inside the bundles from it.
  metafile: true,
};

/** transformers.js requires sharp for image inputs at load time; text embedding never uses it. */
const noSharp = {
  name: 'no-sharp',
  setup(build) {
    build.onResolve({ filter: /^sharp$/ }, () => ({ path: 'sharp', namespace: 'no-sharp' }));
    build.onLoad({ filter: /.*/, namespace: 'no-sharp' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
  },
};

const entries = [
  { entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js' },
  // The host's part of the engine (answers, chat adapters, model download) in its own bundle, required on first use.
  { entryPoints: ['src/views/engineBundle.ts'], outfile: 'dist/engine.js' },
  // The CLI's launcher (small: `index` relaunches itself before loading the commands) and its dispatcher with the commands.
  { entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' }, logOverride: { 'unsupported-require-call': 'silent' } },
  { entryPoints: ['src/cli/main.ts'], outfile: 'dist/cliMain.js' },
  { entryPoints: ['src/rag/ingest/parseWorker.ts'], outfile: 'dist/parseWorker.js' },
  // tesseract.js's own worker thread (OCR), started by the parser workers.
  { entryPoints: ['node_modules/tesseract.js/src/worker-script/node/index.js'], outfile: 'dist/ocrWorker.js' },
  // The engine's parser workers: parse, then chunk, extract links and embed for the indexer (src/rag/index/prepareFile.ts).
  { entryPoints: ['src/rag/index/prepareWorker.ts'], outfile: 'dist/prepareWorker.js' },
  // The extension's indexing process (forked with IPC by src/views/indexProcess.ts).
  { entryPoints: ['src/indexProcess/main.ts'], outfile: 'dist/indexWorker.js' },
  // The extension's search process (forked with IPC by src/searchProcess/client.ts): LanceDB and the search pipeline.
  { entryPoints: ['src/searchProcess/main.ts'], outfile: 'dist/searchWorker.js' },
  {
    entryPoints: ['src/rag/embed/localWorker.ts'],
    outfile: 'dist/localEmbedWorker.js',
    external: [...common.external, 'onnxruntime-node'],
    plugins: [noSharp],
  },
];

if (process.env.DOCS_RAG_SKIP_TRAINEDDATA !== '1') {
  const r = spawnSync('bash', ['scripts/ocr/traineddata.sh'], { stdio: 'inherit' });
  // Without traineddata the build still works; OCR then reports per file that it is unavailable.
  if (r.status !== 0) console.warn('[build] WARNING: OCR traineddata not installed (scripts/ocr/traineddata.sh failed); OCR will be unavailable');
}

// The word lists unpacked beside their .gz with their lookup tables (scripts/lexicon/unpack.ts): a process that
// searches then reads them instead of inflating and hashing them on every start.
{
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/lexicon/unpack.ts'], { stdio: 'inherit' });
  if (r.status !== 0) console.warn('[build] WARNING: word lists not unpacked; every search process inflates them');
}

const contexts = await Promise.all(entries.map((e) => esbuild.context({ ...common, ...e })));
if (watch) {
  await Promise.all(contexts.map((c) => c.watch()));
} else {
  const results = await Promise.all(contexts.map((c) => c.rebuild()));
  await Promise.all(contexts.map((c) => c.dispose()));
  // The npm packages inside each bundle (out/bundled-packages.json), for the third-party notices.
  const bundled = {};
  for (const [i, r] of results.entries()) {
    const pkgs = new Set();
    for (const input of Object.keys(r.metafile.inputs)) {
      // The package folder holding the input: up to the name after its last node_modules/ (nested copies kept apart),
      // from the first node_modules/ on (a symlinked node_modules resolves outside the checkout).
      const m = input.match(/^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//);
      if (m) pkgs.add(m[1].slice(m[1].indexOf('node_modules/')));
    }
    bundled[entries[i].outfile] = [...pkgs].sort();
  }
  mkdirSync('out', { recursive: true });
  writeFileSync('out/bundled-packages.json', `${JSON.stringify(bundled, null, 2)}\n`);
}
