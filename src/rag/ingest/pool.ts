// ParserPool: every parse runs in a worker thread with a hard deadline. A worker that passes its deadline (for example
// pdf.js spinning for minutes on a broken file: a timer on the same thread would never fire) is terminated and replaced.
import { existsSync } from 'fs';
import { stat } from 'fs/promises';
import * as path from 'path';
import { Worker } from 'worker_threads';
import { READ_EXTENSIONS } from '../formats';
import { LoadError, type ParsedDocument } from '../types';
import { formatOf } from './formats';
import type { OcrOptions } from './ocr';
import type { ParseReply, ParseRequest } from './workerProtocol';

export interface ParseOptions {
  /** Per-file deadline; the worker is killed when it passes. */
  timeoutMs: number;
  /** Files larger than this are refused with a 'too-large' LoadError. */
  maxFileSizeMB: number;
  signal?: AbortSignal;
  /** OCR of scanned PDF pages and images; the deadline restarts before each recognised page. */
  ocr?: OcrOptions;
  /** The file's size when the caller has just read it (a walk's stat): saves the pool its own stat of a regular file. */
  size?: number;
}

export interface ParserPoolOptions {
  /** Path of the worker script; by default found next to this module (source under tsx, or dist/parseWorker.js). */
  workerPath?: string;
  /** V8 old-generation heap limit per worker (MB); a worker that exceeds it dies and the file is reported. */
  maxMemoryMb?: number;
}

interface Job {
  request: ParseRequest;
  options: ParseOptions;
  /** The file's size in bytes. */
  size: number;
  /** The parsed document, or for a request with `then` the worker's result. */
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  onAbort?: () => void;
}

interface Slot {
  worker: Worker;
  job: Job | null;
  timer: NodeJS.Timeout | null;
}

/** Where the worker entry lives: the .ts source when this module runs from source (tsx), else dist/parseWorker.js. */
export function defaultWorkerPath(): string {
  if (process.env.DOCS_RAG_PARSE_WORKER) return process.env.DOCS_RAG_PARSE_WORKER;
  if (__filename.endsWith('.ts')) return path.join(__dirname, 'parseWorker.ts');
  // Bundled: __dirname is the folder of dist/cli.js or dist/extension.js.
  return path.join(__dirname, 'parseWorker.js');
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const err = new Error('parsing was cancelled');
  err.name = 'AbortError';
  return err;
}

/** The size of a regular file, or a LoadError saying why it cannot be parsed. */
async function fileSize(absPath: string): Promise<number> {
  try {
    const st = await stat(absPath);
    if (!st.isFile()) throw new LoadError('unsupported', 'not a regular file; skipped');
    return st.size;
  } catch (err) {
    if (err instanceof LoadError) throw err;
    throw new LoadError('corrupt', `cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)}); check that it exists and is readable`);
  }
}

function seconds(ms: number): string {
  return `${Math.round((ms / 1000) * 10) / 10} s`;
}

/**
 * A worker that parsed a file at least this large is replaced: V8 keeps a worker's grown heap long after the parse (a
 * large HTML manual's DOM is many times the file's size), so a run would otherwise carry it through every later file and
 * its write.
 */
export const RECYCLE_AFTER_BYTES = 2 * 1024 * 1024;

