// One engine per workspace folder (multi-root), opened lazily with its index in VS Code's workspace storage.
// Serialises index runs per folder and coalesces the requests that arrive while a run is going on.
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { IndexProgress, IndexRunResult } from '../rag/index/indexer';
import { defaultConfig, type EngineConfig } from '../rag/config';
import { lanceCpuSupport } from '../rag/store/cpu';
import { META_FILE } from '../rag/store/meta';
import { looksLikeUri, storeLocation } from '../rag/store/remote';
import type { FileRecord, IndexMeta } from '../rag/store/types';
import { errorMessage, type Log } from './log';
import { indexWorkerPath, loadEngineModules, searchWorkerPath } from './engineModules';
import type { QueuedRequest } from '../rag/index/runQueue';
import type { FolderSpec } from '../indexProcess/protocol';
import { IndexProcess } from './indexProcess';
import { SearchProcess, type ReaderEngine } from '../searchProcess/client';
import { prepareLocalModel } from './localModel';
import { readSettings } from './settings';
import { emptyIndexMessage } from './emptyIndex';

export interface FolderStatus {
  folder: vscode.WorkspaceFolder;
  storeDir: string;
  files: FileRecord[];
  passages: number;
  embedder: string;
  lastRun?: IndexMeta['lastRun'];
  error?: string;
}

export type HostState =
  | { kind: 'idle' }
  | { kind: 'indexing'; folder: string; progress?: IndexProgress }
  | { kind: 'error'; message: string };

export type RunRequest = QueuedRequest<IndexProgress>;

/** A replaced reader engine is closed this long after (reads in flight finish first). */
const RETIRED_CLOSE_MS = 30_000;

export function engineConfigFromSettings(folder: vscode.WorkspaceFolder): EngineConfig {
  const s = readSettings(folder);
  const config = defaultConfig();
  config.ingest.include = s.include;
  config.ingest.exclude = s.exclude;
  config.ingest.maxFileSizeMB = s.maxFileSizeMB;
  config.ingest.parseTimeoutMs = s.parseTimeoutSeconds * 1000;
  config.ingest.followExternalSymlinks = s.followExternalSymlinks;
  config.ingest.useIgnoreFiles = s.useIgnoreFiles;
  config.ingest.ocr = { enabled: s.ocrEnabled, languages: s.ocrLanguages, maxPages: s.ocrMaxPages };
  config.embed.provider = s.embedder;
  config.embed.model = s.ollamaEmbedModel;
  if (s.localModelPath) config.embed.localModel = s.localModelPath;
  config.embed.ollamaHost = s.ollamaHost;
  // Opt-in LLM enrichments while indexing; in Restricted Mode nothing is sent to any model.
  if (vscode.workspace.isTrusted && (s.enrichContextual || s.enrichSummaries)) {
    config.enrich = { contextual: s.enrichContextual, summaries: s.enrichSummaries, model: s.ollamaChatModel };
  }
  return config;
}

/** The folders the indexing process writes: not those that read a team's index (docsRag.store). */
const writable = (specs: FolderSpec[]) => specs.filter((s) => !looksLikeUri(s.storeDir));

/** How often the readers of team indexes (docsRag.store) take what their builders published. */
const TEAM_REFRESH_MS = 5 * 60_000;

export class EngineHost implements vscode.Disposable {
  private readonly engines = new Map<string, Promise<ReaderEngine>>();
  /** Requests sent to the indexing process and not answered yet. */
  private readonly inflight = new Set<Promise<unknown>>();
  /** Folders whose reader engine was opened before their index existed (reopened after the first run). */
  private readonly openedWithoutIndex = new Set<string>();
  /** The process that writes every index of this window. */
  readonly worker: IndexProcess;
  /** The process that reads them: searches, store reads (LanceDB never loads the extension host). */
  readonly searcher: SearchProcess;
  private readonly stateEmitter = new vscode.EventEmitter<HostState>();
  readonly onDidChangeState = this.stateEmitter.event;
  private readonly indexedEmitter = new vscode.EventEmitter<{ folder: vscode.WorkspaceFolder; result: IndexRunResult }>();
  readonly onDidIndex = this.indexedEmitter.event;
  private current: HostState = { kind: 'idle' };
  /** A settings change being applied (see reconfigure). */
  private reconfiguring: Promise<void> | null = null;
  private reconfigureAgain = false;
  private readonly modelEmitter = new vscode.EventEmitter<void>();
  /** A local embedding model was downloaded: reopen the indexes to use it. */
  readonly onDidDownloadModel = this.modelEmitter.event;
  /**
   * Why LanceDB cannot run on this processor (no AVX2/FMA), in one sentence, or undefined. Its processes would die of
   * SIGILL at the first instruction, so neither is started: indexing and search fail with this sentence instead.
   */
  readonly cpuProblem: string | undefined;
  private readonly teamRefresh: NodeJS.Timeout;

