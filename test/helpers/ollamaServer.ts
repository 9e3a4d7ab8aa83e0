// A real HTTP server that speaks enough of the Ollama REST API for the real `ollama` npm client
// (`new Ollama({ host: url })`). Tests use it instead of a running Ollama: no model weights, fully
// deterministic, configurable per test (installed models, embeddings, chat replies, delays, failures).
//
// Endpoints: GET / (and HEAD /), GET /api/version, GET /api/tags, GET /api/ps, POST /api/show,
// POST /api/embed, POST /api/embeddings (legacy), POST /api/chat, POST /api/generate.
// Chat and generate stream NDJSON by default (`stream` absent or true), exactly like Ollama: one JSON object
// per line, `done:false` chunks, then a final `done:true` object with `done_reason` and the counters.
// Errors use Ollama's shape: a JSON body `{"error": "..."}` with status 400 / 404 / 500.
//
// Usable from another process through `ollamaServerMain.ts` (prints the URL on stdout).

import * as http from 'node:http';
import * as net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface FakeChatRequest {
  model: string;
  messages: { role: string; content: string; tool_calls?: unknown[]; tool_name?: string }[];
  tools?: unknown[];
  format?: unknown;
  options?: Record<string, unknown>;
}

export interface FakeChatReply {
  content?: string;
  tool_calls?: { function: { name: string; arguments: object } }[];
}

export interface FakeOllamaOptions {
  /** Installed models (others get 404 like Ollama). A name without a tag means `<name>:latest`. */
  models?: string[];
  /** Embedding function. Default: deterministic hashed bag-of-words vector, dimension 64. */
  embed?: (text: string, model: string) => number[];
  /** Chat reply (may be async). Default: "Echo: <last user message>". */
  chat?: (req: FakeChatRequest) => string | FakeChatReply | Promise<string | FakeChatReply>;
  /** Generate reply. Default: "Echo: <prompt>". */
  generate?: (req: { model: string; prompt: string; system?: string }) => string;
  /** Delay before any /api/* model response (a slow model). */
  delayMs?: number;
  /** Delay between streamed chunks (to test cancellation mid-stream). Default 0. */
  chunkDelayMs?: number;
  /** Inject failures per request path (e.g. '/api/embed'); the returned status and error are sent as Ollama would. */
  fail?: (path: string) => { status: number; error: string } | undefined;
  /** Inject an error into a streamed reply after its first chunk (Ollama sends `{"error": "..."}` as an NDJSON line). */
  streamError?: (path: string) => string | undefined;
  /** Context length reported by /api/show model_info (default 8192); also enforced for /api/embed with truncate:false. */
  contextLength?: number;
  /** If set, only these models accept `tools`; others answer 400 "... does not support tools" like Ollama. */
  toolModels?: string[];
  /** Port on 127.0.0.1 (default 0 = any free port). */
  port?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  body: any;
}

export interface FakeOllama {
  /** Base URL, e.g. http://127.0.0.1:45678 (pass as `host` to `new Ollama({ host })`). */
  url: string;
  /** Every request received, in order (body parsed as JSON when possible). */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export const DEFAULT_FAKE_MODELS = ['nomic-embed-text', 'bge-m3', 'llama3.2', 'qwen2.5:7b'];
export const FAKE_OLLAMA_VERSION = '0.6.4';
const DEFAULT_DIM = 64;

/** Ollama's own name normalisation: `name` → `name:latest`. */
export function fullModelName(name: string): string {
  const lastSegment = name.split('/').pop() ?? name;
  return lastSegment.includes(':') ? name : `${name}:latest`;
}

function fnv1a(s: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Words for the default embedder and the token counters. */
function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Default embedding: signed hashed bag of words, dimension 64 (not normalised; /api/embed normalises). */
export function defaultFakeEmbed(text: string): number[] {
  const v = new Array<number>(DEFAULT_DIM).fill(0);
  const ws = words(text);
  if (ws.length === 0) {
    v[0] = 1;
    return v;
  }
  for (const w of ws) {
    const h = fnv1a(w);
    v[h % DEFAULT_DIM] += h & 0x80000000 ? -1 : 1;
  }
  if (!v.some((x) => x !== 0)) v[0] = 1;
  return v;
}

function normalise(v: number[]): number[] {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n);
  return n > 0 ? v.map((x) => x / n) : v;
}

function tokenCount(text: string): number {
  return words(text).length;
}

/** Splits a reply into streamed pieces by words, keeping the whitespace (concatenation = original). */
function splitForStreaming(text: string): string[] {
  const parts = text.match(/\s*\S+\s*/g);
  if (!parts || parts.length === 0) return text ? [text] : [];
  return parts;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (ms <= 0 || signal.aborted) return resolve();
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });

