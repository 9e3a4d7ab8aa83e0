// One supervised Node child process with an IPC channel: the extension's indexing process (src/views/indexProcess.ts)
// and its search process (src/searchProcess/client.ts). Starts the child on first use and waits for its `ready`
// message; keeps the last lines of its stderr to explain a death; when it dies, says how (exit code or signal and those
// lines) and starts the next one only after a backoff when children keep dying young. Neutral: no `vscode`.
import { fork, type ChildProcess, type Serializable } from 'node:child_process';
import { INDEXING_MALLOC_ENV } from '../indexProcess/protocol';
import { lanceTempDir } from '../rag/index/lanceTemp';

export interface SupervisorLog {
  info(message: string): void;
  error(message: string): void;
}

export interface SupervisorOptions<FromChild> {
  /** "indexing process", "search process": used in every message. */
  name: string;
  workerPath: string;
  log: SupervisorLog;
  serialization?: 'json' | 'advanced';
  /** Node options of the child (default: the parent's). */
  execArgv?: string[];
  /** The child builds LanceDB indexes: it gets a temp directory of its own, deleted when it exits (lanceTemp.ts). */
  privateTemp?: boolean;
  /** Backoff before the next child after a death: starts at `minMs`, doubles to `maxMs`. */
  backoff: {
    minMs: number;
    maxMs: number;
    /** A child that lived this long died of something else than its start: the backoff starts over. */
    stableMs: number;
    /** After a long-lived child, the next one starts at once (instead of after `minMs`). */
    immediateAfterStable?: boolean;
  };
  /** Every message but `ready`. */
  onMessage(m: FromChild): void;
  /** The child is ready (sent `{ type: 'ready', pid }`): send what every new child needs before any request. */
  onReady(child: ChildProcess): void;
  /** The child died; `reason` says how. Not called after dispose. */
  onExit(reason: string): void;
}

const STDERR_LINES = 20;

export class Supervisor<ToChild extends Serializable, FromChild extends { type: string }> {
  private child: ChildProcess | null = null;
  private ready: Promise<ChildProcess> | null = null;
  private backoffMs = 0;
  private startedAt = 0;
  private notBefore = 0;
  private stderr: string[] = [];
  private disposed = false;
  /** A child asked to stop (see stop()): its exit is no death. */
  private stopping: ChildProcess | null = null;

  constructor(private readonly o: SupervisorOptions<FromChild>) {}

  /** The child's pid while it runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  get connected(): boolean {
    return this.child?.connected === true;
  }

  /** Sends to the running child (nothing when none runs). */
  post(m: ToChild): void {
    if (this.child?.connected) this.child.send(m);
  }