  constructor(
    private readonly storageRoot: vscode.Uri,
    private readonly log: Log,
    /** Where the local embedder's models are downloaded (VS Code's global storage). */
    private readonly modelCacheDir = path.join(storageRoot.fsPath, 'models'),
  ) {
    this.worker = new IndexProcess(indexWorkerPath(), log);
    this.worker.onDidStartRun(({ key, what }) => {
      const folder = this.folderByUri(key);
      if (!folder) return;
      this.log.info(`indexing "${folder.name}" (${what}) in the indexing process`);
      this.setState({ kind: 'indexing', folder: folder.name });
    });
    this.worker.onDidCrash(({ reason }) => this.setState({ kind: 'error', message: reason }));
    this.searcher = new SearchProcess(searchWorkerPath(), log);
    this.teamRefresh = setInterval(() => this.refreshTeamIndexes(), TEAM_REFRESH_MS);
    this.teamRefresh.unref?.();
    const { missing } = lanceCpuSupport();
    if (missing.length) {
      this.cpuProblem = vscode.l10n.t(
        'This processor lacks {0}, which the LanceDB index store needs, so Docs RAG cannot index or search on this machine.',
        missing.map((f) => f.toUpperCase()).join(', '),
      );
      this.log.error(this.cpuProblem);
      this.current = { kind: 'error', message: this.cpuProblem };
    }
  }

  get state(): HostState {
    return this.current;
  }

  folders(): readonly vscode.WorkspaceFolder[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  }

  /** The folder that holds a file, with the file's path relative to it ('/' separators). */
  locate(uri: vscode.Uri): { folder: vscode.WorkspaceFolder; rel: string } | undefined {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (!folder || folder.uri.scheme !== 'file') return undefined;
    const rel = path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join('/');
    if (!rel || rel.startsWith('..')) return undefined;
    return { folder, rel };
  }

  folderByUri(uri: string): vscode.WorkspaceFolder | undefined {
    return this.folders().find((f) => f.uri.toString() === uri);
  }

  /**
   * The team's shared index the folder reads (docsRag.store, a URI: store/remote.ts), or undefined. Such an index is
   * read-only here: the folder is neither watched nor indexed, and its reader is reopened on refreshTeamIndexes().
   */
  teamStore(folder: vscode.WorkspaceFolder): string | undefined {
    const store = readSettings(folder).store;
    return store && looksLikeUri(store) ? store : undefined;
  }

  /** Takes what the builders of the team indexes published since: the readers reopen (their small files are pulled). */
  refreshTeamIndexes(): vscode.WorkspaceFolder[] {
    const remote = this.folders().filter((f) => this.teamStore(f));
    for (const f of remote) this.reopen(f.uri.toString());
    return remote;
  }

  /**
   * Index location: a team's shared index (docsRag.store), else workspace storage (never inside the user's files), one
   * sub-folder per workspace folder.
   */
  storeDirFor(folder: vscode.WorkspaceFolder): string {
    const team = this.teamStore(folder);
    if (team) return team;
    const id = crypto.createHash('sha256').update(folder.uri.toString()).digest('hex').slice(0, 12);
    const safeName = folder.name.replace(/[^\w.-]+/g, '_').slice(0, 40);
    return path.join(this.storageRoot.fsPath, 'index', `${safeName}-${id}`);
  }

  /** The reader of a folder's index, opened in the search process on first use. */
  engine(folder: vscode.WorkspaceFolder): Promise<ReaderEngine> {
    const key = folder.uri.toString();
    if (this.cpuProblem) return Promise.reject(new Error(this.cpuProblem));
    let engine = this.engines.get(key);
    if (!engine) {
      const started = Date.now();
      engine = (async () => {
        const spec = (await this.folderSpecs()).find((s) => s.key === key);
        if (!spec) throw new Error(`${folder.name} is not a workspace folder on disk`);
        const local = storeLocation(spec.storeDir).dir;
        await vscode.workspace.fs.createDirectory(vscode.Uri.file(local));
        // A reader only: it never writes (the indexing process does), so it never waits for a running index job.
        if (!fs.existsSync(path.join(local, META_FILE))) this.openedWithoutIndex.add(key);
        const e = await this.searcher.open(spec);
        this.log.info(`engine for "${folder.name}" open in ${Date.now() - started} ms (store ${spec.storeDir}, embedder ${e.embedder.id}:${e.embedder.model})`);
        for (const w of e.warnings) this.log.warn(`${folder.name}: ${w}`);
        return e;
      })();
      engine.catch((err) => {
        this.log.error(`could not open the index of "${folder.name}": ${errorMessage(err)}`);
        if (this.engines.get(key) === engine) this.engines.delete(key);
      });
      this.engines.set(key, engine);
    }
    return engine;
  }

