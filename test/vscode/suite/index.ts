// Entry of the extension test suites, run INSIDE the real VS Code extension host (VS Code calls run()).
// Bundled by scripts/vscode/build-tests.mjs into out/vscode-tests/suite/index.js. Writes the JSON summary
// `{passed, failed, failures}` to <DOCS_RAG_TEST_RESULTS or <repo>/test-results>/vscode-summary.json.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import Mocha from 'mocha';
import { testResultsDir } from '../runner/driverClient';
import { SUMMARY_FILE, type SuiteSummary } from '../runner/protocol';

export async function run(): Promise<void> {
  // DOCS_RAG_TEST_GREP (in the runner's environment) runs only the matching tests, e.g. while working on one suite.
  const mocha = new Mocha({ ui: 'bdd', timeout: 120_000, color: false, reporter: 'spec', grep: process.env.DOCS_RAG_TEST_GREP || undefined });
  // Define describe/it as globals, then load the spec modules in order (require keeps them lazy so the globals exist).
  mocha.suite.emit('pre-require', globalThis, 'docs-rag', mocha);
  if (process.env.DOCS_RAG_TEST_PASS === 'de') {
    // The runner's German pass (VS Code started with --locale de): only the suite that checks the German UI.
    require('./german.test');
  } else {
    require('./activation.test');
    require('./protocol.test');
    require('./indexing.test');
    require('./indexProcess.test');
    require('./searchProcess.test');
    require('./citations.test');
    require('./chat.test');
    require('./tool.test');
    require('./mcp.test');
    require('./webview.test');
    require('./multiroot.test');
    require('./ollama.test');
    require('./localEmbedder.test');
    require('./modelOffer.test');
    require('./watcher.test');
    require('./settings.test');
    require('./team.test');
  }

  const summary: SuiteSummary = { passed: 0, failed: 0, failures: [] };
  await new Promise<void>((resolve) => {
    const runner = mocha.run(() => resolve());
    runner.on('pass', () => summary.passed++);
    runner.on('fail', (test, err: unknown) => {
      summary.failed++;
      const e = err as { stack?: string; message?: string };
      summary.failures.push({ title: test.fullTitle(), error: e?.stack ?? e?.message ?? String(err) });
    });
  });
  const dir = testResultsDir();
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, SUMMARY_FILE), JSON.stringify(summary, null, 2));
  if (summary.failed > 0) throw new Error(`${summary.failed} extension test(s) failed`);
}
