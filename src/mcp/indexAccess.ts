// The MCP server's handle on one folder's index. Every tool call leases the current engine; a call sees the latest
// committed version of the index because the store reads with readConsistencyInterval 0 (each read checks the table
// version). What a long-lived reader must still notice itself, and this class does:
// - the index did not exist (or had no passages table) when the engine was opened, and another process built it since;
// - another process rebuilt the index with another embedder (tables dropped and recreated, other vector dimension);
// - a read failed half-way through such a rebuild: the engine is reopened and the call retried once.
// A replaced engine is closed only when the last call that leased it has finished.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_STORE_DIRNAME } from '../rag/config';
import { storeLocation } from '../rag/store/remote';
import { openEngine, type Engine, type EngineConfigOverrides } from '../rag/engine';
import { META_FILE } from '../rag/store/meta';
import { indexCommandLine } from '../rag/text/printable';

/** How often a long-lived server takes a remote store's newer small files. */
const REMOTE_REFRESH_MS = 60_000;

export class IndexMissingError extends Error {}

export interface IndexAccessOptions {
  folder: string;
  storeDir: string;
  config?: EngineConfigOverrides;
  embedderOverride?: boolean;
  /** Settings not given in `config` come from those the index recorded (OpenEngineOptions.settingsFromIndex). */
  settingsFromIndex?: boolean;
  log?: (message: string) => void;
}

interface Slot {
  engine: Engine;
  leases: number;
  retired: boolean;
}

export class IndexAccess {
  private slot: Slot | null = null;
  private opening: Promise<Slot> | null = null;
  private closed = false;
  private refreshedAt = Date.now();

  constructor(readonly o: IndexAccessOptions) {}

  get folder(): string {
    return this.o.folder;
  }

  get storeDir(): string {
    return this.o.storeDir;
  }

  /** True when the store has been created by an index run (meta.json exists; a remote store's: in its mirror). */
  hasIndex(): boolean {
    return fs.existsSync(path.join(storeLocation(this.o.storeDir).dir, META_FILE));
  }

  missingMessage(): string {
    return `No index at ${this.o.storeDir}. Build it first: ${this.indexCommand()}`;
  }

  /** The ask tool's refusal for an index without passages. */
  emptyMessage(): string {
    return `The index at ${this.o.storeDir} has no passages yet. Build it first: ${this.indexCommand()}`;
  }

  /** The tools' refusal for an index of another schema version (IndexMissingError). */
  outdatedMessage(): string {
    return `The index at ${this.o.storeDir} was written by another version of Docs RAG. Rebuild it: ${this.indexCommand()}`;
  }

  private indexCommand(): string {
    const own = this.o.storeDir === path.join(this.o.folder, DEFAULT_STORE_DIRNAME);
    return `${indexCommandLine(this.o.folder, own ? undefined : this.o.storeDir)} (or start the server with --watch)`;
  }

  /**
   * Runs `fn` with the current engine. `requireIndex`: refuse (IndexMissingError) when there is no index yet.
   * On a failure that is not the caller's (not an IndexMissingError), the engine is reopened and `fn` runs once more.
   */
  async use<T>(fn: (engine: Engine) => Promise<T>, opts: { requireIndex?: boolean; retry?: boolean } = {}): Promise<T> {
    const requireIndex = opts.requireIndex ?? true;
    if (requireIndex && !this.hasIndex()) throw new IndexMissingError(this.missingMessage());
    const slot = await this.lease();
    let reopened = false;
    try {
      if (requireIndex && (await this.stale(slot.engine))) {
        this.release(slot, true);
        reopened = true;
        return await this.useFresh(fn);
      }
      return await fn(slot.engine);
    } catch (err) {
      if (reopened || err instanceof IndexMissingError || opts.retry === false || this.closed) throw err;
      this.o.log?.(`read failed (${err instanceof Error ? err.message : String(err)}); reopening the index and retrying`);
      this.release(slot, true);
      reopened = true;
      return await this.useFresh(fn);
    } finally {
      if (!reopened) this.release(slot, false);
    }
  }

  /** Closes the engine (after the calls in flight). */
  async close(): Promise<void> {
    this.closed = true;
    const opening = this.opening;
    if (opening) await opening.catch(() => undefined);
    const slot = this.slot;
    this.slot = null;
    if (slot) {
      slot.retired = true;
      if (slot.leases === 0) await slot.engine.close();
    }
  }

  private async useFresh<T>(fn: (engine: Engine) => Promise<T>): Promise<T> {
    // Another process may still be dropping and recreating the tables (a re-embed): a few tries, a little apart.
    for (let attempt = 1; ; attempt++) {
      const slot = await this.lease();
      let failed = false;
      try {
        return await fn(slot.engine);
      } catch (err) {
        failed = true;
        if (attempt >= 4 || err instanceof IndexMissingError || this.closed) throw err;
      } finally {
        this.release(slot, failed);
      }
      await new Promise((r) => setTimeout(r, 150 * attempt));
    }
  }

  /** The engine no longer matches the index on disk: opened before the tables existed, or another embedder rebuilt it. */
  private async stale(engine: Engine): Promise<boolean> {
    // A team's remote store: the builder's newer small files (meta.json, vocabulary) are taken at most once a minute;
    // the tables themselves are read at their latest version on every query.
    if (engine.store.remote && Date.now() - this.refreshedAt > REMOTE_REFRESH_MS) {
      await engine.store.refresh();
      this.refreshedAt = Date.now();
    }
    const meta = engine.store.meta();
    if (!meta) return false;
    // Written by another schema version: nothing to read until a run rebuilds it (the tools say so). A rebuild by
    // another process makes meta current, and the checks below reopen the reader.
    if (engine.store.schemaOutdated()) return false;
    const e = engine.embedder;
    if (meta.embedder.id !== e.id || meta.embedder.model !== e.model || (e.dimension > 0 && meta.embedder.dimension !== e.dimension)) {
      return !this.o.embedderOverride;
    }
    // countPassages() is 0 without a passages table; after a reopen it counts the rows another process wrote.
    return (await engine.store.countPassages()) === 0 && (meta.lastRun !== undefined || meta.runInProgress !== undefined);
  }

  private async lease(): Promise<Slot> {
    if (this.closed) throw new Error('The MCP server is shutting down');
    let slot = this.slot;
    if (!slot) {
      this.opening ??= this.open().finally(() => {
        this.opening = null;
      });
      slot = await this.opening;
    }
    slot.leases++;
    return slot;
  }

  /** Gives a lease back; `retire` drops the engine so the next lease opens a fresh one. */
  private release(slot: Slot, retire: boolean): void {
    slot.leases--;
    if (retire && this.slot === slot) {
      this.slot = null;
      slot.retired = true;
    }
    if (slot.retired && slot.leases === 0) {
      slot.engine.close().catch((err) => this.o.log?.(`closing a replaced engine failed: ${err instanceof Error ? err.message : String(err)}`));
    }
  }

  private async open(): Promise<Slot> {
    const engine = await openEngine({ folder: this.o.folder, storeDir: this.o.storeDir, config: this.o.config, embedderOverride: this.o.embedderOverride, settingsFromIndex: this.o.settingsFromIndex });
    for (const w of engine.warnings) this.o.log?.(`warning: ${w}`);
    const slot: Slot = { engine, leases: 0, retired: false };
    if (this.closed) {
      await engine.close();
      throw new Error('The MCP server is shutting down');
    }
    this.slot = slot;
    return slot;
  }
}