  /** The readers of every folder (opened on first use). */
  async openEngines(): Promise<{ folder: vscode.WorkspaceFolder; engine: ReaderEngine }[]> {
    const out: { folder: vscode.WorkspaceFolder; engine: ReaderEngine }[] = [];
    for (const folder of this.folders()) {
      try {
        out.push({ folder, engine: await this.engine(folder) });
      } catch {
        // reported in the log and in status()
      }
    }
    return out;
  }

  /**
   * Indexes a folder in the indexing process (src/views/indexProcess.ts). Runs of one folder never overlap: the child
   * keeps one queue per index, merges the requests that wait into ONE follow-up run, and each request keeps its own
   * cancellation and progress (src/rag/index/runQueue.ts). A request cancelled before its run started rejects with an
   * AbortError. The settings, trust and folders of the moment go to the child with every request.
   */
  index(folder: vscode.WorkspaceFolder, request: RunRequest = {}): Promise<IndexRunResult> {
    if (this.cpuProblem) return Promise.reject(new Error(this.cpuProblem));
    const key = folder.uri.toString();
    const run = this.folderSpecs()
      .then((specs) => {
        this.worker.configure(writable(specs));
        return this.worker.run(key, {
        full: request.full,
        paths: request.paths,
        signal: request.signal,
        onProgress: (p) => {
          this.setState({ kind: 'indexing', folder: folder.name, progress: p });
            request.onProgress?.(p);
          },
        });
      })
      .then(
        (result) => this.finished(folder, result),
        (err: unknown) => {
          const message = errorMessage(err);
          const aborted = request.signal?.aborted || (err instanceof Error && err.name === 'AbortError');
          if (aborted) this.log.info(`indexing "${folder.name}" cancelled`);
          else this.log.error(`indexing "${folder.name}" failed: ${message}`);
          this.settleState(aborted ? undefined : message);
          throw err;
        },
      );
    const tracked = run.catch(() => undefined);
    this.inflight.add(tracked);
    void tracked.then(() => this.inflight.delete(tracked));
    return run;
  }

  /** What the indexing process needs of each folder: paths, store and the engine settings (trust included). */
  async folderSpecs(): Promise<FolderSpec[]> {
    const m = await loadEngineModules();
    return this.folders().map((folder) => {
      const c = engineConfigFromSettings(folder);
      // The same embedder as the reader: the local model where it is downloaded, else builtin for this session.
      prepareLocalModel(m, c, this.modelCacheDir, readSettings(folder).localModelHost, this.log, () => this.modelDownloaded());
      return { key: folder.uri.toString(), name: folder.name, folder: folder.uri.fsPath, storeDir: this.storeDirFor(folder), config: { ingest: c.ingest, chunk: c.chunk, embed: c.embed, enrich: c.enrich } };
    });
  }

  /** A local embedding model is downloaded now: the indexes reopen to use it (onDidDownloadModel). */
  modelDownloaded(): void {
    this.modelEmitter.fire();
  }

  /** True while any folder has a run going on or waiting, or changed settings wait to be applied. */
  busy(): boolean {
    return this.inflight.size > 0 || this.reconfiguring !== null;
  }

  /** Resolves when no run is going on or waiting and no settings change is being applied (status view, tests). */
  async idle(): Promise<void> {
    while (this.inflight.size > 0 || this.reconfiguring) await Promise.all([...this.inflight, this.reconfiguring]);
  }

  private async runsIdle(): Promise<void> {
    while (this.inflight.size > 0) await Promise.all([...this.inflight]);
  }

