// Lazy loading of the engine: dist/engine.js (built from engineBundle.ts) holds LanceDB, the loaders, search and
// answers. It is required on first use, so activation neither parses it nor loads the native module.
import * as path from 'node:path';
import * as vscode from 'vscode';

export type EngineModules = typeof import('./engineBundle');

export const EXTENSION_ID = 'docs-rag.docs-rag';
export const ENGINE_BUNDLE = 'engine.js';

let bundleDir: string | undefined;
let loading: Promise<EngineModules> | undefined;

/** Where dist/engine.js is (set by `activate` from the extension's path). */
export function setEngineBundleDir(dir: string): void {
  bundleDir = dir;
}

function engineBundlePath(): string {
  const dir = bundleDir ?? (vscode.extensions.getExtension(EXTENSION_ID)?.extensionPath ? path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist') : __dirname);
  return path.join(dir, ENGINE_BUNDLE);
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
