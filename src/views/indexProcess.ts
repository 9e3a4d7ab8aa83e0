// The extension's indexing process: forks dist/indexWorker.js (src/indexProcess/main.ts) with an IPC channel and
// drives it. Requests carry their own cancellation and progress; the child merges them per index. When the child dies
// (crash, out of memory, killed), every request it held fails with the reason, `onDidCrash` fires (status bar, log), and
// the next request starts a new child after a backoff (1 s, doubling to 30 s; reset once a child has lived a minute).
import * as vscode from 'vscode';
import { Supervisor } from '../childProcess/supervisor';
import type { IndexProgress, IndexRunResult } from '../rag/index/indexer';
import type { FolderSpec, FromChild, ToChild } from '../indexProcess/protocol';
import type { Log } from './log';

export interface IndexRequest {
  full?: boolean;
  paths?: string[];
  signal?: AbortSignal;
  onProgress?: (p: IndexProgress) => void;
}

interface Pending {
  key: string;
  resolve: (r: IndexRunResult) => void;
  reject: (err: Error) => void;
  onProgress?: (p: IndexProgress) => void;
}

export class IndexProcess implements vscode.Disposable {
  private readonly child: Supervisor<ToChild, FromChild>;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
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
    const id = this.nextId++;
    return new Promise<IndexRunResult>((resolve, reject) => {
      const onAbort = () => this.child.post({ type: 'cancel', id });
      request.signal?.addEventListener('abort', onAbort, { once: true });
      const done = () => request.signal?.removeEventListener('abort', onAbort);
      this.pending.set(id, {
        key,
        onProgress: request.onProgress,
        resolve: (r) => {
          done();
          resolve(r);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      this.child
        .start()
        .then((child) => {
          if (!this.pending.has(id)) return;
          child.send({ type: 'run', id, key, full: request.full, paths: request.paths } satisfies ToChild);
          if (request.signal?.aborted) onAbort();
        })
        .catch((err: unknown) => this.settle(id, (p) => p.reject(err instanceof Error ? err : new Error(String(err)))));
    });
  }

  private settle(id: number, fn: (p: Pending) => void): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    fn(p);
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
        this.settle(m.id, (p) => p.resolve(m.result));
        break;
      case 'error':
        this.settle(m.id, (p) => {
          const err = new Error(m.message);
          err.name = m.name;
          p.reject(err);
        });
        break;
      case 'log':
        this.log[m.level](m.message);
        break;
    }
  }

  private onExit(reason: string): void {
    this.log.error(`${reason}; the index keeps every file finished before, and the next run repairs the rest`);
    for (const id of [...this.pending.keys()]) this.settle(id, (p) => p.reject(new Error(reason)));
    this.crashEmitter.fire({ reason });
  }

  dispose(): void {
    this.child.dispose({ type: 'shutdown' });
    for (const id of [...this.pending.keys()]) this.settle(id, (p) => p.reject(abortError()));
    this.crashEmitter.dispose();
    this.startEmitter.dispose();
  }
}

function abortError(): Error {
  const err = new Error('cancelled');
  err.name = 'AbortError';
  return err;
}
