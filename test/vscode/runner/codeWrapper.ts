// A "VS Code executable" for @vscode/test-electron: runTests({vscodeExecutablePath: 'test/vscode/runner/code.sh', ...})
// spawns it with VS Code's command line (`<folder> --extensionDevelopmentPath=… --extensionTestsPath=… --user-data-dir=…`);
// it runs those tests in the offline VS Code server + headless Chromium and exits with VS Code's test exit code.
// Env: DOCS_RAG_INSTALL_VSIX (extra VSIX files, ':'-separated; the test LM VSIX is installed when it was built),
// DOCS_RAG_TEST_RESULTS (default <repo>/test-results), DOCS_RAG_VSCODE_TIMEOUT_MS (default 600 s).
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hostPaths } from './host';
import { acquireRunnerLock } from './lock';
import { runVsCodeSession, testEnv } from './session';

const repo = path.resolve(__dirname, '../../..');

export interface VsCodeCommandLine {
  folder?: string;
  extensionDevelopmentPath?: string;
  extensionTestsPath?: string;
}

/** The parts of VS Code's command line that matter here; everything else (sandbox, profile flags) is ignored. */
export function parseVsCodeArgs(argv: string[]): VsCodeCommandLine {
  const out: VsCodeCommandLine = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const m = /^--([\w-]+)(?:=(.*))?$/.exec(a);
    if (!m) {
      out.folder ??= path.resolve(a);
      continue;
    }
    const [, key, inline] = m;
    if (key !== 'extensionDevelopmentPath' && key !== 'extensionTestsPath') continue;
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`--${key} needs a value`);
    if (key === 'extensionDevelopmentPath') {
      if (out.extensionDevelopmentPath) throw new Error('only one --extensionDevelopmentPath is supported by the VS Code server');
      out.extensionDevelopmentPath = path.resolve(value);
    } else {
      out.extensionTestsPath = path.resolve(value);
    }
  }
  return out;
}

/** runTests passes a folder or module path for extensionTestsPath; VS Code loads `<dir>/index.js` for a folder. */
async function resolveTestsEntry(p: string): Promise<string> {
  const st = await fs.stat(p).catch(() => undefined);
  if (st?.isDirectory()) return path.join(p, 'index.js');
  if (!st && existsSync(`${p}.js`)) return `${p}.js`;
  return p;
}

async function main(): Promise<number> {
  const cl = parseVsCodeArgs(process.argv.slice(2));
  if (!cl.extensionTestsPath) throw new Error('no --extensionTestsPath given: this wrapper only runs extension tests');
  const paths = hostPaths();
  await acquireRunnerLock(path.join(repo, 'out/vscode-tests/.runner.lock'), (m) => console.log(`[code-wrapper] ${m}`));
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-rag-vscode-wrapper-'));
  try {
    let workspace = cl.folder;
    if (!workspace) {
      workspace = path.join(tmp, 'workspace');
      await fs.cp(path.join(repo, 'test/vscode/fixtures/workspace'), workspace, { recursive: true });
    }
    const resultsDir = process.env.DOCS_RAG_TEST_RESULTS ?? path.join(repo, 'test-results');
    const vsixes = (process.env.DOCS_RAG_INSTALL_VSIX ?? '').split(':').filter(Boolean);
    const lm = path.join(repo, 'out/vscode-tests/docs-rag-test-lm.vsix');
    if (existsSync(lm) && !vsixes.includes(lm)) vsixes.unshift(lm);
    const res = await runVsCodeSession({
      paths,
      tmp,
      vsixes,
      extensionDevelopmentPath: cl.extensionDevelopmentPath ?? path.join(repo, 'test/vscode/runner/harness-extension'),
      extensionTestsPath: await resolveTestsEntry(cl.extensionTestsPath),
      workspace,
      resultsDir,
      env: testEnv(repo, resultsDir, process.env.DOCS_RAG_TEST_STAGE ?? 'dev', workspace),
      timeoutMs: Number(process.env.DOCS_RAG_VSCODE_TIMEOUT_MS ?? 600_000),
    });
    if (res.notStarted) console.error('[code-wrapper] VS Code did not open an Extension Development Host; the tests never started');
    if (res.timedOut) console.error('[code-wrapper] the tests timed out');
    if (res.aborted) console.error('[code-wrapper] the VS Code server exited during the tests');
    console.log(`[code-wrapper] VS Code tests exited with ${res.exitCode}`);
    return res.exitCode;
  } finally {
    await fs.rm(tmp, { recursive: true, force: true }).catch(() => undefined);
  }
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (err: unknown) => {
      console.error(`[code-wrapper] ERROR: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
