// One VS Code session: fresh extensions/user/server dirs under `tmp`, VSIX installs, the server (always stopped),
// and the Chromium driver running the tests. Used by main.ts (the stages) and codeWrapper.ts (@vscode/test-electron).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { drive, type DriveResult } from './driver';
import { installVsix, registerLanguagePacks, startServer, type HostPaths } from './host';
import { testKnownModel } from './testModel';

export interface SessionOptions {
  paths: HostPaths;
  /** Empty dir for the session's extensions, user and server data. */
  tmp: string;
  /** Installed into the fresh extensions dir before the server starts. */
  vsixes: string[];
  extensionDevelopmentPath: string;
  extensionTestsPath: string;
  /** Folder VS Code opens. */
  workspace: string;
  resultsDir: string;
  /** Extra environment of the server (the extension host inherits it). */
  env: Record<string, string>;
  timeoutMs: number;
  /**
   * Display language (the server's `--locale`), e.g. 'de'. An installed VSIX must contribute it
   * (`contributes.localizations`), else VS Code stays English.
   */
  locale?: string;
}

export async function runVsCodeSession(o: SessionOptions): Promise<DriveResult> {
  const dirs = {
    extensions: path.join(o.tmp, 'extensions'),
    serverData: path.join(o.tmp, 'server-data'),
    userData: path.join(o.tmp, 'user-data'),
  };
  for (const d of Object.values(dirs)) await fs.mkdir(d, { recursive: true });
  await fs.mkdir(o.resultsDir, { recursive: true });
  for (const vsix of o.vsixes) installVsix(o.paths, vsix, dirs);
  let extraArgs: string[] = [];
  if (o.locale) {
    const languages = registerLanguagePacks(dirs);
    if (!languages.includes(o.locale)) throw new Error(`no installed VSIX contributes the display language ${o.locale} (found: ${languages.join(', ') || 'none'})`);
    extraArgs = ['--locale', o.locale];
  }
  const server = await startServer(o.paths, dirs, o.env, path.join(o.resultsDir, 'vscode-server.log'), extraArgs);
  try {
    return await drive({
      chromium: o.paths.chromium,
      origin: server.origin,
      workspace: o.workspace,
      extensionDevelopmentPath: o.extensionDevelopmentPath,
      extensionTestsPath: o.extensionTestsPath,
      resultsDir: o.resultsDir,
      browserLog: path.join(o.resultsDir, 'vscode-browser.log'),
      timeoutMs: o.timeoutMs,
      signal: server.died,
    });
  } finally {
    await server.stop();
  }
}

/** Environment of the server and so of the extension host (documented in test/vscode/README.md). */
export function testEnv(repo: string, resultsDir: string, stage: string, workspace: string): Record<string, string> {
  return {
    DOCS_RAG_TEST_RESULTS: resultsDir,
    DOCS_RAG_TEST_DRIVER: '1',
    DOCS_RAG_TEST_STAGE: stage,
    DOCS_RAG_TEST_WORKSPACE: workspace,
    DOCS_RAG_REPO: repo,
    DOCS_RAG_SHARED: process.env.DOCS_RAG_SHARED ?? path.resolve(repo, '../shared'),
    // The tiny model as a known, downloadable model (testModel.ts): the download offer's tests serve it locally.
    DOCS_RAG_TEST_KNOWN_MODELS: JSON.stringify([testKnownModel(repo)]),
  };
}
