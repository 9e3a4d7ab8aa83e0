// Runs the extension tests in a real VS Code (the server inside code-server, driven by headless Chromium).
//   node --import tsx test/vscode/runner/main.ts [--stage dev|package|all] [--skip-build] [--vsix <file>]
//     [--extension-path <dir>] [--tests <bundle.js>]   (the last two: dev stage, for debugging the runner itself)
// Stage "dev": the extension from this repo (extensionDevelopmentPath) with D2's suites
//   (out/vscode-tests/suite/index.js; the smoke suite when D2's entry does not exist yet).
// Stage "package": builds the platform VSIX (npm run package), installs it into a clean extensions dir and runs
//   the smoke suite against the INSTALLED extension (no extensionDevelopmentPath).
// Both stages install the deterministic test language model (test/vscode/lm-extension) as a VSIX.
// Prints `vscode: N passed, N failed` (and `vscode-package: ...`), exits non-zero on any failure.
import { spawnSync } from 'node:child_process';
import { promises as fs, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hostPaths, type HostPaths } from './host';
import { runVsCodeSession, testEnv } from './session';
import { acquireRunnerLock } from './lock';
import { REQUESTS_DIR, SUMMARY_FILE, type SuiteSummary } from './protocol';

const repo = path.resolve(__dirname, '../../..');
const outDir = path.join(repo, 'out/vscode-tests');
const lmVsix = path.join(outDir, 'docs-rag-test-lm.vsix');

interface Args {
  stages: ('dev' | 'package')[];
  skipBuild: boolean;
  vsix?: string;
  /** Dev stage only: another extension folder / test entry (for debugging the runner itself). */
  extensionPath?: string;
  tests?: string;
}

const USAGE =
  'usage: main.ts [--stage dev|package|all] [--skip-build] [--vsix <file>] [--extension-path <dir>] [--tests <bundle.js>]';

function parseArgs(argv: string[]): Args {
  let stage = 'all';
  let skipBuild = false;
  let vsix: string | undefined;
  let extensionPath: string | undefined;
  let tests: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--stage') stage = argv[++i] ?? '';
    else if (a === '--skip-build') skipBuild = true;
    else if (a === '--vsix') vsix = path.resolve(argv[++i] ?? '');
    else if (a === '--extension-path') extensionPath = path.resolve(argv[++i] ?? '');
    else if (a === '--tests') tests = path.resolve(argv[++i] ?? '');
    else throw new Error(`unknown argument ${a}; ${USAGE}`);
  }
  if (!['dev', 'package', 'all'].includes(stage)) throw new Error(`--stage must be dev, package or all (got ${stage})`);
  return { stages: stage === 'all' ? ['dev', 'package'] : [stage as 'dev' | 'package'], skipBuild, vsix, extensionPath, tests };
}

function log(msg: string): void {
  console.log(`[vscode-runner] ${msg}`);
}

