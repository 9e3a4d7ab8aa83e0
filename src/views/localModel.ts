// `docsRag.embedder: "local"` with a known model name that is not downloaded yet: the index opens at once with the
// builtin embedder (nothing waits for the user), and a notification asks once per session whether to download the
// model; the download runs with a cancellable progress notification into VS Code's global storage, and when it is
// verified `onDownloaded` reopens the index with the local model. "Not now", a cancel or a failure leave this session
// on the builtin embedder (said in the log). A model folder (docsRag.local.modelPath) is used as it is, nothing fetched.
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { EngineConfig } from '../rag/config';
import type { EngineModules } from './engineModules';
import { errorMessage, type Log } from './log';

let declined = false;
let running: Promise<boolean> | null = null;

/** Makes `config.embed` usable: the model present, or the builtin embedder for this session. */
export function prepareLocalModel(m: EngineModules, config: EngineConfig, cacheDir: string, log: Log, onDownloaded: () => void): void {
  if (config.embed.provider !== 'local') return;
  config.embed.modelCacheDir = cacheDir;
  const name = config.embed.localModel;
  if (fs.existsSync(name)) return;
  const model = m.embed.knownModel(name);
  if (!model || m.embed.downloadedModelDir(model, cacheDir)) return; // an unknown name fails with the embedder's message
  log.warn(`local embedding model ${model.id} is not downloaded: the builtin embedder is used until it is`);
  config.embed.provider = 'builtin';
  running ??= ask(m, model, cacheDir, log)
    .then((ok) => {
      if (ok) onDownloaded();
      return ok;
    })
    .finally(() => (running = null));
}

async function ask(m: EngineModules, model: NonNullable<ReturnType<EngineModules['embed']['knownModel']>>, cacheDir: string, log: Log): Promise<boolean> {
  if (declined) return false;
  const mb = Math.round(m.embed.downloadSize(model) / 1e6);
  const download = vscode.l10n.t('Download ({0} MB)', mb);
  const choice = await vscode.window.showInformationMessage(
    vscode.l10n.t(
      'Docs RAG: semantic search with the local model {0} needs a one-time download of {1} MB (checked by SHA-256, stored in VS Code\'s global storage). Until then the built-in embedder is used.',
      model.id,
      mb,
    ),
    download,
    vscode.l10n.t('Not now'),
  );
  if (choice !== download) {
    declined = true;
    return false;
  }
  try {
    await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Docs RAG: downloading {0}', model.id), cancellable: true },
      async (progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        let shown = 0;
        await m.embed.ensureModelDownloaded(model, {
          cacheDir,
          signal: abort.signal,
          onProgress: (p) => {
            const pct = p.total ? Math.floor((p.received / p.total) * 100) : 0;
            if (pct > shown) progress.report({ increment: pct - shown, message: vscode.l10n.t('{0} of {1} MB', Math.round(p.received / 1e6), mb) });
            shown = Math.max(shown, pct);
          },
        });
      },
    );
    log.info(`local embedding model ${model.id} downloaded into ${cacheDir}`);
    return true;
  } catch (err) {
    declined = true;
    log.error(`model download failed: ${errorMessage(err)}`);
    void vscode.window.showWarningMessage(`Docs RAG: ${errorMessage(err)}`);
    return false;
  }
}
