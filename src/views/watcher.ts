// Watches the documents (the engine's path filter of every workspace folder) and feeds debounced, coalesced incremental updates
// to the index. A burst of thousands of events becomes one run per folder; events never block the editor.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { createPathFilter, type PathFilter } from '../rag/index/pathFilter';
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
  /** An ignore file changed: the whole folder is walked again (what it ignores may be indexed or not any more). */
  walk?: boolean;
  timer?: NodeJS.Timeout;
  firstAt: number;
}

export class DocumentWatcher implements vscode.Disposable {
  private watchers: vscode.Disposable[] = [];
  private readonly pending = new Map<string, Pending>();
  private readonly filters = new Map<string, PathFilter>();
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
    // Nothing can be indexed on a processor LanceDB cannot run on (the host says why once).
    if (this.host.cpuProblem) return;
    // A team's shared index (docsRag.store) is read-only here: its folder is not watched.
    for (const folder of this.host.folders().filter((f) => !this.host.teamStore(f))) {
      const filter = this.setFilter(folder);
      // One watcher for everything under the folder: VS Code's glob watchers match case-sensitively on Linux, and a
      // deleted or moved-in folder may come as one event for the folder, not one per document.
      const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, '**/*'));
      this.watchers.push(
        w,
        w.onDidCreate((uri) => void this.onEvent(uri, 'create')),
        w.onDidChange((uri) => void this.onEvent(uri, 'change')),
        w.onDidDelete((uri) => void this.onEvent(uri, 'delete')),
      );
      // The ignore files above the folder, up to its repository's root (one non-recursive watcher each).
      for (const file of filter.parentIgnoreFiles) {
        const p = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(path.dirname(file)), path.basename(file)));
        const changed = () => this.onParentIgnoreFile(folder, file);
        this.watchers.push(p, p.onDidCreate(changed), p.onDidChange(changed), p.onDidDelete(changed));
      }
    }
  }

  /** An ignore file above the folder changed: new rules, and the whole folder is walked again. */
  private onParentIgnoreFile(folder: vscode.WorkspaceFolder, file: string): void {
    if (!vscode.workspace.isTrusted || !this.filters.has(folder.uri.toString())) return;
    this.setFilter(folder);
    this.queue(folder.uri.toString(), file, true);
  }

  /** The engine's filter: the same files as the walker selects (include globs case-insensitive, excludes, store, ignore files). */
  private setFilter(folder: vscode.WorkspaceFolder): PathFilter {
    const s = readSettings(folder);
    const filter = createPathFilter(folder.uri.fsPath, { include: s.include, exclude: s.exclude, storeDir: this.host.storeDirFor(folder), useIgnoreFiles: s.useIgnoreFiles });
    this.filters.set(folder.uri.toString(), filter);
    return filter;
  }

  private stop(): void {
    this.watchers.forEach((w) => w.dispose());
    this.watchers = [];
    this.filters.clear();
  }

  private async onEvent(uri: vscode.Uri, kind: 'create' | 'change' | 'delete'): Promise<void> {
    if (!vscode.workspace.isTrusted) return;
    const where = this.host.locate(uri);
    if (!where) return;
    const key = where.folder.uri.toString();
    const filter = this.filters.get(key);
    if (!filter) return;
    const rel = where.rel;
    if (filter.changesRules(rel)) {
      // New rules: the filter reads them again, and the run walks the folder (adds what they no longer ignore, removes
      // what they now ignore).
      this.setFilter(where.folder);
      this.queue(key, rel, true);
      return;
    }
    if (filter.accepts(rel)) {
      // A document (on delete: or a folder named like one; the run treats the path as a prefix too).
      this.queue(key, rel);
      return;
    }
    if (kind === 'change' || !filter.entersDir(rel)) return;
    if (kind === 'create') {
      // A folder moved or copied in: its documents are looked at as one hint.
      try {
        if ((await vscode.workspace.fs.stat(uri)).type !== vscode.FileType.Directory) return;
      } catch {
        return;
      }
    }
    // Deleted: it cannot be stat'ed any more, so whatever its name looks like ("v1.2"), it may have been a folder; the
    // run removes the indexed files at or under this path (and nothing when there are none).
    this.queue(key, rel);
  }

  private queue(key: string, rel: string, walk = false): void {
    let p = this.pending.get(key);
    if (!p) {
      p = { paths: new Set(), firstAt: Date.now() };
      this.pending.set(key, p);
    }
    p.paths.add(rel);
    if (walk) p.walk = true;
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
    this.log.info(p.walk ? `watcher: ignore file changed in "${folder.name}": walking the folder again` : `watcher: ${paths.length} changed document(s) in "${folder.name}"`);
    this.runsEmitter.fire({ folder: folder.name, paths: paths.length });
    this.host.index(folder, p.walk ? {} : { paths }).catch((err) => this.log.error(`watcher update of "${folder.name}" failed: ${errorMessage(err)}`));
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
