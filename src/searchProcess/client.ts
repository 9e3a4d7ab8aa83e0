// The host side of the search process: forks dist/searchWorker.js (src/searchProcess/main.ts) on first use and gives
// each index a `ReaderEngine` whose store reads, embeddings and retrievals run there. The host's chat model answers the
// pipeline's chat calls (expansion, reranking) from here. When the child dies, the requests it held fail with the
// reason and the next request starts a new child (at once the first time; after 1 s, doubling to 30 s, when children
// keep dying young) that reopens every live reader. Neutral (no `vscode`): the extension and the benchmarks use it.
import { fork, type ChildProcess } from 'node:child_process';
import { INDEXING_MALLOC_ENV, type FolderSpec } from '../indexProcess/protocol';
import type { SearchSettings } from '../rag/search/configs';
import type { RetrievalResult, RetrieveOptions, Retriever } from '../rag/search/types';
import type { IndexStore } from '../rag/store/types';
import { ModelError, type ChatModel, type Embedder } from '../rag/types';
import type { FromSearch, ReaderInfo, StoreRead, ToSearch } from './protocol';

export interface SearchLog {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** The store reads a reader offers (the meta as of its latest answer). */
export type ReaderStore = Pick<IndexStore, 'meta' | StoreRead>;

/** One index opened for reading in the search process. */
export interface ReaderEngine {
  folder: string;
  storeDir: string;
  store: ReaderStore & { linksOf: NonNullable<IndexStore['linksOf']> };
  /** The index's embedder, run in the search process (the answer stage's citation check uses it). */
  embedder: Embedder;
  warnings: string[];
  retriever(o?: { config?: string; chatModel?: ChatModel; overrides?: Partial<SearchSettings> }): Retriever;
  close(): Promise<void>;
}

interface Pending {
  resolve: (v: { value: unknown; meta?: ReaderInfo['meta'] }) => void;
  reject: (err: Error) => void;
  /** The chat model the request's pipeline may call back, and the answering model's token count. */
  host?: { chat?: ChatModel; countTokens?: (text: string) => Promise<number> };
  signal?: AbortSignal;
}

const MIN_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;
/** A child that lived this long died of something else than its start: the next one starts at once. */
const STABLE_MS = 10_000;
const STDERR_LINES = 20;

export class SearchProcess {
  private child: ChildProcess | null = null;
  private ready: Promise<ChildProcess> | null = null;
  private readonly pending = new Map<number, Pending>();
  /** Chat or token-count calls of the child that are running here. */
  private readonly hostCalls = new Map<number, AbortController>();
  /** Live readers (reopened in every new child). */
  private readonly specs = new Map<number, FolderSpec>();
  private nextId = 1;
  private nextGeneration = 1;
  private backoffMs = 0;
  private startedAt = 0;
  private notBefore = 0;
  private stderr: string[] = [];
  private disposed = false;

  constructor(
    private readonly workerPath: string,
    private readonly log: SearchLog,
    private readonly options: {
      /** The child died (`reason`: exit code or signal and its last error output). */
      onCrash?: (reason: string) => void;
      /** Node options of the child (tests run the TypeScript entry with `--import tsx`). */
      execArgv?: string[];
    } = {},
  ) {}

