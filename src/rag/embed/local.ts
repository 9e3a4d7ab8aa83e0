// The `local` embedder: an ONNX embedding model run in-process by transformers.js on onnxruntime-node, in a worker
// thread (localWorker.ts), batched. The model is a folder in transformers.js layout — named by the user (offline
// machines) or a known model downloaded once into the cache (modelDownload.ts; the CLI and the extension download
// with progress before the engine opens, this class never downloads). Vectors are pooled the model's way (mean, or
// CLS for sentence-transformers models that say so) and L2-normalised; task prefixes as for Ollama (prefixes.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ModelError, type Embedder } from '../types';
import { orderByLength } from './lengthPasses';
import { knownModel, type KnownModel } from './localModels';
import type { LocalWorkerData } from './localWorker';
import { defaultModelCacheDir, downloadedModelDir } from './modelDownload';
import { taskPrefixes, type TaskPrefixes } from './prefixes';

export interface LocalEmbedderOptions {
  /** A model folder, or the name of a known model (localModels.ts) already downloaded into `cacheDir`. */
  model: string;
  cacheDir?: string;
  batchSize: number;
  /** Per batch. */
  timeoutMs: number;
  threads?: number;
  queryPrefix?: string;
  documentPrefix?: string;
  /** Worker entry; by default next to this module (source under tsx, or dist/localEmbedWorker.js). */
  workerPath?: string;
}

export interface ResolvedModel {
  dir: string;
  dtype: 'q8' | 'fp32';
  pooling: 'mean' | 'cls';
  /** Name for prefixes and the index's record. */
  name: string;
  known?: KnownModel;
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** Checks a model folder and reads how to run it. Throws a ModelError naming what is missing. */
export function inspectModelDir(dir: string, known?: KnownModel): ResolvedModel {
  const missing = ['config.json', 'tokenizer.json'].filter((f) => !fs.existsSync(path.join(dir, f)));
  const quantised = fs.existsSync(path.join(dir, 'onnx/model_quantized.onnx'));
  const full = fs.existsSync(path.join(dir, 'onnx/model.onnx'));
  if (!quantised && !full) missing.push('onnx/model.onnx (or onnx/model_quantized.onnx)');
  if (missing.length) {
    throw new ModelError(
      'model-missing',
      `The embedding model folder ${dir} is incomplete: ${missing.join(', ')} missing. A model folder has the transformers.js ` +
        `layout (config.json, tokenizer.json, onnx/model.onnx); copy it again, or use a known model name (--model ` +
        `multilingual-e5-small) to download it.`,
    );
  }
  let pooling: 'mean' | 'cls' = known?.pooling ?? 'mean';
  try {
    // sentence-transformers models say their pooling in 1_Pooling/config.json.
    const st = JSON.parse(fs.readFileSync(path.join(dir, '1_Pooling/config.json'), 'utf8'));
    if (st.pooling_mode_cls_token) pooling = 'cls';
  } catch {
    // no sentence-transformers pooling file: mean pooling
  }
  return { dir, dtype: quantised ? 'q8' : 'fp32', pooling, name: known?.id ?? dir, known };
}

/** Folder or known name → a checked model folder; a known model must be downloaded already. */
export function resolveLocalModel(model: string, cacheDir = defaultModelCacheDir()): ResolvedModel {
  if (isDirectory(model)) return inspectModelDir(path.resolve(model));
  const known = knownModel(model);
  if (!known) {
    throw new ModelError(
      'model-missing',
      `No embedding model folder at ${path.resolve(model)}, and "${model}" is not a known model name. Name a folder in ` +
        `transformers.js layout (config.json, tokenizer.json, onnx/model.onnx) or a known model: multilingual-e5-small.`,
    );
  }
  const dir = downloadedModelDir(known, cacheDir);
  if (!dir) {
    throw new ModelError(
      'model-missing',
      `The embedding model ${known.id} is not downloaded yet (looked in ${cacheDir}). Download it with ` +
        `\`docs-rag index <folder> --embedder local\` (asks nothing, shows progress) or the Docs RAG download prompt in VS Code, ` +
        `or name a copied model folder with --model <dir> / docsRag.local.modelPath.`,
    );
  }
  return inspectModelDir(dir, known);
}

/** Where the worker entry lives: the .ts source when this module runs from source (tsx), else dist/localEmbedWorker.js. */
export function defaultLocalWorkerPath(): string {
  if (process.env.DOCS_RAG_LOCAL_EMBED_WORKER) return process.env.DOCS_RAG_LOCAL_EMBED_WORKER;
  if (__filename.endsWith('.ts')) return path.join(__dirname, 'localWorker.ts');
  return path.join(__dirname, 'localEmbedWorker.js');
}

interface Pending {
  resolve(v: Float32Array[]): void;
  reject(e: Error): void;
  count: number;
  timer: NodeJS.Timeout;
}

export class LocalEmbedder implements Embedder {
  readonly id = 'local';
  /** A semantic model's vectors are kept whole (no quality measured here for codes of them). */
  readonly vectorLayout = 'float' as const;
  /** A real model: vectors are filled after the text is written (keyword search first). */
  readonly deferVectors = true;
  /** The known model's name, or the absolute folder (recorded in the index; reopened from there). */
  readonly model: string;
  dimension = 0;
  readonly prefixes: TaskPrefixes;
  /**
   * The largest forward pass so far, in padded tokens (texts × the longest): the worker cuts each batch into passes of
   * at most TOKENS_PER_PASS (a single longer text runs alone), which bounds the activations' memory.
   */
  largestPass = 0;
  private readonly opts: LocalEmbedderOptions;
  private worker: Worker | null = null;
  private starting: Promise<void> | null = null;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();

