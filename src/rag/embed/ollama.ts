// Embeddings from Ollama through the official `ollama` npm client: batched /api/embed calls with a timeout per
// call and cancellation (the client takes a custom fetch, which carries our AbortSignal), vectors L2-normalised.
// Every failure becomes a ModelError whose message says the fix (start Ollama, pull the model, raise the timeout).
import { Ollama } from 'ollama';
import { ModelError, type Embedder } from '../types';
import { taskPrefixes, type TaskPrefixes } from './prefixes';

export interface OllamaEmbedderOptions {
  host: string;
  model: string;
  batchSize: number;
  timeoutMs: number;
  /** Retries of a batch after a transient failure (HTTP 503 "server busy", 429, connection reset). Default 2. */
  retries?: number;
  /** Wait before the first retry; doubled for each further one. Default 500 ms. */
  retryDelayMs?: number;
  /** Task prefixes; default: the model's known ones (embed/prefixes.ts). */
  queryPrefix?: string;
  documentPrefix?: string;
}

/** Failures worth another try: Ollama busy or rate-limited, or the connection dropped mid-request. */
function isTransient(err: unknown): boolean {
  const e = err as { status_code?: number };
  if (e?.status_code === 503 || e?.status_code === 429) return true;
  const code = networkCode(err);
  return code === 'ECONNRESET' || code === 'EPIPE' || code === 'UND_ERR_SOCKET';
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

const PROBE_TEXT = 'dimension probe';

function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

/** Network error code from an error or its (nested) causes: ECONNREFUSED, ENOTFOUND, ... */
function networkCode(err: unknown): string {
  let e = err as { code?: string; cause?: unknown; errors?: { code?: string }[] } | undefined;
  for (let depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === 'string' && /^E[A-Z]+/.test(e.code)) return e.code;
    const inner = e.errors?.find((x) => x?.code)?.code;
    if (inner) return inner;
    e = e.cause as typeof e;
  }
  return '';
}

export function normalise(v: ArrayLike<number>): Float32Array {
  const out = Float32Array.from(v);
  let n = 0;
  for (let i = 0; i < out.length; i++) n += out[i] * out[i];
  if (n > 0) {
    const inv = 1 / Math.sqrt(n);
    for (let i = 0; i < out.length; i++) out[i] *= inv;
  }
  return out;
}

export class OllamaEmbedder implements Embedder {
  readonly id = 'ollama';
  /** A semantic model's vectors are kept whole (no quality measured here for codes of them). */
  readonly vectorLayout = 'float' as const;
  /** A real model over HTTP: vectors are filled after the text is written (keyword search first). */
  readonly deferVectors = true;
  readonly model: string;
  readonly host: string;
  dimension = 0;
  private readonly batchSize: number;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryDelayMs: number;
  /** Prepended to documents (`embed`) and to queries (`embedQueries`): see the Embedder interface. */
  readonly prefixes: TaskPrefixes;

  constructor(opts: OllamaEmbedderOptions) {
    this.model = opts.model;
    this.host = opts.host.replace(/\/+$/, '');
    this.batchSize = Math.max(1, Math.floor(opts.batchSize));
    this.timeoutMs = opts.timeoutMs;
    this.retries = opts.retries ?? 2;
    this.retryDelayMs = opts.retryDelayMs ?? 500;
    const known = taskPrefixes(opts.model);
    this.prefixes = { query: opts.queryPrefix ?? known.query, document: opts.documentPrefix ?? known.document };
  }

  /** Embeds a probe: proves Ollama answers and the model is installed, and learns the dimension. */
  async init(signal?: AbortSignal): Promise<void> {
    const [v] = await this.embedBatch([PROBE_TEXT], signal);
    this.dimension = v.length;
  }

