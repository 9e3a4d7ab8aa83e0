// `docs-rag mcp --watch`: keeps the index current while the server runs. One catch-up run at start (changes made while
// no one watched), then Node's recursive fs.watch; events are debounced and coalesced into one incremental run over the
// changed paths, queued on the engine's write queue (indexFolder), so runs never interleave with each other or optimize.
// A run that fails (e.g. another process is indexing) is retried after the next quiet period.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { engineConfig } from '../rag/engine';
import { indexFolder, type IndexRunResult } from '../rag/index/indexer';
import type { JobKind } from '../rag/index/lifecycle';
import { BackgroundMaintenance, hostJobs, runMaintenanceJobs } from '../rag/index/maintenance';
import { createPathFilter, type PathFilter } from '../rag/index/pathFilter';
import type { IndexAccess } from './indexAccess';

export interface WatchOptions {
  debounceMs?: number;
  /** Longest a change waits while events keep coming. */
  maxWaitMs?: number;
  log?: (message: string) => void;
  /** After each run (tests, logs). */
  onRun?: (r: IndexRunResult | Error, paths: string[] | 'all') => void;
}

export class FolderWatcher {
  private watcher: fs.FSWatcher | null = null;
  private parentWatchers: fs.FSWatcher[] = [];
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private firstAt = 0;
  private running: Promise<void> = Promise.resolve();
  private stopped = false;
  private full = true;
  private readonly debounceMs: number;
  private readonly maxWaitMs: number;
  /** Whole-table maintenance after small runs, in steps of its own, after a quiet period (index/maintenance.ts). */
  readonly background: BackgroundMaintenance;

  constructor(
    private readonly access: IndexAccess,
    private readonly o: WatchOptions = {},
  ) {
    this.debounceMs = o.debounceMs ?? 500;
    this.maxWaitMs = o.maxWaitMs ?? 5000;
    this.background = new BackgroundMaintenance(access.storeDir, this.stepCommand());
  }

  /**
   * A maintenance job in a child: the indexing process's entry with `--maintenance-step` (dist/indexWorker.js beside the
   * bundled CLI; its source through tsx when this module runs from source), whoever started this process.
   */
  private stepCommand(): (kind: JobKind) => string[] {
    const entry = __filename.endsWith('.ts')
      ? ['--import', 'tsx', path.join(__dirname, '../indexProcess/main.ts')]
      : [path.join(__dirname, 'indexWorker.js')];
    return (kind) => [...entry, '--maintenance-step', this.access.storeDir, kind];
  }

  /** Starts watching and queues the catch-up run of the whole folder. */
  start(): void {
    const folder = this.access.folder;
    // The index's own include/exclude, store folder and ignore files (index/pathFilter.ts, as the walker and the VS Code
    // watcher): changes to other files start no run, so they neither cost a walk nor make a vector fill give way.
    // The selection as the index records it (flags not given keep the recorded ones), read again with the rules.
    const newFilter = (): PathFilter => {
      const { ingest } = engineConfig(this.access.o, this.access.storeDir);
      return createPathFilter(folder, { include: ingest.include, exclude: ingest.exclude, storeDir: this.access.storeDir, useIgnoreFiles: ingest.useIgnoreFiles !== false });
    };
    let filter = newFilter();
    this.watcher = fs.watch(folder, { recursive: true }, (event, name) => {
      if (!name) {
        this.full = true;
        this.schedule();
        return;
      }
      const rel = name.toString().split(path.sep).join('/');
      if (filter.changesRules(rel)) {
        // New rules: read them again and walk the whole folder (what they ignore now goes, what they no longer ignore comes).
        filter = newFilter();
        this.full = true;
        this.schedule();
        return;
      }
      // A content change of a file the index does not hold needs no look (a build log written line by line).
      if (filter.accepts(rel) || (event === 'rename' && filter.entersDir(rel) && folderOrGone(path.join(folder, rel)))) {
        this.pending.add(rel);
        this.schedule();
      }
    });
    this.watcher.on('error', (err) => this.o.log?.(`watching ${folder} failed: ${err.message}`));
    // The ignore files above the folder, up to its repository's root: one non-recursive watch per folder that holds them.
    const byDir = new Map<string, Set<string>>();
    for (const file of filter.parentIgnoreFiles) {
      const names = byDir.get(path.dirname(file)) ?? byDir.set(path.dirname(file), new Set()).get(path.dirname(file))!;
      names.add(path.basename(file));
    }
    for (const [dir, names] of byDir) {
      try {
        const w = fs.watch(dir, (_event, name) => {
          if (name && !names.has(name.toString())) return;
          filter = newFilter();
          this.full = true;
          this.schedule();
        });
        w.on('error', () => w.close());
        this.parentWatchers.push(w);
      } catch {
        // No such folder (a repository without .git/info): nothing to watch there.
      }
    }
    this.schedule(0);
  }

