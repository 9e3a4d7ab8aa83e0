// The local embedding model in VS Code: its download with a cancellable progress notification, in two situations.
//
// 1. The offer (LocalModelOffer). A workspace on the default builtin embedder (docsRag.embedder never set) whose index
//    reaches OFFER_MIN_PASSAGES passages is offered, once after an index run, "Download the multilingual search model
//    (about 135 MB, once)". Accepted: the model is downloaded into VS Code's global storage and the workspace setting
//    docsRag.embedder becomes "local" — the index reopens and fills the vectors in the background while keyword search
//    keeps working. "Not now" (or closing the notification) or a cancel: not offered again in this session. "Never ask
//    again", or a failed download (offline): remembered in globalState, never offered by itself again. The command
//    "Docs RAG: Download the multilingual search model" offers it at any time.
// 2. docsRag.embedder "local" set by the user with a known model name that is not downloaded yet (prepareLocalModel):
//    the index opens at once with the builtin embedder (nothing waits for the user), a notification asks once per
//    session, and when the model is verified `onDownloaded` reopens the index with it. A model folder
//    (docsRag.local.modelPath) is used as it is, nothing fetched.
//
// Downloads come from the model's pinned base, or from the mirror in docsRag.local.modelHost; every file is checked
// against its pinned size and SHA-256 (src/rag/embed/modelDownload.ts), so a mirror cannot change what is loaded.
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { DEFAULT_LOCAL_MODEL, type EngineConfig } from '../rag/config';
import type { KnownModel } from '../rag/embed/localModels';
import type { EngineHost } from './engineHost';
import { loadEngineModules, type EngineModules } from './engineModules';
import { errorMessage, type Log } from './log';
import { readSettings } from './settings';

/** Passages from which a workspace on the default builtin embedder is offered the multilingual model. */
export const OFFER_MIN_PASSAGES = 300;
/** globalState key: true once the user chose "Never ask again" or the offered download failed. */
export const NEVER_OFFER_KEY = 'docsRag.localModelOffer.never';
/** The command that offers the model at any time. */
export const OFFER_COMMAND = 'docsRag.offerLocalModel';

/** "135 MB", or kB below one MB. */
export function sizeText(bytes: number): string {
  return bytes >= 1e6 ? `${Math.round(bytes / 1e6)} MB` : `${Math.max(1, Math.round(bytes / 1e3))} kB`;
}

/** The first sentence of a message (a downloader error goes on with fixes meant for the CLI). */
function firstSentence(text: string): string {
  const end = /[.!?](\s|$)/.exec(text);
  return end ? text.slice(0, end.index + 1) : text;
}

const isCancel = (err: unknown) => (err as { kind?: string } | undefined)?.kind === 'cancelled';

/** Downloads `model` (resuming a part already there) with a cancellable progress notification; its folder. */
function downloadWithProgress(
  m: EngineModules,
  model: KnownModel,
  o: { cacheDir: string; host: string; title: string; onPercent?: (pct: number) => void },
): Promise<string> {
  return Promise.resolve(
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: o.title, cancellable: true }, async (progress, token) => {
      const abort = new AbortController();
      const sub = token.onCancellationRequested(() => abort.abort());
      const total = sizeText(m.embed.downloadSize(model));
      let shown = 0;
      try {
        return await m.embed.ensureModelDownloaded(model, {
          cacheDir: o.cacheDir,
          host: o.host || undefined,
          signal: abort.signal,
          onProgress: (p) => {
            const pct = p.total ? Math.floor((p.received / p.total) * 100) : 0;
            if (pct <= shown) return;
            progress.report({ increment: pct - shown, message: vscode.l10n.t('{0} of {1}', sizeText(p.received), total) });
            shown = pct;
            o.onPercent?.(pct);
          },
        });
      } finally {
        sub.dispose();
      }
    }),
  );
}

let declined = false;
let running: Promise<boolean> | null = null;

