// The engine entry: opens (or creates) the index of one folder with its store, embedder, config and write queue.
// The extension, the CLI, tests and benchmarks all start here. Never imports `vscode`.
import * as path from 'node:path';
import { DEFAULT_STORE_DIRNAME, defaultConfig, type ChunkConfig, type EmbedConfig, type EngineConfig, type EnrichConfig, type IngestConfig, type OcrConfig, type RecordedSettings, readRecordedSettings } from './config';
import { createEmbedder } from './embed';
import { ParserPool } from './ingest';
import { openStore } from './store';
import { checkDefaultStore } from './store/location';
import { readMeta, storeHome } from './store/meta';
import type { IndexStore } from './store/types';
import type { Embedder } from './types';
import { prepareWorkerPath } from './index/prepareFile';
import { WriteQueue } from './index/writeQueue';
import { acquireWriterLock, WriterLockAbortedError, WriterLockBusyError, type AcquireOptions } from './index/writerLock';
import { RemoteLeaseBusyError } from './store/remoteLease';
import { ReadOnlyStoreError, storeLocation } from './store/remote';

export interface Engine {
  folder: string;
  /** The local folder of the store's small files and writer lock (a remote store's mirror: see store/remote.ts). */
  storeDir: string;
  /** What the store was opened at: storeDir, or the object-store URI. */
  storeUri: string;
  /** Opened read-only (a team member's remote store): every write is refused with a ReadOnlyStoreError. */
  readOnly: boolean;
  /**
   * Takes the cross-process writer lock (index/writerLock.ts), and a remote store's writer lease (store/remoteLease.ts),
   * the gate of every write to the index; throws a ReadOnlyStoreError when the engine is read-only. The errors of a
   * busy or cancelled lease are the writer lock's (WriterLockBusyError, WriterLockAbortedError).
   */
  acquireWriter(o: AcquireOptions): Promise<() => Promise<void>>;
  store: IndexStore;
  embedder: Embedder;
  config: EngineConfig;
  /** Serialises every write to this index (runs, watcher updates, optimize). */
  queue: WriteQueue;
  /** Things the user should know (e.g. "the next run re-embeds everything with another model"). */
  warnings: string[];
  /** The parser worker pool, started on first use and stopped by close(). */
  parsers(): ParserPool;
  /** Stops the parser workers (their memory goes back before optimize); the next parsers() starts new ones. */
  releaseParsers(): Promise<void>;
  /** Runs optimize() on the write queue now, under the writer lock (tests and benches; hosts go through index/maintenance.ts). */
  optimizeNow(o?: { deleteUnverified?: boolean; vectorIndex?: boolean }): Promise<void>;
  /** Waits for queued writes, stops the workers and closes the store. */
  close(): Promise<void>;
}

export interface EngineConfigOverrides {
  /** `ocr` merges into the defaults (or the recorded settings) key by key. */
  ingest?: Partial<Omit<IngestConfig, 'ocr'>> & { ocr?: Partial<OcrConfig> };
  chunk?: Partial<ChunkConfig>;
  embed?: Partial<EmbedConfig>;
  enrich?: EnrichConfig;
  [section: string]: unknown;
}

export interface OpenEngineOptions {
  folder: string;
  /** Default: <folder>/.docs-rag. A folder (made absolute) or an object-store URI (store/remote.ts). */
  storeDir?: string;
  /**
   * Refuse every write. Default: a remote store is read-only (a team member's view), a local one writable; the
   * builder's `docs-rag index` opens a remote store with false.
   */
  readOnly?: boolean;
  config?: EngineConfigOverrides;
  /**
   * True when the caller chose the embedder (config.embed) explicitly. Otherwise the embedder recorded in the index is used
   * (default builtin for a new index), so searching an Ollama-built index never needs the flags again.
   */
  embedderOverride?: boolean;
  /**
   * `config` holds only what the caller was told (the CLI's flags): what it leaves out of `config.ingest`'s selection
   * and `config.enrich` comes from the settings the index recorded at its last run (meta.json), so a folder indexed once
   * with `--no-ignore-files` or `--ocr off` is not re-selected or re-read by the next run or an MCP server started
   * without those flags. The extension passes its settings whole (and they are recorded for the CLI).
   */
  settingsFromIndex?: boolean;
}

export function mergeConfig(overrides: EngineConfigOverrides = {}, recorded?: RecordedSettings): EngineConfig {
  const base = defaultConfig();
  if (recorded) {
    base.ingest = { ...base.ingest, ...recorded.ingest, ocr: { ...base.ingest.ocr!, ...recorded.ingest?.ocr } };
    if (recorded.enrich) base.enrich = { ...recorded.enrich };
  }
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) continue;
    const current = (base as unknown as Record<string, unknown>)[key];
    out[key] = current && typeof current === 'object' && value && typeof value === 'object' && !Array.isArray(value)
      ? { ...current, ...(value as object) }
      : value;
  }
  const ocr = overrides.ingest?.ocr;
  if (ocr) (out.ingest as IngestConfig).ocr = { ...base.ingest.ocr!, ...ocr };
  return out as unknown as EngineConfig;
}

