// ChatModel adapter for Ollama through the official `ollama` npm client.
// Streams every call (so tokens reach `onToken` and an idle timeout can be enforced), learns the context window
// from /api/show, sends `num_ctx` so the window is the one we budget for, and turns every failure into a ModelError
// whose message says the fix.
import { Ollama, type Message as OllamaMessage, type Tool as OllamaTool } from 'ollama';
import {
  ModelError,
  type ChatMessage,
  type ChatModel,
  type ChatOptions,
  type ChatResponse,
  type ToolCall,
  type ToolSpec,
} from '../types';
import { estimateTokens } from './tokens';

export interface OllamaChatOptions {
  model: string;
  /** e.g. http://127.0.0.1:11434 */
  host: string;
  /** Context window to use (num_ctx). Default: the model's trained window from /api/show, capped at `maxContextWindow`. */
  numCtx?: number;
  /** Cap for the learned window (a large num_ctx costs memory). Default 8192. */
  maxContextWindow?: number;
  /** How long Ollama keeps the model loaded after a call (e.g. "5m", -1 forever, 0 unload). */
  keepAlive?: string | number;
  /** Idle timeout: no byte from Ollama for this long aborts the call. Default 120 s (first call loads the model). */
  timeoutMs?: number;
  /** Default sampling temperature. Default 0.1 (answers from documents should be stable). */
  temperature?: number;
}

/** Window assumed before /api/show answered (Ollama's own default is 2048–4096). */
const FALLBACK_CONTEXT_WINDOW = 4096;

export class OllamaChatModel implements ChatModel {
  readonly id: string;
  readonly model: string;
  readonly host: string;
  private window: number;
  private learned = false;
  private readonly opts: OllamaChatOptions;

  constructor(opts: OllamaChatOptions) {
    this.opts = opts;
    this.model = opts.model;
    this.host = opts.host.replace(/\/+$/, '');
    this.id = `ollama:${opts.model}`;
    this.window = opts.numCtx ?? FALLBACK_CONTEXT_WINDOW;
  }

  get contextWindow(): number {
    return this.window;
  }

  /**
   * Checks that Ollama answers and the model is installed, and learns its context window.
   * Throws ModelError ('unreachable' | 'model-missing' | 'timeout' | 'cancelled') with the fix.
   */
  async init(signal?: AbortSignal): Promise<void> {
    const info = await this.call(signal, (client) => client.show({ model: this.model }));
    const trained = contextLengthFromShow(info as unknown as ShowLike);
    if (this.opts.numCtx === undefined) {
      const cap = this.opts.maxContextWindow ?? 8192;
      this.window = trained ? Math.min(trained, cap) : Math.min(FALLBACK_CONTEXT_WINDOW, cap);
    }
    this.learned = true;
  }

  /** Whether `init` has learned the window from the server. */
  get initialised(): boolean {
    return this.learned;
  }

  /** Names of the installed models (for pickers and messages). */
  async listModels(signal?: AbortSignal): Promise<string[]> {
    const res = await this.call(signal, (client) => client.list());
    return res.models.map((m) => m.name);
  }