/** Makes `config.embed` usable: the model present, or the builtin embedder for this session. */
export function prepareLocalModel(m: EngineModules, config: EngineConfig, cacheDir: string, modelHost: string, log: Log, onDownloaded: () => void): void {
  if (config.embed.provider !== 'local') return;
  config.embed.modelCacheDir = cacheDir;
  const name = config.embed.localModel;
  if (fs.existsSync(name)) return;
  const model = m.embed.knownModel(name);
  if (!model || m.embed.downloadedModelDir(model, cacheDir)) return; // an unknown name fails with the embedder's message
  log.warn(`local embedding model ${model.id} is not downloaded: the builtin embedder is used until it is`);
  config.embed.provider = 'builtin';
  running ??= ask(m, model, cacheDir, modelHost, log)
    .then((ok) => {
      if (ok) onDownloaded();
      return ok;
    })
    .finally(() => (running = null));
}

async function ask(m: EngineModules, model: KnownModel, cacheDir: string, host: string, log: Log): Promise<boolean> {
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
    await downloadWithProgress(m, model, { cacheDir, host, title: vscode.l10n.t('Docs RAG: downloading {0}', model.id) });
    log.info(`local embedding model ${model.id} downloaded into ${cacheDir}`);
    return true;
  } catch (err) {
    declined = true;
    log.error(`model download failed: ${errorMessage(err)}`);
    void vscode.window.showWarningMessage(`Docs RAG: ${errorMessage(err)}`);
    return false;
  }
}

export type OfferOutcome = 'switched' | 'declined' | 'never' | 'cancelled' | 'failed' | 'no-folder';

/** What the offer does, as it happens (the extension tests follow it). */
export type OfferEvent =
  | { kind: 'offered'; model: string; auto: boolean }
  | { kind: 'progress'; percent: number }
  | { kind: 'done'; outcome: OfferOutcome };

/** Whether the user (or a workspace) set docsRag.embedder anywhere: then the offer stays away. */
function embedderChosen(folder: vscode.WorkspaceFolder): boolean {
  const i = vscode.workspace.getConfiguration('docsRag', folder).inspect('embedder');
  return [i?.globalValue, i?.workspaceValue, i?.workspaceFolderValue].some((v) => v !== undefined);
}

/** The command's title as messages name it. */
const commandTitle = () => vscode.l10n.t('Docs RAG: Download the multilingual search model');