  /** The child's pid while it runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Opens an index for reading. Rejects with the engine's message when it cannot be opened. */
  async open(spec: FolderSpec): Promise<ReaderEngine> {
    const generation = this.nextGeneration++;
    this.specs.set(generation, spec);
    let info: ReaderInfo;
    try {
      info = (await this.call({ type: 'open', id: 0, generation, spec })).value as ReaderInfo;
    } catch (err) {
      this.specs.delete(generation);
      throw err;
    }
    let meta = info.meta;
    const read =
      (method: StoreRead) =>
      async (...args: unknown[]): Promise<never> => {
        const r = await this.call({ type: 'read', id: 0, generation, method, args });
        if (r.meta !== undefined) meta = r.meta;
        return r.value as never;
      };
    const embed = (queries: boolean) => async (texts: string[], signal?: AbortSignal) =>
      (await this.call({ type: 'embed', id: 0, generation, texts, queries }, signal)).value as Float32Array[];
    const embedder: Embedder = { ...info.embedder, init: async () => undefined, embed: embed(false), embedQueries: embed(true) };
    return {
      folder: spec.folder,
      storeDir: spec.storeDir,
      warnings: info.warnings,
      embedder,
      store: {
        meta: () => meta,
        listFiles: read('listFiles'),
        countPassages: read('countPassages'),
        getPassages: read('getPassages'),
        getFilePassages: read('getFilePassages'),
        linksOf: read('linksOf'),
        fullTextSearch: read('fullTextSearch'),
      },
      retriever: (o = {}) => ({
        retrieve: async (query: string, options: RetrieveOptions = {}): Promise<RetrievalResult> => {
          const { signal, countTokens, ...rest } = options;
          const chat = o.chatModel;
          const r = await this.call(
            {
              type: 'retrieve',
              id: 0,
              generation,
              query,
              options: { ...rest, countTokens: !!countTokens },
              config: o.config ?? 'default',
              overrides: o.overrides ?? {},
              chat: chat ? { id: chat.id, contextWindow: chat.contextWindow, countTokens: !!(countTokens ?? chat.countTokens) } : undefined,
            },
            signal,
            { chat, countTokens },
          );
          if (r.meta !== undefined) meta = r.meta;
          return r.value as RetrievalResult;
        },
      }),
      close: async () => {
        if (!this.specs.delete(generation)) return;
        if (this.child?.connected) await this.call({ type: 'close', id: 0, generation }).catch(() => undefined);
      },
    };
  }

  private call(m: ToSearch & { id: number }, signal?: AbortSignal, host?: Pending['host']): Promise<{ value: unknown; meta?: ReaderInfo['meta'] }> {
    if (signal?.aborted) return Promise.reject(abortError());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.post({ type: 'cancel', id });
        this.settle(id, (p) => p.reject(abortError()));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, {
        host,
        signal,
        resolve: (v) => {
          done();
          resolve(v);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      this.start()
        .then((child) => {
          if (this.pending.has(id)) child.send({ ...m, id } as ToSearch);
        })
        .catch((err: unknown) => this.settle(id, (p) => p.reject(err instanceof Error ? err : new Error(String(err)))));
    });
  }

  private post(m: ToSearch): void {
    if (this.child?.connected) this.child.send(m);
  }

  private settle(id: number, fn: (p: Pending) => void): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    fn(p);
  }

  private start(): Promise<ChildProcess> {
    if (this.disposed) return Promise.reject(new Error('Docs RAG is shutting down'));
    this.ready ??= (async () => {
      const wait = this.notBefore - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (this.disposed) throw new Error('Docs RAG is shutting down');
      return this.spawn();
    })();
    return this.ready;
  }