  async chat(messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResponse> {
    const promptChars = messages.reduce((n, m) => n + m.content.length, 0);
    const promptTokens = estimateTokens(messages.map((m) => m.content).join('\n'));
    const reserve = options.maxTokens ?? 0;
    if (promptTokens + reserve > this.window) {
      throw new ModelError(
        'context-overflow',
        `The prompt (about ${promptTokens} tokens from ${promptChars} characters) does not fit the context window of ` +
          `${this.model} (${this.window} tokens). Ask a narrower question, retrieve fewer passages, or raise the context ` +
          `window if the model supports more (\`docs-rag ask --num-ctx N\`; otherwise the model's own window is used, up to 8192 tokens).`,
      );
    }
    return this.call(options.signal, async (client, touch) => {
      const stream = await client.chat({
        model: this.model,
        messages: messages.map(toOllamaMessage),
        stream: true,
        tools: options.tools?.map(toOllamaTool),
        format: options.json ? 'json' : undefined,
        keep_alive: this.opts.keepAlive,
        options: {
          num_ctx: this.window,
          temperature: options.temperature ?? this.opts.temperature ?? 0.1,
          ...(options.maxTokens !== undefined ? { num_predict: options.maxTokens } : {}),
        },
      });
      let text = '';
      const think = new ThinkFilter();
      const toolCalls: ToolCall[] = [];
      let doneReason = '';
      let evalPrompt = 0;
      for await (const part of stream) {
        touch();
        // Reasoning models may put <think>…</think> in the content: neither streamed nor part of the answer.
        const piece = think.push(part.message?.content ?? '');
        if (piece) {
          text += piece;
          options.onToken?.(piece);
        }
        for (const call of part.message?.tool_calls ?? []) {
          toolCalls.push({ name: call.function.name, arguments: normaliseArguments(call.function.arguments) });
        }
        if (part.done) {
          doneReason = part.done_reason ?? '';
          evalPrompt = part.prompt_eval_count ?? 0;
        }
      }
      const rest = think.flush();
      if (rest) {
        text += rest;
        options.onToken?.(rest);
      }
      // Ollama truncates a prompt that overflows num_ctx silently; its prompt_eval_count then equals the window.
      if (evalPrompt > 0 && evalPrompt >= this.window && text.trim() === '' && toolCalls.length === 0 && doneReason !== 'stop') {
        throw new ModelError(
          'context-overflow',
          `Ollama truncated the prompt to the context window of ${this.model} (${this.window} tokens) and returned nothing. ` +
            `Retrieve fewer passages or raise the context window (num_ctx).`,
        );
      }
      return { text, toolCalls };
    });
  }

  /**
   * Runs one client call with an idle timeout and the caller's cancellation, through a fresh client whose fetch
   * carries the combined signal (the client itself has no per-request signal for non-streamed calls).
   */
  private async call<T>(
    signal: AbortSignal | undefined,
    fn: (client: Ollama, touch: () => void) => Promise<T>,
  ): Promise<T> {
    if (signal?.aborted) throw new ModelError('cancelled', 'Cancelled.');
    const timeoutMs = this.opts.timeoutMs ?? 120_000;
    const controller = new AbortController();
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const touch = () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, timeoutMs);
    };
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    touch();
    const client = new Ollama({
      host: this.host,
      fetch: (input: RequestInfo | URL, init?: RequestInit) => {
        const signals = [controller.signal, ...(init?.signal ? [init.signal] : [])];
        return fetch(input, { ...init, signal: AbortSignal.any(signals) });
      },
    });
    try {
      return await fn(client, touch);
    } catch (err) {
      if (signal?.aborted) throw new ModelError('cancelled', 'Cancelled.');
      if (timedOut) {
        throw new ModelError(
          'timeout',
          `Ollama (${this.host}) sent nothing for ${formatSeconds(timeoutMs)} while running ${this.model}. ` +
            `The first call loads the model and can be slow on a CPU: raise the timeout (\`docs-rag ask --timeout SECONDS\`), ` +
            `use a smaller model, or check the machine's load with \`ollama ps\`.`,
        );
      }
      throw this.translate(err);
    } finally {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** Maps client and network errors to ModelError with the fix. */
  translate(err: unknown): ModelError {
    if (err instanceof ModelError) return err;
    const e = err as {
      message?: string;
      status_code?: number;
      cause?: { code?: string; message?: string; errors?: { code?: string }[] };
    };
    const message = String(e?.message ?? err);
    const code = e?.cause?.code ?? e?.cause?.errors?.find((x) => x.code)?.code ?? '';
    if (
      ['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ECONNRESET', 'EAI_AGAIN', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT'].includes(code) ||
      /fetch failed|ECONNREFUSED|socket hang up/i.test(message)
    ) {
      return new ModelError(
        'unreachable',
        `Cannot reach Ollama at ${this.host} (${code || message}). Start it with \`ollama serve\` (or open the Ollama app), ` +
          `or point to the right server with --ollama-host / the setting docsRag.ollama.host. Search works without it.`,
      );
    }
    if (e?.status_code === 404 || /not found|pull/i.test(message)) {
      return new ModelError(
        'model-missing',
        `The model "${this.model}" is not installed in Ollama at ${this.host}. Run \`ollama pull ${this.model}\`, ` +
          `or pick an installed model (\`ollama list\`).`,
      );
    }
    if (/context (length|window)|exceeds? .*context|too long/i.test(message)) {
      return new ModelError(
        'context-overflow',
        `The prompt does not fit the context window of ${this.model} (${this.window} tokens): ${message}. ` +
          `Retrieve fewer passages or raise the context window (num_ctx).`,
      );
    }
    if (e?.status_code && e.status_code >= 500) {
      return new ModelError('other', `Ollama failed while running ${this.model}: ${message}. Check \`ollama ps\` and the Ollama log.`);
    }
    return new ModelError('other', `Ollama call failed (${this.model} at ${this.host}): ${message}`);
  }
}

interface ShowLike {
  model_info?: Record<string, unknown> | Map<string, unknown>;
  parameters?: string;
}

/** Reads the trained context length (`<arch>.context_length`) or a `num_ctx` parameter from an /api/show answer. */
export function contextLengthFromShow(info: ShowLike): number | undefined {
  const fromParams = /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(info.parameters ?? '');
  if (fromParams) return Number(fromParams[1]);
  const mi = info.model_info;
  if (!mi) return undefined;
  const entries: [string, unknown][] = mi instanceof Map ? [...mi.entries()] : Object.entries(mi);
  for (const [key, value] of entries) {
    if (key.endsWith('.context_length') && typeof value === 'number' && value > 0) return value;
  }
  return undefined;
}

function toOllamaMessage(m: ChatMessage): OllamaMessage {
  const out: OllamaMessage = { role: m.role, content: m.content };
  if (m.toolCalls?.length) out.tool_calls = m.toolCalls.map((c) => ({ function: { name: c.name, arguments: c.arguments } }));
  if (m.toolName) out.tool_name = m.toolName;
  return out;
}

function toOllamaTool(t: ToolSpec): OllamaTool {
  return { type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters as OllamaTool['function']['parameters'] } };
}

/** Drops <think>…</think> blocks from streamed content, also when the tags are split across pieces. */
export class ThinkFilter {
  private inside = false;
  private pending = '';

