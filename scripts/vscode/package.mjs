// npm run package [-- --target <vsce target>|all] [--out <file.vsix>] [--skip-build]
// Builds the production bundles and a platform-specific VSIX carrying LanceDB's native binary for that target.
// A target whose native packages (LanceDB, @napi-rs/canvas) are not installed is looked up in the npm registry: when the
// registry does not serve them at the pinned versions the script fails and names them; when it does, it says how to
// install them. `--target all` builds every VS Code target it can (VS_CODE_TARGETS) and names the ones it cannot.
// Checks the result: every runtime file of the external modules (traced through require.cache) is inside the VSIX,
// the bundles require nothing else, and no sources/tests leaked in. See test/vscode/README.md (Packaging).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, realpathSync, writeFileSync, mkdirSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { unzipSync } from 'fflate';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BINARY = {
  'linux-x64': '@lancedb/lancedb-linux-x64-gnu',
  'linux-arm64': '@lancedb/lancedb-linux-arm64-gnu',
  'alpine-x64': '@lancedb/lancedb-linux-x64-musl',
  'alpine-arm64': '@lancedb/lancedb-linux-arm64-musl',
  'darwin-arm64': '@lancedb/lancedb-darwin-arm64',
  'darwin-x64': '@lancedb/lancedb-darwin-x64',
  'win32-x64': '@lancedb/lancedb-win32-x64-msvc',
  'win32-arm64': '@lancedb/lancedb-win32-arm64-msvc',
};
const HOST_BINARY = BINARY['linux-x64'];
/** The targets of `--target all`: the platforms VS Code's Marketplace serves most. */
const VS_CODE_TARGETS = ['linux-x64', 'linux-arm64', 'darwin-arm64', 'darwin-x64', 'win32-x64'];
// What the bundles leave external (esbuild.mjs): LanceDB's native binary package (the host's; swapped per target),
// @napi-rs/canvas and onnxruntime-node (native), and the tesseract WASM cores that dist/ocrWorker.js loads by name.
// tesseract.js 7 passes a boolean where node's getCore expects an OEM, so Node loads the full (non-LSTM-only) cores,
// each reading its .wasm beside it: the LSTM-only cores and the *.wasm.js copies (cores with the WASM inlined, for
// bundlers) are never loaded and stay out (UNUSED_CORES).
const EXTERNAL = [
  HOST_BINARY, '@napi-rs/canvas', 'onnxruntime-node',
  'tesseract.js-core/tesseract-core-relaxedsimd', 'tesseract.js-core/tesseract-core-simd', 'tesseract.js-core/tesseract-core',
];
/** LanceDB's loader asks for the binary package of every platform by name; the VSIX packs the target's (checked below). */
const LANCEDB_BINARY_SPEC = /^@lancedb\/lancedb-[a-z0-9-]+(\/package\.json)?$/;
const UNUSED_CORES = /^extension\/node_modules\/tesseract\.js-core\/(tesseract-core[^/]*-lstm\.[^/]*|[^/]*\.wasm\.js)$/;
// onnxruntime-node ships every platform's library inside its package; the VSIX carries the target's folder only.
// Alpine (musl) has none: there the local embedder reports that it cannot load and the builtin one keeps working.
const ORT_BINARY = { 'linux-x64': 'linux/x64', 'linux-arm64': 'linux/arm64', 'darwin-arm64': 'darwin/arm64', 'win32-x64': 'win32/x64', 'win32-arm64': 'win32/arm64' };
const ORT_DIR = (t) => `node_modules/onnxruntime-node/bin/napi-v6/${ORT_BINARY[t]}`;
const CANVAS_BINARY = { 'linux-x64': '@napi-rs/canvas-linux-x64-gnu', 'linux-arm64': '@napi-rs/canvas-linux-arm64-gnu', 'alpine-x64': '@napi-rs/canvas-linux-x64-musl', 'alpine-arm64': '@napi-rs/canvas-linux-arm64-musl', 'darwin-arm64': '@napi-rs/canvas-darwin-arm64', 'darwin-x64': '@napi-rs/canvas-darwin-x64', 'win32-x64': '@napi-rs/canvas-win32-x64-msvc', 'win32-arm64': '@napi-rs/canvas-win32-arm64-msvc' };