function run(cmd: string, args: string[], what: string, cwd = repo): void {
  const t0 = Date.now();
  const res = spawnSync(cmd, args, { cwd, stdio: 'inherit', env: process.env });
  if (res.status !== 0) throw new Error(`${what} failed (exit ${res.status ?? res.signal}): ${cmd} ${args.join(' ')}`);
  log(`${what}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

function packageTestLm(): void {
  run(
    process.execPath,
    [
      path.join(repo, 'node_modules/@vscode/vsce/vsce'),
      'package', '--no-dependencies', '--skip-license', '--allow-missing-repository', '-o', lmVsix,
    ],
    'package the test language model',
    path.join(repo, 'test/vscode/lm-extension'),
  );
}

/** The VSIX `npm run package` writes (see scripts/vscode/package.mjs). */
function defaultVsixPath(): string {
  const pkg = JSON.parse(require('node:fs').readFileSync(path.join(repo, 'package.json'), 'utf8')) as { name: string; version: string };
  return path.join(repo, `${pkg.name}-linux-x64-${pkg.version}.vsix`);
}

interface StageResult {
  label: string;
  summary?: SuiteSummary;
  ok: boolean;
  note?: string;
}

async function runStage(paths: HostPaths, stage: 'dev' | 'package', args: Args, vsix: string | undefined): Promise<StageResult> {
  const label = stage === 'dev' ? 'vscode' : 'vscode-package';
  const resultsDir = stage === 'dev' ? path.join(repo, 'test-results') : path.join(repo, 'test-results/package');
  await fs.mkdir(resultsDir, { recursive: true });
  // Stale results must never count: drop the previous summary, requests and screenshots of this stage.
  await fs.rm(path.join(resultsDir, SUMMARY_FILE), { force: true });
  await fs.rm(path.join(resultsDir, REQUESTS_DIR), { recursive: true, force: true });
  for (const f of await fs.readdir(resultsDir)) if (f.endsWith('.png')) await fs.rm(path.join(resultsDir, f), { force: true });

  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), `docs-rag-vscode-${stage}-`));
  const workspace = path.join(tmp, 'workspace');
  await fs.cp(path.join(repo, 'test/vscode/fixtures/workspace'), workspace, { recursive: true });
  // The workspace folder lies in a repository (tmp, no rules of its own): the watcher test writes a .gitignore above it.
  await fs.mkdir(path.join(tmp, '.git'));

  const vsixes = [lmVsix];
  let testsEntry: string;
  let devPath: string;
  if (stage === 'dev') {
    devPath = args.extensionPath ?? repo;
    const suite = path.join(outDir, 'suite/index.js');
    testsEntry = args.tests ?? (existsSync(suite) ? suite : path.join(outDir, 'smoke/index.js'));
  } else {
    if (!vsix || !existsSync(vsix)) throw new Error(`the extension VSIX ${vsix} does not exist; run npm run package`);
    vsixes.push(vsix);
    // VS Code runs extensionTestsPath only in an Extension Development Host, so an empty harness extension is the
    // development extension while Docs RAG itself runs from the installed VSIX.
    devPath = path.join(repo, 'test/vscode/runner/harness-extension');
    testsEntry = path.join(outDir, 'smoke/index.js');
  }
  if (!existsSync(testsEntry)) throw new Error(`test bundle ${testsEntry} missing; run node scripts/vscode/build-tests.mjs`);
  log(`${stage}: tests ${path.relative(repo, testsEntry)}, workspace ${workspace}, extension ${stage === 'dev' ? devPath : `installed from ${path.basename(vsix!)}`}`);

  const env = testEnv(repo, resultsDir, stage, workspace);
  const t0 = Date.now();
  try {
    const timeoutMs = Number(process.env.DOCS_RAG_VSCODE_TIMEOUT_MS ?? (stage === 'dev' ? 600_000 : 300_000));
    const res = await runVsCodeSession({
      paths,
      tmp,
      vsixes,
      extensionDevelopmentPath: devPath,
      extensionTestsPath: testsEntry,
      workspace,
      resultsDir,
      env,
      timeoutMs,
    });
    log(`${stage}: VS Code exited with ${res.exitCode} after ${((Date.now() - t0) / 1000).toFixed(1)} s (${res.requestsServed} driver requests)`);
    if (res.aborted) {
      return { label, ok: false, note: `the VS Code server exited during the tests; see ${path.join(resultsDir, 'vscode-server.log')}` };
    }
    if (res.notStarted) {
      return { label, ok: false, note: `VS Code did not start the tests (no Extension Development Host window within 90 s; see ${path.join(resultsDir, 'not-started.png')})` };
    }
    if (res.timedOut) {
      return { label, ok: false, note: `timed out after ${timeoutMs / 1000} s (screenshot ${path.join(resultsDir, 'timeout.png')})` };
    }
    let summary: SuiteSummary | undefined;
    try {
      summary = JSON.parse(await fs.readFile(path.join(resultsDir, SUMMARY_FILE), 'utf8')) as SuiteSummary;
    } catch {
      return { label, ok: false, note: `no ${SUMMARY_FILE} written by the suite (exit code ${res.exitCode}); see ${resultsDir}/vscode-browser.log` };
    }
    const ok = res.exitCode === 0 && summary.failed === 0 && summary.passed > 0;
    const note = summary.passed === 0 && summary.failed === 0 ? 'no tests ran' : res.exitCode !== 0 && summary.failed === 0 ? `exit code ${res.exitCode}` : undefined;
    return { label, ok, summary, note };
  } finally {
    if (process.env.DOCS_RAG_KEEP_TMP !== '1') await fs.rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    else log(`kept ${tmp}`);
  }
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  const paths = hostPaths();
  await acquireRunnerLock(path.join(outDir, '.runner.lock'), log);
  if (!args.skipBuild) {
    run(process.execPath, ['esbuild.mjs'], 'build the extension');
    run(process.execPath, ['scripts/vscode/build-tests.mjs'], 'build the test bundles');
    packageTestLm();
  }
  const results: StageResult[] = [];
  for (const stage of args.stages) {
    try {
      let vsix = args.vsix;
      if (stage === 'package' && !vsix) {
        // After the dev stage: the production build replaces the dev bundles in dist/.
        if (!args.skipBuild) run('npm', ['run', '--silent', 'package'], 'package the extension VSIX (npm run package)');
        vsix = defaultVsixPath();
      }
      let result = await runStage(paths, stage, args, vsix);
      // No summary means the suite never reported (seen once: the server dropped the extension host connection,
      // "Unknown reconnection token"). That is the host failing, not a test: start the stage once more. A stage whose
      // tests ran and failed, or that timed out, is never retried.
      if (!result.summary && !/^timed out/.test(result.note ?? '')) {
        log(`${stage}: no test results (${result.note ?? 'unknown reason'}); starting the stage once more`);
        result = await runStage(paths, stage, args, vsix);
      }
      results.push(result);
    } catch (err) {
      results.push({ label: stage === 'dev' ? 'vscode' : 'vscode-package', ok: false, note: err instanceof Error ? err.message : String(err) });
    }
    // Print results at once: rebuilding and the next stage take a while.
    const r = results[results.length - 1];
    for (const f of r.summary?.failures ?? []) console.log(`  ✗ ${f.title}\n    ${f.error.split('\n').join('\n    ')}`);
    console.log(`${r.label}: ${r.summary?.passed ?? 0} passed, ${r.summary?.failed ?? 0} failed${r.note ? ` (${r.note})` : ''}`);
  }
  return results.every((r) => r.ok) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(`[vscode-runner] ERROR: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
