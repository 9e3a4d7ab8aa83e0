// Runs the extension tests in a real VS Code (the server inside code-server, driven by headless Chromium).
//   node --import tsx test/vscode/runner/main.ts [--stage dev|de|package|all] [--skip-build] [--vsix <file>]
//     [--extension-path <dir>] [--tests <bundle.js>]   (the last two: dev stage, for debugging the runner itself)
// Stage "dev": the extension from this repo (extensionDevelopmentPath) with D2's suites
//   (out/vscode-tests/suite/index.js; the smoke suite when D2's entry does not exist yet), then the German pass.
// Stage "de" (the German pass, also run by "dev"): the same extension and suite bundle in a VS Code started with the
//   display language German (--locale de, the test language pack test/vscode/langpack-de installed); the suite entry
//   runs only test/vscode/suite/german.test.ts there. Results in test-results/de/.
// Stage "package": builds the platform VSIX (npm run package), installs it into a clean extensions dir and runs
//   the smoke suite against the INSTALLED extension (no extensionDevelopmentPath).
// Every stage installs the deterministic test language model (test/vscode/lm-extension) as a VSIX.
// Prints `vscode: N passed, N failed` (and `vscode-de: ...`, `vscode-package: ...`), exits non-zero on any failure.
import { spawnSync } from 'node:child_process';
import { promises as fs, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hostPaths, type HostPaths } from './host';
import { runVsCodeSession, testEnv } from './session';
import { acquireRunnerLock } from './lock';
import { startTestS3 } from './s3';
import { REQUESTS_DIR, SUMMARY_FILE, type SuiteSummary } from './protocol';

const repo = path.resolve(__dirname, '../../..');
const outDir = path.join(repo, 'out/vscode-tests');
const lmVsix = path.join(outDir, 'docs-rag-test-lm.vsix');
const langpackDeVsix = path.join(outDir, 'docs-rag-test-langpack-de.vsix');
/** The German suite's title (test/vscode/suite/german.test.ts): DOCS_RAG_TEST_GREP runs the German pass only if it matches. */
const GERMAN_SUITE = 'German display language';

type Stage = 'dev' | 'de' | 'package';

interface Args {
  stages: Stage[];
  skipBuild: boolean;
  vsix?: string;
  /** Dev stage only: another extension folder / test entry (for debugging the runner itself). */
  extensionPath?: string;
  tests?: string;
}

const USAGE =
  'usage: main.ts [--stage dev|de|package|all] [--skip-build] [--vsix <file>] [--extension-path <dir>] [--tests <bundle.js>]';

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
  if (!['dev', 'de', 'package', 'all'].includes(stage)) throw new Error(`--stage must be dev, de, package or all (got ${stage})`);
  // "dev" includes the German pass; it runs before "package", whose production build replaces the dev bundles in dist/.
  const stages: Stage[] = stage === 'all' ? ['dev', 'de', 'package'] : stage === 'dev' ? ['dev', 'de'] : [stage as Stage];
  return { stages, skipBuild, vsix, extensionPath, tests };
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

function packageTestExtension(dir: string, vsix: string, what: string): void {
  run(
    process.execPath,
    [
      path.join(repo, 'node_modules/@vscode/vsce/vsce'),
      'package', '--no-dependencies', '--skip-license', '--allow-missing-repository', '-o', vsix,
    ],
    what,
    path.join(repo, dir),
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

function stageLabel(stage: Stage): string {
  return stage === 'dev' ? 'vscode' : `vscode-${stage}`;
}

async function runStage(paths: HostPaths, stage: Stage, args: Args, vsix: string | undefined): Promise<StageResult> {
  const label = stageLabel(stage);
  const resultsDir = stage === 'dev' ? path.join(repo, 'test-results') : path.join(repo, 'test-results', stage);
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
  } else if (stage === 'de') {
    // The repo's extension and the suite bundle; the test language pack makes German an installed display language.
    vsixes.push(langpackDeVsix);
    devPath = repo;
    testsEntry = path.join(outDir, 'suite/index.js');
  } else {
    if (!vsix || !existsSync(vsix)) throw new Error(`the extension VSIX ${vsix} does not exist; run npm run package`);
    vsixes.push(vsix);
    // VS Code runs extensionTestsPath only in an Extension Development Host, so an empty harness extension is the
    // development extension while Docs RAG itself runs from the installed VSIX.
    devPath = path.join(repo, 'test/vscode/runner/harness-extension');
    testsEntry = path.join(outDir, 'smoke/index.js');
  }
  if (!existsSync(testsEntry)) throw new Error(`test bundle ${testsEntry} missing; run node scripts/vscode/build-tests.mjs`);
  log(`${stage}: tests ${path.relative(repo, testsEntry)}, workspace ${workspace}, extension ${stage === 'package' ? `installed from ${path.basename(vsix!)}` : devPath}${stage === 'de' ? ', display language de' : ''}`);

  const env = testEnv(repo, resultsDir, stage, workspace);
  // The suite entry loads only the German suite in this pass (test/vscode/suite/index.ts).
  if (stage === 'de') env.DOCS_RAG_TEST_PASS = 'de';
  // The team-index suite's object storage (dev stage only: the other passes do not run that suite).
  const s3 = stage === 'dev' ? await startTestS3(tmp) : null;
  Object.assign(env, s3?.env);
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
      locale: stage === 'de' ? 'de' : undefined,
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
    await s3?.close();
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
    packageTestExtension('test/vscode/lm-extension', lmVsix, 'package the test language model');
    packageTestExtension('test/vscode/langpack-de', langpackDeVsix, 'package the test German language pack');
  }
  const results: StageResult[] = [];
  for (const stage of args.stages) {
    const grep = process.env.DOCS_RAG_TEST_GREP;
    if (stage === 'de' && grep && !new RegExp(grep).test(GERMAN_SUITE)) {
      log(`de: skipped (DOCS_RAG_TEST_GREP=${grep} does not match "${GERMAN_SUITE}")`);
      continue;
    }
    if (stage === 'de' && (args.tests || args.extensionPath)) {
      log('de: skipped (--tests / --extension-path debug the runner with the dev stage only)');
      continue;
    }
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
      results.push({ label: stageLabel(stage), ok: false, note: err instanceof Error ? err.message : String(err) });
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