  push(piece: string): string {
    let s = this.pending + piece;
    this.pending = '';
    let out = '';
    while (s) {
      const tag = this.inside ? '</think>' : '<think>';
      const i = s.indexOf(tag);
      if (i >= 0) {
        if (!this.inside) out += s.slice(0, i);
        s = s.slice(i + tag.length);
        if (this.inside) s = s.replace(/^\s+/, '');
        this.inside = !this.inside;
        continue;
      }
      // Keep a tail that may be the start of a tag split across pieces.
      let keep = 0;
      for (let k = Math.min(tag.length - 1, s.length); k > 0; k--) {
        if (tag.startsWith(s.slice(s.length - k))) {
          keep = k;
          break;
        }
      }
      if (!this.inside) out += s.slice(0, s.length - keep);
      this.pending = s.slice(s.length - keep);
      s = '';
    }
    return out;
  }

  /** The held-back tail at the end of the stream (text, unless inside an unclosed think block). */
  flush(): string {
    const rest = this.inside ? '' : this.pending;
    this.pending = '';
    return rest;
  }
}

/** Some models send arguments as a JSON string instead of an object. */
function normaliseArguments(args: unknown): Record<string, unknown> {
  if (typeof args === 'string') {
    try {
      const parsed: unknown = JSON.parse(args);
      return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }
  return args && typeof args === 'object' ? (args as Record<string, unknown>) : {};
}

function formatSeconds(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}