  /** The running child, or a new one (after the backoff when the last one died). */
  start(): Promise<ChildProcess> {
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
    const env = { ...INDEXING_MALLOC_ENV, ...process.env, ELECTRON_RUN_AS_NODE: '1' };
    const temp = this.o.privateTemp ? lanceTempDir(env) : undefined;
    const child = fork(this.o.workerPath, [], {
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      serialization: this.o.serialization ?? 'json',
      ...(this.o.execArgv ? { execArgv: this.o.execArgv } : {}),
      // In VS Code's Electron the executable is Electron itself: run it as plain Node. The malloc settings bound what
      // freed memory the process keeps (see INDEXING_MALLOC_ENV); the user's own settings win.
      env: temp?.env ?? env,
    });
    if (temp) child.once('exit', () => temp.dispose());
    this.child = child;
    this.startedAt = Date.now();
    child.stdout?.on('data', (d: Buffer) => this.o.log.info(`${this.o.name}: ${d.toString().trimEnd()}`));
    child.stderr?.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n')) {
        if (!line.trim()) continue;
        this.stderr.push(line);
        if (this.stderr.length > STDERR_LINES) this.stderr.shift();
      }
    });
    child.on('message', (m: FromChild) => {
      if (m.type !== 'ready') this.o.onMessage(m);
    });
    child.once('exit', (code, signal) => this.onExit(child, code, signal));
    return new Promise<ChildProcess>((resolve, reject) => {
      const onReady = (m: FromChild & { pid?: number }) => {
        if (m.type !== 'ready') return;
        child.off('message', onReady);
        child.off('exit', onEarlyExit);
        this.o.log.info(`${this.o.name} started (pid ${m.pid ?? child.pid})`);
        this.o.onReady(child);
        resolve(child);
      };
      const onEarlyExit = () => reject(new Error(`the ${this.o.name} could not start: ${this.stderr.slice(-3).join(' ') || 'it exited at once'}`));
      child.on('message', onReady);
      child.once('exit', onEarlyExit);
      child.once('error', (err) => reject(err));
    });
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.stopping === child) this.stopping = null;
    if (this.child !== child) return;
    this.child = null;
    this.ready = null;
    if (this.disposed) return;
    const how = signal ? `killed by ${signal}` : `exited with code ${code}`;
    const detail = this.stderr.slice(-3).join(' ').trim();
    const { minMs, maxMs, stableMs, immediateAfterStable } = this.o.backoff;
    const stable = Date.now() - this.startedAt > stableMs;
    if (stable) this.backoffMs = immediateAfterStable ? 0 : minMs;
    else this.backoffMs = Math.max(minMs, this.backoffMs);
    this.notBefore = Date.now() + this.backoffMs;
    this.backoffMs = Math.min(maxMs, Math.max(minMs, this.backoffMs * 2));
    this.o.onExit(`the ${this.o.name} ${how}${detail ? `: ${detail}` : ''}`);
  }

  /** Stops the running child (`shutdown`, killed if still there 5 s later); the next start() begins a new one at once. */
  stop(shutdown: ToChild): void {
    const child = this.child;
    this.child = null;
    this.ready = null;
    this.notBefore = 0;
    if (child?.connected) {
      this.stopping = child;
      child.send(shutdown);
      setTimeout(() => child.exitCode === null && child.kill('SIGKILL'), 5000).unref();
    }
  }

  /** Stops the child for good. */
  dispose(shutdown: ToChild): void {
    this.disposed = true;
    this.stop(shutdown);
  }
}

interface Settler<T> {
  resolve(value: T): void;
  reject(err: Error): void;
}

/**
 * The requests sent to a child and not answered yet, by id, each with what its caller attached (progress callback,
 * chat model, …) and its cancellation: `onAbort(id)` runs when the caller's signal aborts while the request is pending.
 */
export class PendingRequests<T, Extra extends object> {
  private readonly byId = new Map<number, Extra & Settler<T>>();
  private nextId = 1;

  get size(): number {
    return this.byId.size;
  }

  has(id: number): boolean {
    return this.byId.has(id);
  }

  get(id: number): Extra | undefined {
    return this.byId.get(id);
  }

  add(extra: Extra, signal: AbortSignal | undefined, onAbort: (id: number) => void): { id: number; promise: Promise<T> } {
    const id = this.nextId++;
    const promise = new Promise<T>((resolve, reject) => {
      const abort = () => onAbort(id);
      signal?.addEventListener('abort', abort, { once: true });
      const done = () => signal?.removeEventListener('abort', abort);
      this.byId.set(id, {
        ...extra,
        resolve: (v: T) => {
          done();
          resolve(v);
        },
        reject: (e: Error) => {
          done();
          reject(e);
        },
      });
    });
    return { id, promise };
  }

  /** Removes the request and settles it through `fn`; false when it was no longer pending. */
  settle(id: number, fn: (p: Extra & Settler<T>) => void): boolean {
    const p = this.byId.get(id);
    if (!p) return false;
    this.byId.delete(id);
    fn(p);
    return true;
  }

  /** Fails every pending request (the child died, or the client is disposed). */
  rejectAll(err: () => Error): void {
    for (const id of [...this.byId.keys()]) this.settle(id, (p) => p.reject(err()));
  }
}

/** The error of a request the caller cancelled. */
export function abortError(): Error {
  const err = new Error('cancelled');
  err.name = 'AbortError';
  return err;
}

/** A child's error message as an Error with the child's name for it (AbortError stays recognisable). */
export function childError(name: string, message: string): Error {
  const err = new Error(message);
  err.name = name;
  return err;
}

export function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