function fail(msg) {
  console.error(`[package] ERROR: ${msg}`);
  process.exit(1);
}
function run(cmd, args, what) {
  const t0 = Date.now();
  const res = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (res.status !== 0) fail(`${what} failed (exit ${res.status ?? res.signal})`);
  console.log(`[package] ${what}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

const argv = process.argv.slice(2);
const opt = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const target = opt('--target') ?? 'linux-x64';
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const installed = (name) => existsSync(path.join(root, 'node_modules', name, 'package.json'));
const installedVersion = (name) => JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')).version;

/** Whether the npm registry serves `name@version`; the versions it serves when not. */
function served(name, version) {
  const r = spawnSync('npm', ['view', `${name}@${version}`, 'version', '--json'], { cwd: root, encoding: 'utf8', shell: process.platform === 'win32' });
  if (r.status === 0 && r.stdout.trim()) return { ok: true };
  const all = spawnSync('npm', ['view', name, 'versions', '--json'], { cwd: root, encoding: 'utf8', shell: process.platform === 'win32' });
  let versions = [];
  try {
    versions = [JSON.parse(all.stdout)].flat();
  } catch {
    // not published at all, or the registry cannot be reached: named as such below
  }
  return { ok: false, versions };
}

/** Why a target cannot be packed here (undefined: its native packages are installed). */
function missingNatives(t) {
  if (!BINARY[t]) return `no LanceDB binary package is known for ${t} (targets: ${Object.keys(BINARY).join(', ')})`;
  const wanted = [
    [BINARY[t], installedVersion('@lancedb/lancedb')],
    [CANVAS_BINARY[t], installedVersion('@napi-rs/canvas')],
  ].filter(([name]) => name && !installed(name));
  if (!wanted.length) return undefined;
  const notServed = [];
  const toInstall = [];
  for (const [name, version] of wanted) {
    const s = served(name, version);
    if (s.ok) toInstall.push(`${name}@${version}`);
    else notServed.push(`${name}@${version} (${s.versions.length ? `the registry serves ${s.versions[0]} to ${s.versions.at(-1)}` : 'not found in the registry'})`);
  }
  if (notServed.length) return `the registry does not serve ${notServed.join(' and ')}, so no ${t} VSIX can be built with the pinned versions`;
  return `${toInstall.join(' and ')} not installed; install with: npm install --no-save --force ${toInstall.join(' ')} (or build on a ${t} machine)`;
}

if (target === 'all') {
  const problems = Object.fromEntries(VS_CODE_TARGETS.map((t) => [t, missingNatives(t)]));
  const buildable = VS_CODE_TARGETS.filter((t) => !problems[t]);
  for (const t of VS_CODE_TARGETS) console.log(`[package] ${t}: ${problems[t] ? `cannot build: ${problems[t]}` : 'native packages installed'}`);
  if (!argv.includes('--skip-build') && buildable.length) run(process.execPath, ['esbuild.mjs', '--production'], 'production build (node esbuild.mjs --production)');
  const failed = buildable.filter((t) => spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--target', t, '--skip-build'], { cwd: root, stdio: 'inherit' }).status !== 0);
  console.log(`[package] built: ${buildable.filter((t) => !failed.includes(t)).join(', ') || 'none'}; not built: ${[...failed, ...VS_CODE_TARGETS.filter((t) => problems[t])].join(', ') || 'none'}`);
  // Targets the registry cannot serve are named above, not an error of this build; a failed build is.
  process.exit(failed.length || !buildable.length ? 1 : 0);
}

const binaryPkg = BINARY[target];
const problem = missingNatives(target);
if (problem) fail(`cannot build the ${target} VSIX: ${problem}.`);
const out = path.resolve(root, opt('--out') ?? `${pkg.name}-${target}-${pkg.version}.vsix`);

if (!argv.includes('--skip-build')) run(process.execPath, ['esbuild.mjs', '--production'], 'production build (node esbuild.mjs --production)');
// The npm part of THIRD_PARTY_NOTICES.md must name exactly the packages this build ships (out/bundled-packages.json).
run(process.execPath, ['scripts/vscode/notices.mjs', '--check'], 'third-party notices check');
for (const f of ['dist/extension.js', 'dist/engine.js', 'dist/indexWorker.js', 'dist/searchWorker.js', 'dist/prepareWorker.js']) if (!existsSync(path.join(root, f))) fail(`${f} missing after the build`);

// Per-target ignore file: the checked-in .vscodeignore (linux-x64) with the binary package swapped.
let ignoreFile = path.join(root, '.vscodeignore');
if (binaryPkg !== HOST_BINARY) {
  const dir = path.join(root, 'out/vscode-package');
  mkdirSync(dir, { recursive: true });
  ignoreFile = path.join(dir, `vscodeignore-${target}`);
  const ort = ORT_BINARY[target] ? `napi-v6/${ORT_BINARY[target]}/` : 'napi-v6/none/';
  writeFileSync(
    ignoreFile,
    readFileSync(path.join(root, '.vscodeignore'), 'utf8')
      .split(HOST_BINARY).join(binaryPkg)
      .split(CANVAS_BINARY['linux-x64']).join(CANVAS_BINARY[target])
      .split('napi-v6/linux/x64/').join(ort),
  );
}

run(
  process.execPath,
  [
    path.join(root, 'node_modules/@vscode/vsce/vsce'),
    'package',
    '--target', target,
    '--ignoreFile', ignoreFile,
    '--out', out,
    // Without a `repository` in package.json vsce cannot rewrite README's relative links and fails; keep them as they are.
    ...(pkg.repository ? [] : ['--allow-missing-repository', '--no-rewrite-relative-links']),
  ],
  `vsce package --target ${target}`,
);

// ---- checks on the packed VSIX ----
const names = [];
unzipSync(new Uint8Array(readFileSync(out)), { filter: (f) => (names.push(f.name), false) });
const inVsix = new Set(names);
const problems = [];

// 1. The traced runtime closure of the external modules (on this host; the binary swapped for foreign targets).
const trace = spawnSync(
  process.execPath,
  ['-e', `${EXTERNAL.map((m) => `require(${JSON.stringify(m)});`).join('')}console.log(JSON.stringify(Object.keys(require.cache)))`],
  { cwd: root, encoding: 'utf8' },
);
if (trace.status !== 0) fail(`could not load ${EXTERNAL.join(', ')} to trace their runtime files: ${trace.stderr}`);
// Relative to node_modules' real location: in a checkout whose node_modules is a symlink, require.cache holds real paths.
const modulesDir = realpathSync(path.join(root, 'node_modules'));
const runtimeFiles = JSON.parse(trace.stdout)
  .map((f) => `node_modules/${path.relative(modulesDir, f).split(path.sep).join('/')}`)
  .filter((f) => !f.startsWith('node_modules/..'));
if (!runtimeFiles.length) problems.push(`tracing ${EXTERNAL.join(', ')} found no runtime file under node_modules: the closure check would be empty`);
for (const f of runtimeFiles) {
  if (f.startsWith(`node_modules/${HOST_BINARY}/`) && binaryPkg !== HOST_BINARY) continue;
  if (f.startsWith(`node_modules/${CANVAS_BINARY['linux-x64']}/`) && target !== 'linux-x64') continue;
  if (f.startsWith(`${ORT_DIR('linux-x64')}/`) && target !== 'linux-x64') continue;
  if (!inVsix.has(`extension/${f}`)) problems.push(`runtime file missing from the VSIX: ${f}`);
}
if (!names.some((n) => n.startsWith(`extension/node_modules/${binaryPkg}/`) && n.endsWith('.node'))) {
  problems.push(`no native LanceDB binary (${binaryPkg}/*.node) in the VSIX`);
}
for (const other of Object.values(BINARY)) {
  if (other !== binaryPkg && names.some((n) => n.startsWith(`extension/node_modules/${other}/`))) problems.push(`foreign binary ${other} packed`);
}

// onnxruntime's native library: the binding loads it through the dynamic linker, so require.cache does not list it.
if (ORT_BINARY[target]) {
  const dir = ORT_DIR(target);
  const libs = readdirSync(path.join(root, dir));
  for (const f of libs) if (!inVsix.has(`extension/${dir}/${f}`)) problems.push(`onnxruntime library missing from the VSIX: ${dir}/${f}`);
  for (const [t, d] of Object.entries(ORT_BINARY)) {
    if (t !== target && names.some((n) => n.startsWith(`extension/node_modules/onnxruntime-node/bin/napi-v6/${d}/`))) problems.push(`foreign onnxruntime library packed: ${d}`);
  }
}
if (!inVsix.has('extension/dist/localEmbedWorker.js')) problems.push('dist/localEmbedWorker.js missing from the VSIX');

// The OCR traineddata (German, English) and the tesseract WASM cores.
for (const lang of ['deu', 'eng']) if (!inVsix.has(`extension/dist/tessdata/${lang}.traineddata`)) problems.push(`dist/tessdata/${lang}.traineddata missing from the VSIX (scripts/ocr/traineddata.sh)`);

// Each tesseract core reads its .wasm from disk at run time (not through require): it must be packed beside its .js.
for (const n of names.filter((f) => /^extension\/node_modules\/tesseract\.js-core\/tesseract-core[^/]*(?<!\.wasm)\.js$/.test(f))) {
  if (!inVsix.has(n.replace(/\.js$/, '.wasm'))) problems.push(`${n.replace(/\.js$/, '.wasm')} missing from the VSIX (its core loads it at run time)`);
}

// 2. The bundles require only builtins, vscode and the external modules.
const allowed = new Set(['vscode', ...EXTERNAL, ...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
const packedBundles = names
  .filter((n) => /^extension\/dist\/[^/]+\.js$/.test(n))
  .map((n) => n.slice('extension/'.length));
for (const bundle of ['dist/extension.js', 'dist/engine.js', 'dist/prepareWorker.js', 'dist/localEmbedWorker.js', 'dist/indexWorker.js', 'dist/searchWorker.js', 'dist/ocrWorker.js', 'dist/cli.js', 'dist/cliMain.js']) {
  if (existsSync(path.join(root, bundle)) && !packedBundles.includes(bundle)) problems.push(`${bundle} missing from the VSIX`);
}
for (const bundle of packedBundles) {
  const code = readFileSync(path.join(root, bundle), 'utf8');
  // Literal relative requires between bundles (e.g. require("./engine.js")) must resolve inside the VSIX.
  for (const m of code.matchAll(/\brequire\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g)) {
    // LanceDB's loader first probes for a binary beside its own file (each inside try), then requires the package.
    if (/^\.\/lancedb\.[\w-]+\.(node|cjs)$/.test(m[1])) continue;
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(bundle), m[1]));
    const candidates = [target, `${target}.js`, `${target}/index.js`].map((t) => `extension/${t}`);
    if (!candidates.some((c) => inVsix.has(c))) problems.push(`${bundle} requires "${m[1]}", which is not in the VSIX`);
  }
  for (const m of code.matchAll(/\b(?:require|import)\(\s*["'`]([^"'`./$][^"'`$]*)["'`]\s*\)/g)) {
    const spec = m[1];
    const base = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
    if (allowed.has(spec) || allowed.has(base) || LANCEDB_BINARY_SPEC.test(spec)) continue;
    // The cores Node never loads (UNUSED_CORES): named by the worker script, deliberately not packed.
    if (UNUSED_CORES.test(`extension/node_modules/${spec}.js`)) continue;
    // Code text, not a call: a string that starts with require(…) (Ajv's standalone-code snippets in dist/cliMain.js).
    if (["'", '"', '`'].includes(code[m.index - 1])) continue;
    // An optional dependency probed inside try { ... } catch (e.g. `try { x = require("canvas") } catch { fallback }`).
    const before = code.slice(Math.max(0, m.index - 80), m.index);
    const after = code.slice(m.index + m[0].length, m.index + m[0].length + 40);
    if (/try\s*\{[^{}]*$/.test(before) && /^[^{}]*\}\s*catch/.test(after)) {
      console.log(`[package] note: ${bundle} probes the optional module "${spec}" inside try/catch; not packed`);
      continue;
    }
    problems.push(`${bundle} requires "${spec}", which is neither bundled nor packed`);
  }
}

// 3. The compiled word lists read at run time (src/rag/search/lexicon.ts looks for data/lexicon beside dist/), with their licences.
for (const f of readdirSync(path.join(root, 'data/lexicon')).filter((f) => /\.tsv\.gz$|\.COPYRIGHT\.txt$/.test(f))) {
  if (!inVsix.has(`extension/data/lexicon/${f}`)) problems.push(`word list missing from the VSIX: data/lexicon/${f}`);
}

// vsce warns ("you should bundle your extension") above 100 JavaScript files or 5,000 files: a published VSIX stays below.
const jsFiles = names.filter((n) => /\.js$/i.test(n)).length;
if (jsFiles > 100 || names.length > 5000) problems.push(`${names.length} files, ${jsFiles} of them JavaScript: vsce warns above 5,000 / 100 (bundle what esbuild.mjs leaves external)`);

// 4. The licence, the third-party notices and the licence texts they refer to; every packed npm package is named there.
// vsce stores LICENSE as LICENSE.txt.
if (!inVsix.has('extension/LICENSE.txt') && !inVsix.has('extension/LICENSE')) problems.push('LICENSE missing from the VSIX');
for (const f of ['THIRD_PARTY_NOTICES.md', 'licenses/GPL-2.0.txt', 'licenses/LGPL-2.1.txt', 'dist/tessdata/tesseract-ocr-deu.copyright', 'dist/tessdata/tesseract-ocr-eng.copyright']) {
  if (!inVsix.has(`extension/${f}`)) problems.push(`${f} missing from the VSIX`);
}
const notices = readFileSync(path.join(root, 'THIRD_PARTY_NOTICES.md'), 'utf8');
const noticed = new Set([...notices.matchAll(/^### (\S+) /gm)].map((m) => m[1]));
for (const n of names) {
  const m = n.match(/^extension\/node_modules\/((?:@[^/]+\/)?[^/]+)\/package\.json$/);
  // Another target's native build is listed under the linux-x64 name (same package, same licence).
  const name = m && (m[1] === binaryPkg ? HOST_BINARY : m[1] === CANVAS_BINARY[target] ? CANVAS_BINARY['linux-x64'] : m[1]);
  if (name && !noticed.has(name)) problems.push(`node_modules/${m[1]} is packed but not listed in THIRD_PARTY_NOTICES.md (node scripts/vscode/notices.mjs)`);
}

// 5. Nothing that should stay out.
for (const n of names) {
  if (UNUSED_CORES.test(n)) problems.push(`tesseract core that Node never loads packed: ${n}`);
  if (/^extension\/(src|test|bench|scripts|out|test-results|\.ci)\//.test(n) || /\.(map|ts)$/.test(n) || /\.vsix$/.test(n)) {
    problems.push(`should not be packed: ${n}`);
  }
}

const mb = (statSync(out).size / 1e6).toFixed(1);
if (problems.length) fail(`${out} (${mb} MB) failed its checks:\n  ${[...new Set(problems)].join('\n  ')}`);
console.log(`[package] ${path.relative(root, out)}: ${mb} MB, ${names.length} entries; runtime closure of ${EXTERNAL.join(', ')} complete (${runtimeFiles.length} files)`);
