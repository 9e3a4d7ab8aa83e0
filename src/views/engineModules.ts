// Lazy loading of the engine parts the extension host runs itself: dist/engine.js (built from engineBundle.ts) holds the
// answer stage, the chat adapters and the embedders' model download, no LanceDB. It is required on first use, so
// activation does not parse it. Searches and store reads run in the search process (dist/searchWorker.js), index
// writes in the indexing process (dist/indexWorker.js).
import * as path from 'node:path';
import * as vscode from 'vscode';

export type EngineModules = typeof import('./engineBundle');

export const EXTENSION_ID = 'docs-rag.docs-rag';
export const ENGINE_BUNDLE = 'engine.js';
/** The indexing process's entry (src/indexProcess/main.ts), forked by indexProcess.ts. */
export const INDEX_WORKER_BUNDLE = 'indexWorker.js';
/** The extension's search process's entry (src/searchProcess/main.ts), forked by src/searchProcess/client.ts. */
export const SEARCH_WORKER_BUNDLE = 'searchWorker.js';

let bundleDir: string | undefined;
let loading: Promise<EngineModules> | undefined;

/** Where dist/engine.js is (set by `activate` from the extension's path). */
export function setEngineBundleDir(dir: string): void {
  bundleDir = dir;
}

function distDir(): string {
  return bundleDir ?? (vscode.extensions.getExtension(EXTENSION_ID)?.extensionPath ? path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist') : __dirname);
}

function engineBundlePath(): string {
  return path.join(distDir(), ENGINE_BUNDLE);
}

export function indexWorkerPath(): string {
  return path.join(distDir(), INDEX_WORKER_BUNDLE);
}

export function searchWorkerPath(): string {
  return path.join(distDir(), SEARCH_WORKER_BUNDLE);
}

export function loadEngineModules(): Promise<EngineModules> {
  loading ??= Promise.resolve().then(() => {
    const file = engineBundlePath();
    // A runtime path: the bundler leaves this require alone, so the engine stays in its own file.
    return require(file) as EngineModules;
  });
  loading.catch(() => (loading = undefined));
  return loading;
}