  /**
   * Settings that change the index (or a downloaded model) take effect: once the runs going on end, the engines reopen
   * and `then` runs (the background run). Changes that arrive meanwhile are applied together, once more at the end, so a
   * burst of edits gives one reopen and one run. `idle()` waits for all of it.
   */
  reconfigure(then: () => Promise<void>): void {
    this.reconfigureAgain = true;
    this.reconfiguring ??= (async () => {
      while (this.reconfigureAgain) {
        this.reconfigureAgain = false;
        await this.reset();
        await then();
      }
    })()
      .catch((err: unknown) => this.log.error(`applying the changed settings failed: ${errorMessage(err)}`))
      .finally(() => (this.reconfiguring = null));
  }

  private async finished(folder: vscode.WorkspaceFolder, result: IndexRunResult): Promise<IndexRunResult> {
    if (result.cancelled) this.log.info(`indexing "${folder.name}" cancelled; the index keeps what was finished`);
    this.log.info(
      `indexed "${folder.name}": ${result.files} documents, ${result.chunks} passages, ${result.unchanged} unchanged, ${result.errors.length} problem(s) in ${result.ms} ms${result.reembedded ? ' (re-embedded: the embedder changed)' : ''}${result.ignored ? `; ${result.ignored} document(s)/folder(s) left out by .gitignore / .ignore files (setting docsRag.index.useIgnoreFiles)` : ''}`,
    );
    for (const e of result.errors) this.log.warn(`${folder.name}/${e.path}: ${e.reason}`);
    for (const w of result.warnings ?? []) this.log.warn(`${folder.name}: ${w}`);
    // This host's reader sees the child's commits by itself (LanceDB reads the latest version); it is reopened only when
    // it was opened before the tables existed or the child rebuilt them for another embedder.
    const key = folder.uri.toString();
    if (result.reembedded || this.openedWithoutIndex.has(key)) this.reopen(key);
    this.settleState();
    this.indexedEmitter.fire({ folder, result });
    return result;
  }

  /** Retires the reader engine of a folder: the next use opens a new one; the old one closes after in-flight reads. */
  private reopen(key: string): void {
    const old = this.engines.get(key);
    if (!old) return;
    this.engines.delete(key);
    this.openedWithoutIndex.delete(key);
    setTimeout(() => void old.then((e) => e.close()).catch(() => undefined), RETIRED_CLOSE_MS).unref();
  }

  /** After a request: idle when nothing else runs, the error when it failed. */
  private settleState(error?: string): void {
    // The finished request is still counted in `inflight` here.
    if (error) this.setState({ kind: 'error', message: error });
    else if (this.inflight.size <= 1) this.setState({ kind: 'idle' });
  }

  private setState(state: HostState): void {
    this.current = state;
    this.stateEmitter.fire(state);
  }

  async status(): Promise<FolderStatus[]> {
    const out: FolderStatus[] = [];
    for (const folder of this.folders()) {
      const storeDir = this.storeDirFor(folder);
      try {
        const engine = await this.engine(folder);
        const files = await engine.store.listFiles();
        const passages = await engine.store.countPassages();
        // As of the reads above (the reader's meta is refreshed by each answer of the search process).
        const meta = engine.store.meta();
        out.push({
          folder,
          storeDir,
          files,
          passages,
          embedder: meta ? `${meta.embedder.id}:${meta.embedder.model} (${meta.embedder.dimension} dims)` : `${engine.embedder.id}:${engine.embedder.model}`,
          lastRun: meta?.lastRun,
        });
      } catch (err) {
        out.push({ folder, storeDir, files: [], passages: 0, embedder: '', error: errorMessage(err) });
      }
    }
    return out;
  }

  /** The message for a question asked while nothing is indexed (`notYet`, unless the last runs found nothing to index). */
  async emptyIndexMessage(notYet: string): Promise<string> {
    const all = await this.status().catch(() => []);
    return emptyIndexMessage(all.map((s) => s.lastRun), notYet);
  }

  /** Total passages over all folders (0 = nothing indexed yet). */
  async passageCount(): Promise<number> {
    let n = 0;
    for (const { engine } of await this.openEngines()) n += await engine.store.countPassages();
    return n;
  }

  /** Closes every engine; the next use reopens them with the current settings (the indexing process gets them too). */
  async reset(): Promise<void> {
    await this.runsIdle();
    this.worker.configure(writable(await this.folderSpecs()));
    const engines = [...this.engines.values()];
    this.engines.clear();
    for (const e of engines) {
      try {
        await (await e).close();
      } catch {
        // already reported when it failed to open
      }
    }
  }

  dispose(): void {
    clearInterval(this.teamRefresh);
    this.worker.dispose();
    this.searcher.dispose();
    void this.reset();
    this.stateEmitter.dispose();
    this.indexedEmitter.dispose();
    this.modelEmitter.dispose();
  }
}
