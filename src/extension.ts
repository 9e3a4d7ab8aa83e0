// VS Code entry point: only wires the adapters in src/views to the engine in src/rag. The engine (and LanceDB) is
// loaded on first use, so activation stays fast.
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { DocsRagApi } from './views/api';
import { registerChatParticipant } from './views/chatParticipant';
import { registerCitationCommands } from './views/citationCommands';
import { registerCommands } from './views/commands';
import { DocsService } from './views/docsService';
import { DOCS_VIEW_ID, DocsViewProvider } from './views/docsView';
import { EngineHost } from './views/engineHost';
import { loadEngineModules, setEngineBundleDir } from './views/engineModules';
import { EXTRACT_SCHEME, ExtractedTextProvider } from './views/extractProvider';
import { IndexingController } from './views/indexing';
import { Locator } from './views/locations';
import { createLog, errorMessage } from './views/log';
import { DocsSearchTool } from './views/lmTool';
import { LocalModelOffer, OFFER_COMMAND } from './views/localModel';
import { registerMcpProvider } from './views/mcpProvider';
import { ENGINE_SETTINGS } from './views/settings';
import { IndexStatusBar } from './views/statusBar';
import { STATUS_SCHEME, StatusDocumentProvider } from './views/statusReport';
import { DocumentWatcher } from './views/watcher';

export function activate(context: vscode.ExtensionContext): DocsRagApi {
  const started = performance.now();
  setEngineBundleDir(vscode.Uri.joinPath(context.extensionUri, 'dist').fsPath);
  const log = createLog();
  const modelCacheDir = path.join(context.globalStorageUri.fsPath, 'models');
  const host = new EngineHost(context.storageUri ?? context.globalStorageUri, log, modelCacheDir);
  const modelOffer = new LocalModelOffer(context.globalState, host, log, modelCacheDir);
  const extracts = new ExtractedTextProvider(host);
  const service = new DocsService(host, new Locator(extracts), log);
  const indexing = new IndexingController(host, log);
  const watcher = new DocumentWatcher(host, log);
  const docsView = new DocsViewProvider(context.extensionUri, service, log);
  const statusDoc = new StatusDocumentProvider(host);
  context.subscriptions.push(
    log,
    host,
    extracts,
    indexing,
    watcher,
    docsView,
    new IndexStatusBar(host, log),
    vscode.workspace.registerTextDocumentContentProvider(EXTRACT_SCHEME, extracts),
    vscode.workspace.registerTextDocumentContentProvider(STATUS_SCHEME, statusDoc),
    vscode.window.registerWebviewViewProvider(DOCS_VIEW_ID, docsView, { webviewOptions: { retainContextWhenHidden: true } }),
    ...registerCommands({ service, indexing, docsView, statusDoc, log }),
    ...registerCitationCommands(extracts),
    modelOffer,
    vscode.commands.registerCommand(OFFER_COMMAND, () => modelOffer.offer()),
  );
  if (typeof vscode.chat?.createChatParticipant === 'function') context.subscriptions.push(registerChatParticipant(context, service, log));
  if (typeof vscode.lm?.registerTool === 'function') context.subscriptions.push(vscode.lm.registerTool('docs_search', new DocsSearchTool(service)));
  const mcp = registerMcpProvider(context, (folder) => host.storeDirFor(folder));

  // Never cancels a Reindex that is going on: the background run is merged with it per folder.
  const restart = (): Promise<void> => {
    watcher.start();
    return indexing.background().catch((err) => log.error(`background indexing failed: ${errorMessage(err)}`));
  };
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (ENGINE_SETTINGS.some((s) => e.affectsConfiguration(s))) {
        log.info('index settings changed: reopening the index');
        host.reconfigure(restart);
      }
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void restart()),
    host.onDidDownloadModel(() => {
      log.info('local embedding model downloaded: reopening the index');
      host.reconfigure(restart);
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => void restart()),
    // First use of a large enough index on the builtin embedder: the multilingual model is offered (once).
    host.onDidIndex(() => void modelOffer.maybeOffer().catch((err) => log.error(`offering the local model failed: ${errorMessage(err)}`))),
  );
  // Heavy work (LanceDB, the first scan) starts after activation has returned.
  const startup = new Promise<void>((resolve) => setTimeout(() => void restart().then(() => resolve()), 0));
  const activationMs = Math.round((performance.now() - started) * 10) / 10;
  const engineLoadedAtActivation = Object.keys(require.cache).some((id) => id.includes(`${'@lancedb'}/lancedb`));
  log.info(`activated in ${activationMs} ms${vscode.workspace.isTrusted ? '' : ' (Restricted Mode: no background indexing, no language models)'}`);
  return { activationMs, engineLoadedAtActivation, engineModules: loadEngineModules, host, service, docsView, watcher, indexing, modelOffer, restart, startup, mcp };
}

export function deactivate(): void {}
