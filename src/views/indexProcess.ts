// The extension's indexing process: forks dist/indexWorker.js (src/indexProcess/main.ts) with an IPC channel and
// drives it. Requests carry their own cancellation and progress; the child merges them per index. When the child dies
// (crash, out of memory, killed), every request it held fails with the reason, `onDidCrash` fires (status bar, log), and
// the next request starts a new child after a backoff (1 s, doubling to 30 s; reset once a child has lived a minute).
import { fork, type ChildProcess } from 'node:child_process';
import * as vscode from 'vscode';
import type { IndexProgress, IndexRunResult } from '../rag/index/indexer';
import { INDEXING_MALLOC_ENV, type FolderSpec, type FromChild, type ToChild } from '../indexProcess/protocol';
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

const MIN_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 30_000;
const STABLE_MS = 60_000;
/** Lines of the child's stderr kept to explain a crash. */
const STDERR_LINES = 20;

export class IndexProcess implements vscode.Disposable {
  private child: ChildProcess | null = null;
  private ready: Promise<ChildProcess> | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private folders: FolderSpec[] = [];
  private backoffMs = MIN_BACKOFF_MS;
  private startedAt = 0;
  private notBefore = 0;
  private stderr: string[] = [];
  private disposed = false;
  private readonly crashEmitter = new vscode.EventEmitter<{ reason: string }>();
  /** The child died; `reason` says how (exit code or signal, and its last error output). */
  readonly onDidCrash = this.crashEmitter.event;
  private readonly startEmitter = new vscode.EventEmitter<{ key: string; what: string }>();
  /** A merged run of one folder started in the child. */
  readonly onDidStartRun = this.startEmitter.event;

  constructor(
    private readonly workerPath: string,
    private readonly log: Log,
  ) {}

  /** The child's pid while it runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The folders and their settings; sent now if the child runs, and to every new child. */
  configure(folders: FolderSpec[]): void {
    this.folders = folders;
    this.post({ type: 'configure', folders });
  }

  run(key: string, request: IndexRequest): Promise<IndexRunResult> {
    if (request.signal?.aborted) return Promise.reject(abortError());
    const id = this.nextId++;
    return new Promise<IndexRunResult>((resolve, reject) => {
      const onAbort = () => this.post({ type: 'cancel', id });
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
      this.start()
        .then((child) => {
          if (!this.pending.has(id)) return;
          child.send({ type: 'run', id, key, full: request.full, paths: request.paths } satisfies ToChild);
          if (request.signal?.aborted) onAbort();
        })
        .catch((err: unknown) => this.settle(id, (p) => p.reject(err instanceof Error ? err : new Error(String(err)))));
    });
  }

  private post(m: ToChild): void {
    if (this.child?.connected) this.child.send(m);
  }

  private settle(id: number, fn: (p: Pending) => void): void {
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    fn(p);
  }

  /** Starts the child if it is not running (after the backoff when the last one died). */
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
      // In VS Code's Electron the executable is Electron itself: run it as plain Node. The malloc settings bound what
      // freed memory the process keeps (see INDEXING_MALLOC_ENV); the user's own settings win.
      env: { ...INDEXING_MALLOC_ENV, ...process.env, ELECTRON_RUN_AS_NODE: '1' },
    });
    this.child = child;
    this.startedAt = Date.now();
    child.stdout?.on('data', (d: Buffer) => this.log.info(`indexing process: ${d.toString().trimEnd()}`));
    child.stderr?.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n')) {
        if (!line.trim()) continue;
        this.stderr.push(line);
        if (this.stderr.length > STDERR_LINES) this.stderr.shift();
      }
    });
    child.on('message', (m: FromChild) => this.onMessage(m));
    child.once('exit', (code, signal) => this.onExit(child, code, signal));
    return new Promise<ChildProcess>((resolve, reject) => {
      const onReady = (m: FromChild) => {
        if (m.type !== 'ready') return;
        child.off('message', onReady);
        child.off('exit', onEarlyExit);
        this.log.info(`indexing process started (pid ${m.pid})`);
        child.send({ type: 'configure', folders: this.folders } satisfies ToChild);
        resolve(child);
      };
      const onEarlyExit = () => reject(new Error(`the indexing process could not start: ${this.stderr.slice(-3).join(' ') || 'it exited at once'}`));
      child.on('message', onReady);
      child.once('exit', onEarlyExit);
      child.once('error', (err) => reject(err));
    });
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

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    this.child = null;
    this.ready = null;
    if (this.disposed) return;
    const how = signal ? `killed by ${signal}` : `exited with code ${code}`;
    const detail = this.stderr.slice(-3).join(' ').trim();
    const reason = `the indexing process ${how}${detail ? `: ${detail}` : ''}`;
    this.log.error(`${reason}; the index keeps every file finished before, and the next run repairs the rest`);
    for (const id of [...this.pending.keys()]) this.settle(id, (p) => p.reject(new Error(reason)));
    this.crashEmitter.fire({ reason });
    // Backoff: a child that lived long was fine until now; one that dies at once waits longer each time.
    if (Date.now() - this.startedAt > STABLE_MS) this.backoffMs = MIN_BACKOFF_MS;
    this.notBefore = Date.now() + this.backoffMs;
    this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
  }

  dispose(): void {
    this.disposed = true;
    for (const id of [...this.pending.keys()]) this.settle(id, (p) => p.reject(abortError()));
    const child = this.child;
    this.child = null;
    this.ready = null;
    if (child?.connected) {
      child.send({ type: 'shutdown' } satisfies ToChild);
      // Killed if it does not finish closing in time.
      setTimeout(() => child.exitCode === null && child.kill('SIGKILL'), 5000).unref();
    }
    this.crashEmitter.dispose();
    this.startEmitter.dispose();
  }
}

function abortError(): Error {
  const err = new Error('cancelled');
  err.name = 'AbortError';
  return err;
}