export async function startFakeOllama(opts: FakeOllamaOptions = {}): Promise<FakeOllama> {
  const installed = new Set((opts.models ?? DEFAULT_FAKE_MODELS).map(fullModelName));
  const toolModels = opts.toolModels ? new Set(opts.toolModels.map(fullModelName)) : undefined;
  const contextLength = opts.contextLength ?? 8192;
  const embedFn = opts.embed ?? ((t: string) => defaultFakeEmbed(t));
  const requests: RecordedRequest[] = [];
  const startedAt = Date.now();

  const requireModel = (body: any): string => {
    const model = body?.model ?? body?.name;
    if (typeof model !== 'string' || model === '') throw new HttpError(400, 'model is required');
    if (!installed.has(fullModelName(model))) throw new HttpError(404, `model "${model}" not found, try pulling it first`);
    return model;
  };

  const modelEntry = (name: string) => ({
    name,
    model: name,
    modified_at: new Date(startedAt).toISOString(),
    size: 274302450,
    digest: fnv1a(name).toString(16).padStart(8, '0').repeat(8),
    details: {
      parent_model: '',
      format: 'gguf',
      family: name.includes('embed') || name.startsWith('bge') ? 'bert' : 'llama',
      families: [name.includes('embed') || name.startsWith('bge') ? 'bert' : 'llama'],
      parameter_size: '137M',
      quantization_level: 'F16',
    },
  });

  const sendJson = (res: http.ServerResponse, status: number, obj: unknown) => {
    const body = JSON.stringify(obj);
    res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  };

  const counters = (promptTokens: number, evalTokens: number) => ({
    total_duration: 1_000_000 + evalTokens * 1000,
    load_duration: 100_000,
    prompt_eval_count: Math.min(promptTokens, contextLength),
    prompt_eval_duration: 200_000,
    eval_count: evalTokens,
    eval_duration: 700_000,
  });

  /** Writes NDJSON chunks with optional delays; stops if the client went away. */
  const streamLines = async (res: http.ServerResponse, lines: object[], aborted: AbortSignal, path: string) => {
    res.writeHead(200, { 'Content-Type': 'application/x-ndjson', 'Transfer-Encoding': 'chunked' });
    const midError = opts.streamError?.(path);
    for (let i = 0; i < lines.length; i++) {
      if (aborted.aborted) break;
      if (midError !== undefined && i === 1) {
        res.end(JSON.stringify({ error: midError }) + '\n');
        return;
      }
      res.write(JSON.stringify(lines[i]) + '\n');
      if (i < lines.length - 1 && opts.chunkDelayMs) await sleep(opts.chunkDelayMs, aborted);
    }
    res.end();
  };

  const handleChat = async (body: any, res: http.ServerResponse, aborted: AbortSignal) => {
    const model = requireModel(body);
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const tools = Array.isArray(body.tools) && body.tools.length > 0 ? body.tools : undefined;
    if (tools && toolModels && !toolModels.has(fullModelName(model))) {
      throw new HttpError(400, `registry.ollama.ai/library/${model} does not support tools`);
    }
    const req: FakeChatRequest = { model, messages, tools, format: body.format, options: body.options };
    const raw = opts.chat
      ? await opts.chat(req)
      : `Echo: ${[...messages].reverse().find((m: any) => m.role === 'user')?.content ?? ''}`;
    const reply: FakeChatReply = typeof raw === 'string' ? { content: raw } : raw;
    const content = reply.content ?? '';
    const toolCalls = reply.tool_calls?.map((tc, index) => ({ function: { index, name: tc.function.name, arguments: tc.function.arguments } }));
    const promptTokens = messages.reduce((n: number, m: any) => n + tokenCount(String(m?.content ?? '')), 0);
    const pieces = splitForStreaming(content);
    const created = () => new Date().toISOString();
    if (body.stream === false) {
      const message: Record<string, unknown> = { role: 'assistant', content };
      if (toolCalls?.length) message.tool_calls = toolCalls;
      sendJson(res, 200, { model, created_at: created(), message, done_reason: 'stop', done: true, ...counters(promptTokens, pieces.length) });
      return;
    }
    const lines: object[] = pieces.map((p) => ({ model, created_at: created(), message: { role: 'assistant', content: p }, done: false }));
    if (toolCalls?.length) {
      lines.push({ model, created_at: created(), message: { role: 'assistant', content: '', tool_calls: toolCalls }, done: false });
    }
    lines.push({
      model,
      created_at: created(),
      message: { role: 'assistant', content: '' },
      done_reason: 'stop',
      done: true,
      ...counters(promptTokens, pieces.length),
    });
    await streamLines(res, lines, aborted, '/api/chat');
  };

  const handleGenerate = async (body: any, res: http.ServerResponse, aborted: AbortSignal) => {
    const model = requireModel(body);
    const prompt = typeof body.prompt === 'string' ? body.prompt : '';
    const created = () => new Date().toISOString();
    if (prompt === '') {
      // Ollama: an empty prompt only loads the model.
      const obj = { model, created_at: created(), response: '', done: true, done_reason: 'load' };
      if (body.stream === false) sendJson(res, 200, obj);
      else await streamLines(res, [obj], aborted, '/api/generate');
      return;
    }
    const text = opts.generate ? opts.generate({ model, prompt, system: body.system }) : `Echo: ${prompt}`;
    const pieces = splitForStreaming(text);
    const promptTokens = tokenCount(prompt) + tokenCount(String(body.system ?? ''));
    const final = {
      model,
      created_at: created(),
      response: '',
      done: true,
      done_reason: 'stop',
      context: [1, 2, 3],
      ...counters(promptTokens, pieces.length),
    };
    if (body.stream === false) {
      sendJson(res, 200, { ...final, response: text });
      return;
    }
    const lines: object[] = pieces.map((p) => ({ model, created_at: created(), response: p, done: false }));
    lines.push(final);
    await streamLines(res, lines, aborted, '/api/generate');
  };

  const handleEmbed = (body: any, res: http.ServerResponse) => {
    const model = requireModel(body);
    const input = body.input;
    let texts: string[];
    if (input === undefined || input === null) texts = [];
    else if (typeof input === 'string') texts = [input];
    else if (Array.isArray(input) && input.every((x) => typeof x === 'string')) texts = input;
    else throw new HttpError(400, 'invalid input type');
    for (const t of texts) {
      if (body.truncate === false && tokenCount(t) > contextLength) throw new HttpError(400, 'input length exceeds maximum context length');
    }
    const embeddings = texts.map((t) => normalise(embedFn(t, model)));
    const promptTokens = texts.reduce((n, t) => n + tokenCount(t), 0);
    sendJson(res, 200, { model, embeddings, total_duration: 1_000_000, load_duration: 100_000, prompt_eval_count: promptTokens });
  };

  const handleEmbeddings = (body: any, res: http.ServerResponse) => {
    const model = requireModel(body);
    const prompt = typeof body.prompt === 'string' ? body.prompt : '';
    // Legacy endpoint: not normalised, empty prompt → empty embedding (as Ollama does).
    sendJson(res, 200, { embedding: prompt === '' ? [] : embedFn(prompt, model) });
  };

  const handleShow = (body: any, res: http.ServerResponse) => {
    const model = body?.model ?? body?.name;
    if (typeof model !== 'string' || model === '') throw new HttpError(400, 'model is required');
    if (!installed.has(fullModelName(model))) throw new HttpError(404, `model '${model}' not found`);
    const entry = modelEntry(fullModelName(model));
    const isEmbed = entry.details.family === 'bert';
    const arch = entry.details.family;
    sendJson(res, 200, {
      license: '',
      modelfile: `FROM ${entry.name}\n`,
      parameters: '',
      template: isEmbed ? '{{ .Prompt }}' : '{{ .System }}{{ .Prompt }}',
      details: entry.details,
      model_info: {
        'general.architecture': arch,
        'general.parameter_count': 137000000,
        [`${arch}.context_length`]: contextLength,
        [`${arch}.embedding_length`]: isEmbed ? DEFAULT_DIM : 3072,
      },
      capabilities: isEmbed ? ['embedding'] : ['completion', ...(!toolModels || toolModels.has(entry.name) ? ['tools'] : [])],
      modified_at: entry.modified_at,
    });
  };

  const server = http.createServer((req, res) => {
    const ac = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) ac.abort();
    });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const path = (req.url ?? '/').split('?')[0];
        const method = req.method ?? 'GET';
        const rawBody = Buffer.concat(chunks).toString('utf8');
        let body: any;
        let parseError: string | undefined;
        if (rawBody.length > 0) {
          try {
            body = JSON.parse(rawBody);
          } catch (e) {
            body = rawBody;
            parseError = (e as Error).message;
          }
        }
        requests.push({ method, path, body });
        try {
          const injected = opts.fail?.(path);
          if (injected) throw new HttpError(injected.status, injected.error);
          if (path === '/' && (method === 'GET' || method === 'HEAD')) {
            res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
            res.end(method === 'HEAD' ? undefined : 'Ollama is running');
            return;
          }
          if (method === 'GET' && path === '/api/version') return sendJson(res, 200, { version: FAKE_OLLAMA_VERSION });
          if (method === 'GET' && path === '/api/tags') return sendJson(res, 200, { models: [...installed].map(modelEntry) });
          if (method === 'GET' && path === '/api/ps') return sendJson(res, 200, { models: [] });
          const post = new Set(['/api/show', '/api/embed', '/api/embeddings', '/api/chat', '/api/generate']);
          if (!post.has(path)) {
            res.writeHead(404, { 'Content-Type': 'text/plain' });
            res.end('404 page not found');
            return;
          }
          if (method !== 'POST') {
            res.writeHead(405, { 'Content-Type': 'text/plain' });
            res.end('405 method not allowed');
            return;
          }
          if (parseError !== undefined) throw new HttpError(400, `invalid request body: ${parseError}`);
          if (body === undefined) throw new HttpError(400, 'missing request body');
          if (path === '/api/show') return handleShow(body, res);
          if (opts.delayMs) await sleep(opts.delayMs, ac.signal);
          if (ac.signal.aborted) return;
          if (path === '/api/embed') return handleEmbed(body, res);
          if (path === '/api/embeddings') return handleEmbeddings(body, res);
          if (path === '/api/chat') return await handleChat(body, res, ac.signal);
          if (path === '/api/generate') return await handleGenerate(body, res, ac.signal);
        } catch (e) {
          if (res.headersSent) {
            // Ollama reports errors after the stream started as an NDJSON line with "error".
            res.end(JSON.stringify({ error: (e as Error).message }) + '\n');
            return;
          }
          const status = e instanceof HttpError ? e.status : 500;
          sendJson(res, status, { error: (e as Error).message });
        }
      })();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * A chat function that translates by lookup, for the search's question translation (its contract: the prompt contains
 * the question verbatim; the reply's first line is the translation). The reply is the translation of the longest known
 * question found in the last user message; prompts with none get `otherwise` (default: an empty reply). Given parallel
 * questions (XQuAD's English and German versions of one question), it is a perfect translator.
 */
export function translatorChat(
  translations: ReadonlyMap<string, string>,
  otherwise: (req: FakeChatRequest) => string | FakeChatReply = () => '',
): (req: FakeChatRequest) => string | FakeChatReply {
  const known = [...translations.keys()].sort((a, b) => b.length - a.length);
  return (req) => {
    const prompt = [...req.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    const question = known.find((q) => prompt.includes(q));
    return question === undefined ? otherwise(req) : (translations.get(question) as string);
  };
}

/** A loopback port with nothing listening (bound, then released): an "Ollama host that is down". */
export async function closedPort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as net.AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}