  constructor(opts: LocalEmbedderOptions) {
    this.opts = opts;
    this.model = isDirectory(opts.model) ? path.resolve(opts.model) : opts.model;
    const known = taskPrefixes(path.basename(this.model));
    this.prefixes = { query: opts.queryPrefix ?? known.query, document: opts.documentPrefix ?? known.document };
  }

  /** Starts the worker and loads the model (once); learns the dimension. */
  init(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(new ModelError('cancelled', 'Cancelled.'));
    this.starting ??= this.start().catch((err) => {
      this.starting = null;
      throw err;
    });
    return this.starting;
  }

  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    return this.embedAll(texts, this.prefixes.document, signal);
  }

  embedQueries(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    return this.embedAll(texts, this.prefixes.query, signal);
  }

  /** Stops the worker (the engine calls it on close). */
  close(): Promise<void> {
    return this.release();
  }

  /** Stops the worker and so unloads the model; the next call starts it again (the dimension stays known). */
  async release(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    this.starting = null;
    this.failAll(new ModelError('cancelled', 'The local embedder was closed.'));
    if (w) await w.terminate();
  }

  /** Whether the model is loaded (its worker running). */
  get loaded(): boolean {
    return this.worker !== null;
  }

  private async start(): Promise<void> {
    const resolved = resolveLocalModel(this.opts.model, this.opts.cacheDir);
    const workerPath = this.opts.workerPath ?? defaultLocalWorkerPath();
    if (!fs.existsSync(workerPath)) {
      throw new ModelError('other', `The local embedder's worker is missing at ${workerPath}; build it with "npm run build" (dist/localEmbedWorker.js).`);
    }
    const workerData: LocalWorkerData = { modelDir: resolved.dir, dtype: resolved.dtype, pooling: resolved.pooling, threads: this.opts.threads };
    // A variable, not a literal: bundlers must not try to resolve the source-only tsx loader.
    const tsxLoader = 'tsx/cjs';
    const worker = workerPath.endsWith('.ts')
      ? new Worker(`require(${JSON.stringify(require.resolve(tsxLoader))}); require(${JSON.stringify(workerPath)});`, { eval: true, workerData })
      : new Worker(workerPath, { workerData });
    this.worker = worker;
    // One listener per event for the worker's life: first the load (ready or error), then the replies.
    let loaded: { resolve(d: number): void; reject(e: Error): void } | null = null;
    const dimension = new Promise<number>((resolve, reject) => (loaded = { resolve, reject }));
    worker.on('message', (m: { type: string; id: number; dimension?: number; message?: string }) => {
      if (m.type === 'ready') loaded?.resolve(m.dimension!);
      else if (m.type === 'error' && m.id === -1) loaded?.reject(this.loadError(resolved, m.message ?? ''));
      else this.onReply(m);
    });
    worker.on('error', (err) => {
      loaded?.reject(this.loadError(resolved, err.message));
      this.failAll(new ModelError('other', `The local embedder failed: ${err.message}`));
    });
    worker.on('exit', (code) => {
      loaded?.reject(this.loadError(resolved, `worker exited with code ${code}`));
      if (this.worker === worker) this.worker = null;
      this.starting = null;
      this.failAll(new ModelError('other', 'The local embedder stopped unexpectedly; the next call starts it again.'));
    });
    this.dimension = await dimension;
    loaded = null;
    if (this.pending.size === 0) worker.unref();
  }

  private loadError(m: ResolvedModel, message: string): ModelError {
    void this.worker?.terminate();
    this.worker = null;
    return new ModelError(
      'other',
      `Cannot load the embedding model in ${m.dir}: ${message}. Check that the folder is a complete transformers.js model ` +
        `(download it again, or copy it again); meanwhile the builtin embedder works (--embedder builtin).`,
    );
  }

  private onReply(m: { type: string; id: number; data?: Float32Array; dimension?: number; message?: string; largestPass?: number }): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    clearTimeout(p.timer);
    if (this.pending.size === 0) this.worker?.unref();
    if (m.type === 'error') return p.reject(new ModelError('other', `The local embedding model failed: ${m.message}`));
    const dim = m.dimension!;
    this.largestPass = Math.max(this.largestPass, m.largestPass ?? 0);
    const out: Float32Array[] = [];
    for (let i = 0; i < p.count; i++) out.push(m.data!.slice(i * dim, (i + 1) * dim));
    p.resolve(out);
  }

  private failAll(err: Error): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(err);
      this.pending.delete(id);
    }
  }

  private batch(texts: string[]): Promise<Float32Array[]> {
    const worker = this.worker;
    if (!worker) return Promise.reject(new ModelError('other', 'The local embedder is not running.'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new ModelError('timeout', `The local embedding model did not answer within ${this.opts.timeoutMs} ms (${texts.length} texts). The machine may be busy; lower embed.batchSize or run again.`));
      }, this.opts.timeoutMs);
      this.pending.set(id, { resolve, reject, count: texts.length, timer });
      worker.ref();
      worker.postMessage({ id, texts });
    });
  }

  private async embedAll(texts: string[], prefix: string, signal?: AbortSignal): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    await this.init(signal);
    const size = Math.max(1, Math.floor(this.opts.batchSize));
    // Batches of similar lengths (the worker cuts each into passes by tokens): little padding, bounded activations.
    const order = orderByLength(texts);
    const out: Float32Array[] = new Array(texts.length);
    for (let i = 0; i < order.length; i += size) {
      if (signal?.aborted) throw new ModelError('cancelled', 'Cancelled.');
      const ids = order.slice(i, i + size);
      const vectors = await this.batch(ids.map((j) => prefix + texts[j] || ' '));
      ids.forEach((j, k) => (out[j] = vectors[k]));
    }
    return out;
  }
}
