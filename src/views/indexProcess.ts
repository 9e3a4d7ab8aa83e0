// The extension's indexing process: forks dist/indexWorker.js (src/indexProcess/main.ts) with an IPC channel and
// drives it. Requests carry their own cancellation and progress; the child merges them per index. When the child dies
// (crash, out of memory, killed), every request it held fails with the reason, `onDidCrash` fires (status bar, log), and
// the next request starts a new child after a backoff (1 s, doubling to 30 s; reset once a child has lived a minute).
import * as vscode from 'vscode';
import { PendingRequests, Supervisor, abortError, asError, childError } from '../childProcess/supervisor';
import type { IndexProgress, IndexRunResult } from '../rag/index/indexer';
import { withIndexingFlags, type FolderSpec, type FromChild, type ToChild } from '../indexProcess/protocol';
import type { Log } from './log';

export interface IndexRequest {
  full?: boolean;
  paths?: string[];
  signal?: AbortSignal;
  onProgress?: (p: IndexProgress) => void;
}

interface Pending {
  key: string;
  onProgress?: (p: IndexProgress) => void;
}

export class IndexProcess implements vscode.Disposable {
  private readonly child: Supervisor<ToChild, FromChild>;
  private readonly pending = new PendingRequests<IndexRunResult, Pending>();
  private folders: FolderSpec[] = [];
  private readonly crashEmitter = new vscode.EventEmitter<{ reason: string }>();
  /** The child died; `reason` says how (exit code or signal, and its last error output). */
  readonly onDidCrash = this.crashEmitter.event;
  private readonly startEmitter = new vscode.EventEmitter<{ key: string; what: string }>();
  /** A merged run of one folder started in the child. */
  readonly onDidStartRun = this.startEmitter.event;

  constructor(workerPath: string, private readonly log: Log) {
    this.child = new Supervisor<ToChild, FromChild>({
      name: 'indexing process',
      workerPath,
      // The indexing process's node flags (small V8 semi-spaces, as `docs-rag index` has them), not the host's own.
      execArgv: withIndexingFlags([]),
      privateTemp: true,
      log,
      backoff: { minMs: 1000, maxMs: 30_000, stableMs: 60_000 },
      onMessage: (m) => this.onMessage(m),
      onReady: (child) => child.send({ type: 'configure', folders: this.folders } satisfies ToChild),
      onExit: (reason) => this.onExit(reason),
    });
  }

  /** The child's pid while it runs. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The folders and their settings; sent now if the child runs, and to every new child. */
  configure(folders: FolderSpec[]): void {
    this.folders = folders;
    this.child.post({ type: 'configure', folders });
  }

  run(key: string, request: IndexRequest): Promise<IndexRunResult> {
    if (request.signal?.aborted) return Promise.reject(abortError());
    const cancel = (id: number) => this.child.post({ type: 'cancel', id });
    const { id, promise } = this.pending.add({ key, onProgress: request.onProgress }, request.signal, cancel);
    this.child
      .start()
      .then((child) => {
        if (!this.pending.has(id)) return;
        child.send({ type: 'run', id, key, full: request.full, paths: request.paths } satisfies ToChild);
        if (request.signal?.aborted) cancel(id);
      })
      .catch((err: unknown) => this.pending.settle(id, (p) => p.reject(asError(err))));
    return promise;
  }

  private onMessage(m: FromChild): void {
    switch (m.type) {
      case 'started':
        this.startEmitter.fire({ key: m.key, what: m.what });
        break;
      case 'progress':
        this.pending.get(m.id)?.onProgress?.(m.progress);
        break;
      case 'result':
        this.pending.settle(m.id, (p) => p.resolve(m.result));
        break;
      case 'error':
        this.pending.settle(m.id, (p) => p.reject(childError(m.name, m.message)));
        break;
      case 'log':
        this.log[m.level](m.message);
        break;
    }
  }

  private onExit(reason: string): void {
    this.log.error(`${reason}; the index keeps every file finished before, and the next run repairs the rest`);
    this.pending.rejectAll(() => new Error(reason));
    this.crashEmitter.fire({ reason });
  }

  dispose(): void {
    this.child.dispose({ type: 'shutdown' });
    this.pending.rejectAll(abortError);
    this.crashEmitter.dispose();
    this.startEmitter.dispose();
  }
}