  /** Embeds documents (passages), with the model's document prefix. */
  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    return this.embedAll(texts, this.prefixes.document, signal);
  }

  /** Embeds search queries, with the model's query prefix. */
  async embedQueries(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    return this.embedAll(texts, this.prefixes.query, signal);
  }

  private async embedAll(texts: string[], prefix: string, signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      // An empty input is not a text to some servers: send a single space instead.
      const batch = texts.slice(i, i + this.batchSize).map((t) => prefix + t || ' ');
      const vectors = await this.embedBatch(batch, signal);
      for (const v of vectors) {
        if (this.dimension === 0) this.dimension = v.length;
        if (v.length !== this.dimension) {
          throw new ModelError(
            'bad-output',
            `Ollama model '${this.model}' returned a ${v.length}-dimensional vector, expected ${this.dimension}. ` +
              `Was the model replaced? Rebuild the index (Docs RAG: Rebuild Index / docs-rag index --rebuild).`,
          );
        }
        out.push(v);
      }
    }
    return out;
  }

  /** One batch, retried after transient failures. */
  private async embedBatch(input: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.embedOnce(input, signal);
      } catch (err) {
        const cause = err instanceof ModelError ? (err as ModelError & { cause?: unknown }).cause : err;
        if (attempt >= this.retries || !isTransient(cause) || signal?.aborted) throw err;
        await sleep(this.retryDelayMs * 2 ** attempt, signal);
      }
    }
  }

  private async embedOnce(input: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (signal?.aborted) throw new ModelError('cancelled', 'Cancelled.');
    const timeout = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      timeout.abort();
    }, this.timeoutMs);
    const client = new Ollama({
      host: this.host,
      fetch: (url: RequestInfo | URL, init?: RequestInit) => {
        const signals = [timeout.signal, ...(signal ? [signal] : []), ...(init?.signal ? [init.signal] : [])];
        return fetch(url, { ...init, signal: AbortSignal.any(signals) });
      },
    });
    try {
      const res = await client.embed({ model: this.model, input, truncate: true });
      if (!Array.isArray(res.embeddings) || res.embeddings.length !== input.length) {
        throw new ModelError(
          'bad-output',
          `Ollama returned ${res.embeddings?.length ?? 0} embeddings for ${input.length} texts (model '${this.model}'). ` +
            `Is '${this.model}' an embedding model? Try nomic-embed-text or bge-m3.`,
        );
      }
      return res.embeddings.map((v) => {
        if (!Array.isArray(v) || v.length === 0) {
          throw new ModelError('bad-output', `Ollama returned an empty embedding (model '${this.model}'). Is it an embedding model?`);
        }
        return normalise(v);
      });
    } catch (err) {
      if (err instanceof ModelError) throw err;
      if (signal?.aborted) throw new ModelError('cancelled', 'Cancelled.');
      if (timedOut) {
        throw new ModelError(
          'timeout',
          `Ollama at ${this.host} did not return embeddings within ${seconds(this.timeoutMs)} (model '${this.model}', ` +
            `${input.length} texts). The first call loads the model and can be slow: run again once it is loaded, raise the timeout ` +
            `(embed.timeoutMs of the engine configuration), or check the machine's load with \`ollama ps\`.`,
        );
      }
      const translated = this.translate(err);
      (translated as ModelError & { cause?: unknown }).cause = err;
      throw translated;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Maps client and network errors to ModelError with the fix. */
  translate(err: unknown): ModelError {
    const e = err as { message?: string; status_code?: number; error?: string };
    const message = String(e?.error ?? e?.message ?? err);
    const code = networkCode(err);
    if (
      code === 'ECONNREFUSED' ||
      code === 'ENOTFOUND' ||
      code === 'EHOSTUNREACH' ||
      code === 'ECONNRESET' ||
      code === 'EAI_AGAIN' ||
      (e?.status_code === undefined && /fetch failed|ECONNREFUSED|network/i.test(message))
    ) {
      return new ModelError(
        'unreachable',
        `Cannot reach Ollama at ${this.host}. Start it with \`ollama serve\` (or set docsRag.ollama.host / --ollama-host).` +
          (code ? ` (${code})` : ''),
      );
    }
    if (e?.status_code === 404 || /not found, try pulling it first|model ['"].*['"] not found/i.test(message)) {
      return new ModelError('model-missing', `Ollama model '${this.model}' is not installed. Run: ollama pull ${this.model}`);
    }
    if (/does not support embeddings|not an embedding model/i.test(message)) {
      return new ModelError(
        'other',
        `Ollama model '${this.model}' cannot make embeddings (${message}). Use an embedding model such as nomic-embed-text or bge-m3: ollama pull bge-m3`,
      );
    }
    return new ModelError(
      'other',
      `Ollama embedding failed (model '${this.model}' at ${this.host}${e?.status_code ? `, HTTP ${e.status_code}` : ''}): ${message}`,
    );
  }
}
