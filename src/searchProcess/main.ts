// The extension's search process (dist/searchWorker.js), forked by src/searchProcess/client.ts. It opens the indexes
// for reading only and runs the search pipeline (query analysis, expansion, hybrid search, reranking, MMR, document
// expansion, token budget) and the store reads of the views, so LanceDB, its caches and the search lexicons never load
// the extension host, which every extension shares. The host's chat model (a VS Code language model) stays in the
// host: the pipeline calls it over the channel. Never writes: the indexing process does, and LanceDB gives each read
// the latest committed version, so a search never waits for an index job. Never imports `vscode`.
import { openEngine, type Engine } from '../rag/engine';
import { createRetriever } from '../rag/search/index';
import { ModelError, embedderInfo, type ChatModel, type ChatResponse } from '../rag/types';
import { STORE_READS, type FromSearch, type ReaderInfo, type RemoteChatSpec, type ToSearch } from './protocol';

/** Open readers by generation (a reopened index gets a new generation; the old one closes when the host says so). */
const readers = new Map<number, Promise<Engine>>();
const requests = new Map<number, AbortController>();
const hostCalls = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
let nextCallId = 1;

function send(m: FromSearch): void {
  if (process.connected) process.send!(m);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function reader(generation: number): Promise<Engine> {
  const r = readers.get(generation);
  if (!r) return Promise.reject(new Error('this index is not open in the search process (it was reopened or closed)'));
  return r;
}

/** Calls the host (chat or token count) for request `id`; cancelled with the request. */
function callHost<T>(id: number, signal: AbortSignal | undefined, make: (callId: number) => FromSearch): Promise<T> {
  if (signal?.aborted) return Promise.reject(new ModelError('cancelled', 'cancelled'));
  const callId = nextCallId++;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      hostCalls.delete(callId);
      send({ type: 'cancelHost', callId });
      reject(new ModelError('cancelled', 'cancelled'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    hostCalls.set(callId, {
      resolve: (v) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(v as T);
      },
      reject: (e) => {
        signal?.removeEventListener('abort', onAbort);
        reject(e);
      },
    });
    send(make(callId));
  });
}

/** The host's chat model as seen from here: every call goes over the channel, tied to request `id`. */
function remoteChat(id: number, spec: RemoteChatSpec, signal: AbortSignal): ChatModel {
  return {
    id: spec.id,
    contextWindow: spec.contextWindow,
    chat: (messages, options = {}) => {
      const { signal: own, onToken: _onToken, ...rest } = options;
      const both = own ? AbortSignal.any([own, signal]) : signal;
      return callHost<ChatResponse>(id, both, (callId) => ({ type: 'chat', id, callId, messages, options: rest }));
    },
    countTokens: spec.countTokens ? (text, own) => callHost<number>(id, own ? AbortSignal.any([own, signal]) : signal, (callId) => ({ type: 'countTokens', id, callId, text })) : undefined,
  };
}

async function handle(m: Exclude<ToSearch, { type: 'cancel' | 'hostResult' | 'hostError' | 'shutdown' }>, signal: AbortSignal): Promise<{ value: unknown; meta?: ReaderInfo['meta'] }> {
  switch (m.type) {
    case 'open': {
      if (!readers.has(m.generation)) {
        const opening = openEngine({ folder: m.spec.folder, storeDir: m.spec.storeDir, config: m.spec.config, embedderOverride: true });
        readers.set(m.generation, opening);
        opening.catch(() => readers.delete(m.generation));
      }
      const e = await reader(m.generation);
      const info: ReaderInfo = { embedder: embedderInfo(e.embedder), meta: e.store.meta(), warnings: e.warnings };
      return { value: info, meta: info.meta };
    }
    case 'close': {
      const r = readers.get(m.generation);
      readers.delete(m.generation);
      await (await r?.catch(() => null))?.close();
      return { value: null };
    }
    case 'read': {
      const e = await reader(m.generation);
      if (!(STORE_READS as readonly string[]).includes(m.method)) throw new Error(`unknown store read ${m.method}`);
      const fn = (e.store as unknown as Record<string, ((...a: unknown[]) => Promise<unknown>) | undefined>)[m.method];
      const value = fn ? await fn.apply(e.store, m.args) : [];
      return { value, meta: e.store.meta() };
    }
    case 'embed': {
      const e = await reader(m.generation);
      return { value: m.queries ? await e.embedder.embedQueries(m.texts, signal) : await e.embedder.embed(m.texts, signal) };
    }
    case 'retrieve': {
      const e = await reader(m.generation);
      const chatModel = m.chat ? remoteChat(m.id, m.chat, signal) : undefined;
      const retriever = createRetriever(e, { config: m.config, chatModel, overrides: m.overrides });
      const { countTokens, ...options } = m.options;
      const counter = countTokens ? (text: string) => callHost<number>(m.id, signal, (callId) => ({ type: 'countTokens', id: m.id, callId, text })) : undefined;
      const value = await retriever.retrieve(m.query, { ...options, signal, countTokens: counter });
      return { value, meta: e.store.meta() };
    }
  }
}

function request(m: Exclude<ToSearch, { type: 'cancel' | 'hostResult' | 'hostError' | 'shutdown' }>): void {
  const abort = new AbortController();
  requests.set(m.id, abort);
  handle(m, abort.signal)
    .then(
      ({ value, meta }) => send({ type: 'result', id: m.id, value, meta }),
      (err: unknown) => send({ type: 'error', id: m.id, name: err instanceof Error ? err.name : 'Error', message: errorText(err) }),
    )
    .finally(() => requests.delete(m.id));
}

function settleHost(callId: number, fn: (c: { resolve: (v: unknown) => void; reject: (e: Error) => void }) => void): void {
  const c = hostCalls.get(callId);
  if (!c) return;
  hostCalls.delete(callId);
  fn(c);
}

async function shutdown(): Promise<void> {
  for (const a of requests.values()) a.abort();
  await Promise.all([...readers.values()].map(async (r) => (await r.catch(() => null))?.close()));
  process.exit(0);
}

process.on('message', (m: ToSearch) => {
  switch (m.type) {
    case 'cancel':
      requests.get(m.id)?.abort();
      break;
    case 'hostResult':
      settleHost(m.callId, (c) => c.resolve(m.value));
      break;
    case 'hostError':
      settleHost(m.callId, (c) => {
        const err = m.name === 'ModelError' ? new ModelError((m.kind ?? 'other') as ModelError['kind'], m.message) : new Error(m.message);
        if (m.name !== 'ModelError') err.name = m.name;
        c.reject(err);
      });
      break;
    case 'shutdown':
      void shutdown();
      break;
    default:
      request(m);
  }
});
// The extension host went away: nothing is left to answer.
process.on('disconnect', () => void shutdown());
process.on('unhandledRejection', (err) => send({ type: 'log', level: 'error', message: `search process: ${errorText(err)}` }));
send({ type: 'ready', pid: process.pid });