export class LocalModelOffer implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<OfferEvent>();
  readonly onDidChange = this.emitter.event;
  private declinedThisSession = false;
  private current: Promise<OfferOutcome> | null = null;

  constructor(
    /** VS Code's globalState: "never ask again" holds across workspaces and sessions. */
    private readonly memento: vscode.Memento,
    private readonly host: EngineHost,
    private readonly log: Log,
    /** Where models are downloaded (VS Code's global storage), as for prepareLocalModel. */
    readonly cacheDir: string,
  ) {}

  /** True once the offer is not to come by itself any more ("Never ask again", or the download failed). */
  get neverAsk(): boolean {
    return this.memento.get<boolean>(NEVER_OFFER_KEY) === true;
  }

  /** The offer being shown or downloading, if any. */
  get pending(): Promise<OfferOutcome> | undefined {
    return this.current ?? undefined;
  }

  /** Forgets every answer, this session's and the remembered one, as in a new VS Code profile (the extension tests). */
  async forgetAnswers(): Promise<void> {
    this.declinedThisSession = false;
    await this.memento.update(NEVER_OFFER_KEY, undefined);
  }

  /**
   * After an index run: offers the model when the workspace is on the default builtin embedder, has at least
   * OFFER_MIN_PASSAGES passages, and the user has not answered "Not now" in this session or "Never ask again".
   */
  async maybeOffer(): Promise<OfferOutcome | undefined> {
    if (!this.mayAsk()) return undefined;
    const folders = this.host.folders();
    if (!folders.length || folders.some(embedderChosen)) return undefined;
    // A model folder or an unknown name set for later use: the user has a plan of their own.
    const m = await loadEngineModules();
    if (!this.modelFor(m, folders[0])) return undefined;
    const passages = await this.host.passageCount().catch(() => 0);
    if (passages < OFFER_MIN_PASSAGES || !this.mayAsk()) return undefined;
    this.log.info(`the index has ${passages} passages on the builtin embedder: offering the multilingual search model`);
    return this.offer(true);
  }

  /** Shows the offer (the command: whatever was answered before); one offer at a time. */
  offer(auto = false): Promise<OfferOutcome> {
    this.current ??= this.run(auto).finally(() => (this.current = null));
    return this.current;
  }

  private mayAsk(): boolean {
    return !this.current && !this.declinedThisSession && !this.neverAsk && vscode.workspace.isTrusted;
  }

  /** The known model named by docsRag.local.modelPath, else the default one; undefined for a folder or an unknown name. */
  private modelFor(m: EngineModules, folder: vscode.WorkspaceFolder): KnownModel | undefined {
    const name = readSettings(folder).localModelPath;
    return m.embed.knownModel(name || DEFAULT_LOCAL_MODEL);
  }

  private done(outcome: OfferOutcome): OfferOutcome {
    this.emitter.fire({ kind: 'done', outcome });
    return outcome;
  }

  private async run(auto: boolean): Promise<OfferOutcome> {
    const folder = this.host.folders()[0];
    if (!folder) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Docs RAG: open a folder first; its documents are indexed.'));
      return this.done('no-folder');
    }
    const m = await loadEngineModules();
    const model = this.modelFor(m, folder) ?? m.embed.knownModel(DEFAULT_LOCAL_MODEL)!;
    this.emitter.fire({ kind: 'offered', model: model.id, auto });
    const download = vscode.l10n.t('Download');
    const notNow = vscode.l10n.t('Not now');
    const never = vscode.l10n.t('Never ask again');
    const choice = await vscode.window.showInformationMessage(
      vscode.l10n.t(
        'Docs RAG: download the multilingual search model (about {0}, once)? Search then also finds passages by meaning, in German and English. Keyword search keeps working meanwhile.',
        sizeText(m.embed.downloadSize(model)),
      ),
      download,
      notNow,
      ...(auto ? [never] : []),
    );
    if (choice === never) {
      await this.memento.update(NEVER_OFFER_KEY, true);
      this.log.info(`multilingual search model: never offered again (the command "${commandTitle()}" offers it)`);
      return this.done('never');
    }
    if (choice !== download) {
      this.declinedThisSession = true;
      this.log.info('multilingual search model: not now (not offered again in this session)');
      return this.done('declined');
    }
    try {
      if (!m.embed.downloadedModelDir(model, this.cacheDir)) {
        await downloadWithProgress(m, model, {
          cacheDir: this.cacheDir,
          host: readSettings(folder).localModelHost,
          title: vscode.l10n.t('Docs RAG: downloading the multilingual search model'),
          onPercent: (percent) => this.emitter.fire({ kind: 'progress', percent }),
        });
        this.log.info(`local embedding model ${model.id} downloaded into ${this.cacheDir}`);
      }
    } catch (err) {
      if (isCancel(err)) {
        this.declinedThisSession = true;
        this.log.info(`download of ${model.id} cancelled: the builtin embedder stays; the part received is kept`);
        void vscode.window.showInformationMessage(
          vscode.l10n.t('Docs RAG: download cancelled. Search stays with the built-in embedder; "{0}" continues the download later.', commandTitle()),
        );
        return this.done('cancelled');
      }
      await this.memento.update(NEVER_OFFER_KEY, true);
      this.log.error(`download of ${model.id} failed, the builtin embedder stays: ${errorMessage(err)}`);
      void vscode.window.showWarningMessage(
        vscode.l10n.t(
          'Docs RAG: the multilingual search model could not be downloaded: {0} Search stays with the built-in embedder and this is not asked again; run "{1}" when the machine is online.',
          firstSentence(errorMessage(err)),
          commandTitle(),
        ),
      );
      return this.done('failed');
    }
    const config = vscode.workspace.getConfiguration('docsRag');
    const wasLocal = readSettings(folder).embedder === 'local';
    await config.update('embedder', 'local', vscode.ConfigurationTarget.Workspace);
    // Already "local" (waiting for this download): no settings change reopens the index, so say that the model is here.
    if (wasLocal) this.host.modelDownloaded();
    this.log.info(`multilingual search model ${model.id}: docsRag.embedder is "local" in this workspace; vectors are filled in the background`);
    void vscode.window.showInformationMessage(
      vscode.l10n.t('Docs RAG: the multilingual search model is used in this workspace from now on. Its vectors are filled in the background; keyword search keeps working meanwhile.'),
    );
    return this.done('switched');
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