  private spawn(): Promise<ChildProcess> {
    this.stderr = [];
    const child = fork(this.workerPath, [], {
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: 'advanced',
      // In VS Code's Electron the executable is Electron itself: run it as plain Node. The malloc settings keep what
      // LanceDB's threads free from piling up in per-thread arenas; the user's own settings win.
      env: { ...INDEXING_MALLOC_ENV, ...process.env, ELECTRON_RUN_AS_NODE: '1' },
      execArgv: this.options.execArgv ?? [],
    });
    this.child = child;
    this.startedAt = Date.now();
    child.stdout?.on('data', (d: Buffer) => this.log.info(`search process: ${d.toString().trimEnd()}`));
    child.stderr?.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n')) {
        if (!line.trim()) continue;
        this.stderr.push(line);
        if (this.stderr.length > STDERR_LINES) this.stderr.shift();
      }
    });
    child.on('message', (m: FromSearch) => this.onMessage(m));
    child.once('exit', (code, signal) => this.onExit(child, code, signal));
    return new Promise<ChildProcess>((resolve, reject) => {
      const onReady = (m: FromSearch) => {
        if (m.type !== 'ready') return;
        child.off('message', onReady);
        child.off('exit', onEarlyExit);
        this.log.info(`search process started (pid ${m.pid})`);
        // Messages are handled in order: every live reader is open again before any request that uses it.
        for (const [generation, spec] of this.specs) child.send({ type: 'open', id: 0, generation, spec } satisfies ToSearch);
        resolve(child);
      };
      const onEarlyExit = () => reject(new Error(`the search process could not start: ${this.stderr.slice(-3).join(' ') || 'it exited at once'}`));
      child.on('message', onReady);
      child.once('exit', onEarlyExit);
      child.once('error', (err) => reject(err));
    });
  }

  private onMessage(m: FromSearch): void {
    switch (m.type) {
      case 'result':
        if (m.id !== 0) this.settle(m.id, (p) => p.resolve({ value: m.value, meta: m.meta }));
        break;
      case 'error':
        this.settle(m.id, (p) => {
          const err = new Error(m.message);
          err.name = m.name;
          p.reject(err);
        });
        break;
      case 'chat':
      case 'countTokens':
        this.answerHostCall(m);
        break;
      case 'cancelHost':
        this.hostCalls.get(m.callId)?.abort();
        this.hostCalls.delete(m.callId);
        break;
      case 'log':
        this.log[m.level](m.message);
        break;
    }
  }

  private answerHostCall(m: Extract<FromSearch, { type: 'chat' | 'countTokens' }>): void {
    const p = this.pending.get(m.id);
    const abort = new AbortController();
    this.hostCalls.set(m.callId, abort);
    const signal = p?.signal ? AbortSignal.any([p.signal, abort.signal]) : abort.signal;
    const work = async (): Promise<unknown> => {
      const chat = p?.host?.chat;
      if (m.type === 'chat') {
        if (!chat) throw new ModelError('other', 'no language model for this search');
        return chat.chat(m.messages, { ...m.options, signal });
      }
      if (p?.host?.countTokens) return p.host.countTokens(m.text);
      if (!chat?.countTokens) throw new ModelError('other', 'the model cannot count tokens');
      return chat.countTokens(m.text, signal);
    };
    work().then(
      (value) => {
        if (this.hostCalls.delete(m.callId)) this.post({ type: 'hostResult', callId: m.callId, value });
      },
      (err: unknown) => {
        if (!this.hostCalls.delete(m.callId)) return;
        const e = err instanceof Error ? err : new Error(String(err));
        this.post({ type: 'hostError', callId: m.callId, name: e.name, message: e.message, kind: e instanceof ModelError ? e.kind : undefined });
      },
    );
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    this.child = null;
    this.ready = null;
    for (const a of this.hostCalls.values()) a.abort();
    this.hostCalls.clear();
    if (this.disposed) return;
    const how = signal ? `killed by ${signal}` : `exited with code ${code}`;
    const detail = this.stderr.slice(-3).join(' ').trim();
    const reason = `the search process ${how}${detail ? `: ${detail}` : ''}`;
    this.log.error(`${reason}; the next search starts it again`);
    for (const id of [...this.pending.keys()]) this.settle(id, (p) => p.reject(new Error(`${reason}; search again`)));
    this.options.onCrash?.(reason);
    // A child that lived long died of something else than its start: the next search starts one at once.
    if (Date.now() - this.startedAt > STABLE_MS) this.backoffMs = 0;
    this.notBefore = Date.now() + this.backoffMs;
    this.backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(MIN_BACKOFF_MS, this.backoffMs * 2));
  }

  /** Closes every reader and stops the child. */
  dispose(): void {
    this.disposed = true;
    for (const id of [...this.pending.keys()]) this.settle(id, (p) => p.reject(abortError()));
    const child = this.child;
    this.child = null;
    this.ready = null;
    if (child?.connected) {
      child.send({ type: 'shutdown' } satisfies ToSearch);
      setTimeout(() => child.exitCode === null && child.kill('SIGKILL'), 5000).unref();
    }
  }
}

function abortError(): Error {
  const err = new Error('cancelled');
  err.name = 'AbortError';
  return err;
}