export class ParserPool {
  /** Workers started so far (replacements included). */
  spawned = 0;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private readonly workerPath: string;
  private readonly maxMemoryMb: number;
  private nextId = 1;
  /** The admission of the latest parse() call (never rejects): the next call is admitted after it. */
  private admission: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly size: number,
    options: ParserPoolOptions = {},
  ) {
    if (!Number.isInteger(size) || size < 1) throw new Error(`ParserPool size must be a positive integer, got ${size}`);
    this.workerPath = options.workerPath ?? defaultWorkerPath();
    this.maxMemoryMb = options.maxMemoryMb ?? 1536;
    if (!existsSync(this.workerPath)) {
      throw new Error(`parser worker not found at ${this.workerPath}; build it with "npm run build" (dist/parseWorker.js) or set DOCS_RAG_PARSE_WORKER`);
    }
  }

  /**
   * Resolves with the document or rejects with a LoadError (kind + human reason); never hangs past timeoutMs.
   * Parses start in the order they were called: each call is checked (stat, size limit) and queued only after the call
   * before it, so a quick stat of a later call cannot overtake an earlier one and take its worker.
   */
  parse(absPath: string, options: ParseOptions): Promise<ParsedDocument> {
    return this.submit(absPath, options, undefined) as Promise<ParsedDocument>;
  }

  /**
   * Like parse(), but the worker runs its entry's follow-up step with `then` (the worker must have one, e.g. the
   * indexer's prepareWorker) and this resolves with that step's result. Same admission, deadline and limits.
   */
  run<T>(absPath: string, options: ParseOptions, then: unknown): Promise<T> {
    return this.submit(absPath, options, then) as Promise<T>;
  }

  private submit(absPath: string, options: ParseOptions, then: unknown): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('ParserPool is closed'));
    return new Promise<unknown>((resolve, reject) => {
      const admitted = this.admission.then(() => this.admit(absPath, options, then, resolve, reject));
      this.admission = admitted.catch(reject);
    });
  }

  /** Checks one call and queues its job (or rejects it); runs strictly after the previous call's admit. */
  private async admit(absPath: string, options: ParseOptions, then: unknown, resolve: Job['resolve'], reject: Job['reject']): Promise<void> {
    if (this.closed) throw new Error('ParserPool is closed');
    if (options.signal?.aborted) throw abortError(options.signal);
    const format = formatOf(absPath);
    if (!format) throw new LoadError('unsupported', `unsupported file type "${path.extname(absPath) || '(none)'}"; supported: ${READ_EXTENSIONS.join(', ')}`);
    const size = options.size ?? (await fileSize(absPath));
    if (options.signal?.aborted) throw abortError(options.signal);
    const limit = options.maxFileSizeMB * 1024 * 1024;
    if (size > limit) {
      const mb = (size / 1024 / 1024).toFixed(1);
      throw new LoadError('too-large', `file is ${mb} MB, larger than the limit of ${options.maxFileSizeMB} MB; skipped (raise maxFileSizeMB to index it)`);
    }
    if (this.closed) throw new Error('ParserPool is closed');
    const request: ParseRequest = { id: this.nextId++, absPath, format, ocr: options.ocr };
    if (then !== undefined) request.then = then;
    this.enqueue({ request, options, size, resolve, reject });
  }

  /**
   * Runs the worker entry's follow-up step with `then` and no file (work the main thread prepared for a file it is
   * indexing, e.g. texts to embed): the same queue, deadline and abort as a file's parse.
   */
  compute<T>(then: unknown, options: Pick<ParseOptions, 'timeoutMs' | 'signal'>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('ParserPool is closed'));
    if (options.signal?.aborted) return Promise.reject(abortError(options.signal));
    return new Promise<unknown>((resolve, reject) => {
      this.enqueue({ request: { id: this.nextId++, then }, options: { ...options, maxFileSizeMB: 0 }, size: 0, resolve, reject });
    }) as Promise<T>;
  }

  private enqueue(job: Job): void {
    const { options } = job;
    if (options.signal) {
      const signal = options.signal;
      job.onAbort = () => this.abort(job, abortError(signal));
      signal.addEventListener('abort', job.onAbort, { once: true });
    }
    this.queue.push(job);
    this.pump();
  }

  /** Starts a worker now if none is running, so the first parse does not wait for it to load its code. */
  warm(): void {
    if (!this.closed && this.slots.length === 0) this.spawn();
  }

  /** Terminates all workers; queued parses reject. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) this.finish(job, new Error('ParserPool closed before the file was parsed'));
    const workers = this.slots.splice(0).map((s) => {
      if (s.timer) clearTimeout(s.timer);
      if (s.job) this.finish(s.job, new Error('ParserPool closed while parsing'));
      return s.worker.terminate();
    });
    await Promise.allSettled(workers);
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.job === null);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      this.start(slot, this.queue.shift()!);
    }
  }

  private spawn(): Slot {
    const resourceLimits = { maxOldGenerationSizeMb: this.maxMemoryMb };
    // A variable, not a literal: bundlers must not try to resolve the source-only tsx loader.
    const tsxLoader = 'tsx/cjs';
    const worker = this.workerPath.endsWith('.ts')
      ? // Running from source: register tsx inside the worker, then load the TypeScript entry.
        new Worker(`require(${JSON.stringify(require.resolve(tsxLoader))}); require(${JSON.stringify(this.workerPath)});`, {
          eval: true,
          resourceLimits,
        })
      : new Worker(this.workerPath, { resourceLimits });
    const slot: Slot = { worker, job: null, timer: null };
    this.spawned++;
    worker.unref();
    worker.on('message', (reply: ParseReply) => this.onReply(slot, reply));
    worker.on('error', (err: Error & { code?: string }) => {
      const job = slot.job;
      if (!job) return;
      // Running out of the worker's heap means the content is too big to parse (or a decompression bomb).
      const failure =
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new LoadError('too-large', `parsing needed more memory than the parser's limit of ${this.maxMemoryMb} MB; skipped`)
          : new LoadError('corrupt', `parser crashed: ${err.message}`);
      this.retire(slot, failure);
    });
    worker.on('exit', (code) => {
      if (this.slots.includes(slot)) {
        const fallback = new LoadError('corrupt', `parser worker exited unexpectedly (code ${code}); skipped`);
        this.retire(slot, slot.job ? fallback : null);
      }
    });
    this.slots.push(slot);
    return slot;
  }

  private start(slot: Slot, job: Job): void {
    slot.job = job;
    slot.worker.ref();
    this.arm(slot, `parsing took longer than ${seconds(job.options.timeoutMs)}; skipped`);
    slot.worker.postMessage(job.request);
  }

  private arm(slot: Slot, reason: string): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = setTimeout(() => this.retire(slot, new LoadError('timeout', reason)), slot.job!.options.timeoutMs);
  }

  private onReply(slot: Slot, reply: ParseReply): void {
    const job = slot.job;
    if (!job || job.request.id !== reply.id) return;
    if ('deadline' in reply) {
      // OCR of one page starts: the deadline applies per recognised page.
      this.arm(slot, `recognising a page (OCR) took longer than ${seconds(job.options.timeoutMs)}; skipped`);
      return;
    }
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.job = null;
    slot.worker.unref();
    if (reply.ok) this.finish(job, null, job.request.then === undefined ? reply.doc : reply.result);
    else this.finish(job, reply.kind ? new LoadError(reply.kind, reply.message) : new LoadError('corrupt', `cannot parse: ${reply.message}`));
    if (job.size >= RECYCLE_AFTER_BYTES) this.retire(slot, null);
    else this.pump();
  }

  /** Kills a worker (deadline, crash or abort), settles its job and lets a fresh worker take the queue. */
  private retire(slot: Slot, err: Error | null): void {
    const index = this.slots.indexOf(slot);
    if (index >= 0) this.slots.splice(index, 1);
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    const job = slot.job;
    slot.job = null;
    void slot.worker.terminate();
    if (job && err) this.finish(job, err);
    if (!this.closed) this.pump();
  }

  private abort(job: Job, err: Error): void {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.finish(job, err);
      return;
    }
    const slot = this.slots.find((s) => s.job === job);
    if (slot) this.retire(slot, err);
  }

  private finish(job: Job, err: Error | null, value?: unknown): void {
    if (job.onAbort) job.options.signal?.removeEventListener('abort', job.onAbort);
    if (err) job.reject(err);
    else job.resolve(value);
  }
}