  /** Stops watching; waits for a run in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.background.stop();
    this.watcher?.close();
    this.watcher = null;
    for (const w of this.parentWatchers) w.close();
    this.parentWatchers = [];
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }

  /** Resolves when no run is pending or in progress (tests). */
  async idle(): Promise<void> {
    while (this.timer || this.pending.size || this.full) {
      await new Promise((r) => setTimeout(r, 50));
      if (this.stopped) return;
    }
    await this.running;
  }

  private schedule(delay = this.debounceMs): void {
    if (this.stopped) return;
    const now = Date.now();
    if (!this.timer) this.firstAt = now;
    else clearTimeout(this.timer);
    const wait = Math.max(0, Math.min(delay, this.firstAt + this.maxWaitMs - now));
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.running.then(() => this.run());
    }, wait);
    this.timer.unref?.();
  }

  private async run(): Promise<void> {
    if (this.stopped) return;
    const full = this.full;
    const paths = full ? undefined : [...this.pending];
    this.full = false;
    this.pending.clear();
    if (!full && paths!.length === 0) return;
    try {
      // A long vector fill gives way to changes seen meanwhile (their run comes next and fills on).
      const yieldFill = () => this.pending.size > 0 || this.full;
      const r = await this.access.use((engine) => indexFolder(engine, full ? { yieldFill, maintenance: 'caller' } : { paths, yieldFill, maintenance: 'caller' }), { requireIndex: false, retry: false });
      // A large run's maintenance as part of it; a small run's whole-table work in the background (lifecycle.ts).
      const { after, background } = hostJobs(r.maintenance);
      if (after.length > 0 && !r.cancelled) r.maintained = (await runMaintenanceJobs(after, this.stepCommand())).ran.map((j) => j.kind);
      if (background.length > 0 && !r.cancelled && !this.stopped) this.background.schedule();
      const changed = (r.added ?? 0) + (r.updated ?? 0) + (r.removed ?? 0);
      if (changed > 0 || full) this.o.log?.(`index updated: ${r.added ?? 0} added, ${r.updated ?? 0} updated, ${r.removed ?? 0} removed (${r.ms} ms)`);
      this.o.onRun?.(r, paths ?? 'all');
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      this.o.log?.(`index update failed: ${e.message}; retrying after the next change or in ${Math.round(this.maxWaitMs / 1000)} s`);
      this.o.onRun?.(e, paths ?? 'all');
      if (full) this.full = true;
      else for (const p of paths!) this.pending.add(p);
      this.schedule(this.maxWaitMs);
    }
  }
}

/**
 * A path that is no document of the index still matters when it is a folder (moved or copied in: its documents) or
 * gone (it may have been a folder of indexed documents; the run removes what was indexed at or under it, else nothing).
 */
function folderOrGone(abs: string): boolean {
  try {
    return fs.statSync(abs).isDirectory();
  } catch {
    return true;
  }
}