/**
 * The configuration an engine on the store `at` (a folder or a URI) runs with (see OpenEngineOptions.settingsFromIndex).
 * A remote store's settings are read from its mirror, as the last opening of the store left it.
 */
export function engineConfig(o: Pick<OpenEngineOptions, 'config' | 'settingsFromIndex'>, at: string): EngineConfig {
  const location = storeLocation(at);
  // The settings recorded by an index made elsewhere (e.g. following symbolic links out of the folder) are not taken.
  const meta = o.settingsFromIndex ? readMeta(location.dir) : null;
  const home = location.remote ? location.uri : storeHome(location.dir);
  return mergeConfig(o.config, meta && meta.home === home ? readRecordedSettings(meta.settings) : undefined);
}

export async function openEngine(o: OpenEngineOptions): Promise<Engine> {
  const folder = path.resolve(o.folder);
  if (!o.storeDir) checkDefaultStore(folder, path.join(folder, DEFAULT_STORE_DIRNAME));
  const store = await openStore(o.storeDir ?? path.join(folder, DEFAULT_STORE_DIRNAME));
  const storeDir = store.dir;
  const readOnly = o.readOnly ?? store.remote;
  const config = engineConfig(o, store.uri);
  const warnings: string[] = [];
  const opened = store.meta();
  // An index that came with the folder (copied or cloned) is not this program's work on these files: said until a run rebuilds it.
  if (opened && opened.home !== store.home()) {
    warnings.push('This index was not built in this place (copied or cloned with the folder, or made by an older version): its passages are not verified against the files until the next index run rebuilds it.');
  }
  if (store.schemaOutdated()) {
    warnings.push('This index was written by another version of Docs RAG: it reads as empty until the next index run rebuilds it.');
  }
  const recorded = opened?.embedder;
  if (recorded && !o.embedderOverride) {
    if (recorded.id === 'ollama' || recorded.id === 'builtin' || recorded.id === 'local') config.embed.provider = recorded.id;
    if (recorded.id === 'ollama') config.embed.model = recorded.model;
    if (recorded.id === 'local') config.embed.localModel = recorded.model;
  }
  const embedder = createEmbedder(config.embed);
  if (recorded && (recorded.id !== embedder.id || (embedder.id !== 'builtin' && recorded.model !== embedder.model))) {
    warnings.push(
      `The index was built with ${recorded.id}:${recorded.model}; the next index run re-embeds every document with ${embedder.id}:${embedder.model}.`,
    );
  }
  const queue = new WriteQueue();
  let pool: ParserPool | null = null;
  let closed = false;
  const acquireWriter = async (lock: AcquireOptions): Promise<() => Promise<void>> => {
    if (readOnly) throw new ReadOnlyStoreError(store.uri);
    const release = await acquireWriterLock(storeDir, lock);
    try {
      const lease = await store.takeWriterLease({ purpose: lock.purpose ?? 'index', wait: lock.wait !== false, signal: lock.signal, onWait: lock.onWait });
      return () => lease().finally(release);
    } catch (err) {
      release();
      if (err instanceof RemoteLeaseBusyError) throw new WriterLockBusyError(err.holder, store.uri);
      if (lock.signal?.aborted) throw new WriterLockAbortedError();
      throw err;
    }
  };
  // Optimize writes too: it takes the cross-process writer lock, and is skipped while another process writes (that
  // writer's own run ends with an optimize, or schedules one).
  const underLock = <T>(work: () => Promise<T>) =>
    queue.run(async (): Promise<T | undefined> => {
      const release = await acquireWriter({ wait: false, purpose: 'optimizing' }).catch((err) => {
        if (err instanceof WriterLockBusyError) return null;
        throw err;
      });
      if (!release) return undefined;
      try {
        return await work();
      } finally {
        await release();
      }
    });
  const optimizeNow = async (opts?: { deleteUnverified?: boolean; vectorIndex?: boolean }) => {
    await underLock(() => store.optimize(opts));
  };
  return {
    folder,
    storeDir,
    storeUri: store.uri,
    readOnly,
    acquireWriter,
    store,
    embedder,
    config,
    queue,
    warnings,
    parsers() {
      if (closed) throw new Error('The engine is closed');
      // The indexer's workers: they parse, and for a run also chunk, extract links and embed (index/prepareFile.ts).
      pool ??= new ParserPool(Math.max(1, config.ingest.workers), { workerPath: prepareWorkerPath() });
      return pool;
    },
    async releaseParsers() {
      const p = pool;
      pool = null;
      await p?.close();
    },
    optimizeNow,
    async close() {
      if (closed) return;
      closed = true;
      await queue.idle();
      await pool?.close();
      await embedder.close?.();
      await store.close();
    },
  };
}
