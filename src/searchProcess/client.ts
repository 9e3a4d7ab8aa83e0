// The host side of the search process: forks dist/searchWorker.js (src/searchProcess/main.ts) on first use (through the
// Supervisor, src/childProcess/supervisor.ts) and gives
// each index a `ReaderEngine` whose store reads, embeddings and retrievals run there. The host's chat model answers the
// pipeline's chat calls (expansion, reranking) from here. When the child dies, the requests it held fail with the
// reason and the next request starts a new child (at once the first time; after 1 s, doubling to 30 s, when children
// keep dying young) that reopens every live reader. Neutral (no `vscode`): the extension and the benchmarks use it.
import { PendingRequests, Supervisor, abortError, asError, childError, type SupervisorLog } from '../childProcess/supervisor';
import type { FolderSpec } from '../indexProcess/protocol';
import type { SearchSettings } from '../rag/search/configs';
import type { RetrievalResult, RetrieveOptions, Retriever } from '../rag/search/types';
import type { IndexStore } from '../rag/store/types';
import { ModelError, type ChatModel, type Embedder } from '../rag/types';
import type { FromSearch, ReaderInfo, StoreRead, ToSearch } from './protocol';

export interface SearchLog extends SupervisorLog {
  warn(message: string): void;
}

/** The store reads a reader offers (the meta as of its latest answer). */
export type ReaderStore = Pick<IndexStore, 'meta' | StoreRead>;

/** One index opened for reading in the search process. */
export interface ReaderEngine {
  folder: string;
  storeDir: string;
  store: ReaderStore;
  /** The index's embedder, run in the search process (the answer stage's citation check uses it). */
  embedder: Embedder;
  warnings: string[];
  retriever(o?: { config?: string; chatModel?: ChatModel; overrides?: Partial<SearchSettings> }): Retriever;
  close(): Promise<void>;
}

type Answer = { value: unknown; meta?: ReaderInfo['meta'] };

interface Pending {
  /** The chat model the request's pipeline may call back, and the answering model's token count. */
  host?: { chat?: ChatModel; countTokens?: (text: string) => Promise<number> };
  signal?: AbortSignal;
}

/**
 * An idle search process stops: its memory (LanceDB's caches, the lexicons; growing with the index) goes
 * back while nobody searches; the next search starts it again (quickly: it only reopens the readers).
 */
export const IDLE_STOP_MS = 10 * 60_000;

export class SearchProcess {
  private readonly child: Supervisor<ToSearch, FromSearch>;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly pending = new PendingRequests<Answer, Pending>();
  /** Chat or token-count calls of the child that are running here. */
  private readonly hostCalls = new Map<number, AbortController>();
  /** Live readers (reopened in every new child). */
  private readonly specs = new Map<number, FolderSpec>();
  private nextGeneration = 1;

  constructor(
    private readonly workerPath: string,
    private readonly log: SearchLog,
    private readonly options: {
      /** The child died (`reason`: exit code or signal and its last error output). */
      onCrash?: (reason: string) => void;
      /** Node options of the child (tests run the TypeScript entry with `--import tsx`). */
      execArgv?: string[];
      /** The child stops after this long without a request (default IDLE_STOP_MS); the next request starts it again. */
      idleStopMs?: number;
    } = {},
  ) {
    this.child = new Supervisor<ToSearch, FromSearch>({
      name: 'search process',
      workerPath,
      log,
      serialization: 'advanced',
      execArgv: options.execArgv ?? [],
      backoff: { minMs: 1000, maxMs: 30_000, stableMs: 10_000, immediateAfterStable: true },
      onMessage: (m) => this.onMessage(m),
      // Messages are handled in order: every live reader is open again before any request that uses it.
      onReady: (child) => {
        for (const [generation, spec] of this.specs) child.send({ type: 'open', id: 0, generation, spec } satisfies ToSearch);
      },
      onExit: (reason) => this.onExit(reason),
    });
  }

  /** The child's pid while it runs. */
  get pid(): number | undefined {
    return this.child.pid;
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
        if (this.child.connected) await this.call({ type: 'close', id: 0, generation }).catch(() => undefined);
      },
    };
  }

  private call(m: ToSearch & { id: number }, signal?: AbortSignal, host?: Pending['host']): Promise<Answer> {
    if (signal?.aborted) return Promise.reject(abortError());
    const { id, promise } = this.pending.add({ host, signal }, signal, (id) => {
      this.child.post({ type: 'cancel', id });
      this.settle(id, (p) => p.reject(abortError()));
    });
    this.child
      .start()
      .then((child) => {
        if (this.pending.has(id)) child.send({ ...m, id } as ToSearch);
      })
      .catch((err: unknown) => this.settle(id, (p) => p.reject(asError(err))));
    return promise;
  }

  private settle(id: number, fn: Parameters<PendingRequests<Answer, Pending>['settle']>[1]): void {
    if (this.pending.settle(id, fn)) this.armIdleStop();
  }

  /** Stops the child once no request has come for the idle time. */
  private armIdleStop(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
    if (this.pending.size > 0 || !this.child.connected) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.pending.size > 0 || !this.child.connected) return;
      this.log.info('search process stopped after being idle; the next search starts it again');
      this.child.stop({ type: 'shutdown' });
    }, this.options.idleStopMs ?? IDLE_STOP_MS);
    this.idleTimer.unref();
  }

  private onMessage(m: FromSearch): void {
    switch (m.type) {
      case 'result':
        if (m.id !== 0) this.settle(m.id, (p) => p.resolve({ value: m.value, meta: m.meta }));
        break;
      case 'error':
        this.settle(m.id, (p) => p.reject(childError(m.name, m.message)));
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
        if (this.hostCalls.delete(m.callId)) this.child.post({ type: 'hostResult', callId: m.callId, value });
      },
      (err: unknown) => {
        if (!this.hostCalls.delete(m.callId)) return;
        const e = asError(err);
        this.child.post({ type: 'hostError', callId: m.callId, name: e.name, message: e.message, kind: e instanceof ModelError ? e.kind : undefined });
      },
    );
  }

  private onExit(reason: string): void {
    for (const a of this.hostCalls.values()) a.abort();
    this.hostCalls.clear();
    this.log.error(`${reason}; the next search starts it again`);
    this.pending.rejectAll(() => new Error(`${reason}; search again`));
    this.options.onCrash?.(reason);
  }

  /** Closes every reader and stops the child. */
  dispose(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.child.dispose({ type: 'shutdown' });
    for (const a of this.hostCalls.values()) a.abort();
    this.hostCalls.clear();
    this.pending.rejectAll(abortError);
  }
}
