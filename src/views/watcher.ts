// Watches the documents (include globs of every workspace folder) and feeds debounced, coalesced incremental updates
// to the index. A burst of thousands of events becomes one run per folder; events never block the editor.
import picomatch from 'picomatch';
import * as vscode from 'vscode';
import type { EngineHost } from './engineHost';
import { errorMessage, type Log } from './log';
import { readSettings } from './settings';

export interface WatcherOptions {
  /** Quiet time before a run starts. */
  debounceMs: number;
  /** Longest a change waits while events keep coming. */
  maxWaitMs: number;
}

interface Pending {
  paths: Set<string>;
  timer?: NodeJS.Timeout;
  firstAt: number;
}

export class DocumentWatcher implements vscode.Disposable {
  private watchers: vscode.Disposable[] = [];
  private readonly pending = new Map<string, Pending>();
  private matchers = new Map<string, (rel: string) => boolean>();
  private excluders = new Map<string, (rel: string) => boolean>();
  private readonly runsEmitter = new vscode.EventEmitter<{ folder: string; paths: number }>();
  /** Fires when the watcher hands a batch to the indexer (for the log and tests). */
  readonly onDidQueue = this.runsEmitter.event;

  constructor(
    private readonly host: EngineHost,
    private readonly log: Log,
    private readonly options: WatcherOptions = { debounceMs: 400, maxWaitMs: 3000 },
  ) {}

  /** (Re)creates the file system watchers for the current folders and settings. */
  start(): void {
    this.stop();
    for (const folder of this.host.folders()) {
      const s = readSettings(folder);
      const include = picomatch(s.include, { dot: true });
      const exclude = picomatch(s.exclude, { dot: true });
      this.matchers.set(folder.uri.toString(), (rel) => include(rel) && !exclude(rel));
      this.excluders.set(folder.uri.toString(), exclude);
      for (const glob of s.include) {
        const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, glob));
        const on = (uri: vscode.Uri) => this.onEvent(uri);
        this.watchers.push(w, w.onDidCreate(on), w.onDidChange(on), w.onDidDelete(on));
      }
      // Folders: a deleted or moved-in folder may come as one event for the folder, not one per document.
      const dirs = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, '**/*'), false, true, false);
      this.watchers.push(
        dirs,
        dirs.onDidDelete((uri) => this.onFolderEvent(uri, 'delete')),
        dirs.onDidCreate((uri) => this.onFolderEvent(uri, 'create')),
      );
    }
  }

  private stop(): void {
    this.watchers.forEach((w) => w.dispose());
    this.watchers = [];
    this.matchers.clear();
    this.excluders.clear();
  }

  private onEvent(uri: vscode.Uri): void {
    if (!vscode.workspace.isTrusted) return;
    const where = this.host.locate(uri);
    if (!where) return;
    const key = where.folder.uri.toString();
    if (!this.matchers.get(key)?.(where.rel)) return;
    this.queue(key, where.rel);
  }

  /** A path that is not a document: when it is (or was) a folder, its documents are looked at as one hint. */
  private async onFolderEvent(uri: vscode.Uri, kind: 'create' | 'delete'): Promise<void> {
    if (!vscode.workspace.isTrusted) return;
    const where = this.host.locate(uri);
    if (!where) return;
    const key = where.folder.uri.toString();
    if (this.matchers.get(key)?.(where.rel)) return; // a document: handled by the include watchers
    if (this.excluders.get(key)?.(where.rel) || this.excluders.get(key)?.(`${where.rel}/x`)) return;
    if (kind === 'delete') {
      // Deleted: we cannot stat it any more; folder names rarely carry an extension, other files always do here.
      if (/\.[^/]+$/.test(where.rel)) return;
    } else {
      try {
        if ((await vscode.workspace.fs.stat(uri)).type !== vscode.FileType.Directory) return;
      } catch {
        return;
      }
    }
    this.queue(key, where.rel);
  }

  private queue(key: string, rel: string): void {
    let p = this.pending.get(key);
    if (!p) {
      p = { paths: new Set(), firstAt: Date.now() };
      this.pending.set(key, p);
    }
    p.paths.add(rel);
    if (p.timer) clearTimeout(p.timer);
    const wait = Math.max(0, Math.min(this.options.debounceMs, p.firstAt + this.options.maxWaitMs - Date.now()));
    p.timer = setTimeout(() => this.flush(key), wait);
  }

  private flush(key: string): void {
    const p = this.pending.get(key);
    this.pending.delete(key);
    const folder = this.host.folderByUri(key);
    if (!p || !folder) return;
    const paths = [...p.paths];
    this.log.info(`watcher: ${paths.length} changed document(s) in "${folder.name}"`);
    this.runsEmitter.fire({ folder: folder.name, paths: paths.length });
    this.host.index(folder, { paths }).catch((err) => this.log.error(`watcher update of "${folder.name}" failed: ${errorMessage(err)}`));
  }

  /** True while changes wait for their debounce. */
  hasPending(): boolean {
    return this.pending.size > 0;
  }

  dispose(): void {
    this.stop();
    for (const p of this.pending.values()) if (p.timer) clearTimeout(p.timer);
    this.pending.clear();
    this.runsEmitter.dispose();
  }
}
