// Flags shared by `docs-rag search` and `docs-rag eval`: embedder choice, chat model for LLM stages, search overrides.
import { OllamaChatModel } from '../rag/llm/ollamaChat';
import type { EngineConfigOverrides } from '../rag/engine';
import type { SearchSettings } from '../rag/search/configs';
import type { ChatModel, Level } from '../rag/types';
import { UsageError } from './common';

export const SEARCH_FLAGS = {
  store: { type: 'string' },
  config: { type: 'string' },
  embedder: { type: 'string' },
  model: { type: 'string' },
  'ollama-host': { type: 'string' },
  'chat-model': { type: 'string' },
  translate: { type: 'string' },
  alpha: { type: 'string' },
  levels: { type: 'string' },
  json: { type: 'boolean' },
} as const;

export interface SearchFlagValues {
  embedder?: string;
  model?: string;
  'ollama-host'?: string;
  'chat-model'?: string;
  translate?: string;
  alpha?: string;
  levels?: string;
}

/**
 * `--embedder builtin|ollama|local` and `--model NAME` (ask and mcp: `--embed-model`, passed here as `model`): with
 * `local` the model is a folder or a known model name, otherwise an Ollama model; `--model` alone means Ollama.
 */
export function embedOverrides(v: SearchFlagValues): { embed: NonNullable<EngineConfigOverrides['embed']>; explicit: boolean } {
  const provider = v.embedder ?? (v.model ? 'ollama' : undefined);
  if (provider !== undefined && provider !== 'builtin' && provider !== 'ollama' && provider !== 'local') {
    throw new UsageError(`--embedder must be builtin, ollama or local, got "${provider}"`);
  }
  const embed: NonNullable<EngineConfigOverrides['embed']> = {};
  if (provider) embed.provider = provider;
  if (v.model && provider === 'local') embed.localModel = v.model;
  else if (v.model) embed.model = v.model;
  if (v['ollama-host']) embed.ollamaHost = v['ollama-host'];
  return { embed, explicit: provider !== undefined };
}

/** The chat model for LLM stages (expansion, HyDE, rerank), when --chat-model is given. */
export async function chatModelFrom(v: SearchFlagValues, host: string): Promise<ChatModel | undefined> {
  if (!v['chat-model']) return undefined;
  const model = new OllamaChatModel({ model: v['chat-model'], host: v['ollama-host'] ?? host, timeoutMs: 60_000 });
  await model.init();
  return model;
}

export function searchOverrides(v: SearchFlagValues): Partial<SearchSettings> {
  const o: Partial<SearchSettings> = {};
  if (v.alpha !== undefined) {
    const a = Number(v.alpha);
    if (!Number.isFinite(a) || a < 0 || a > 1) throw new UsageError('--alpha must be a number between 0 and 1');
    o.alpha = a;
  }
  if (v.levels !== undefined) o.levels = parseLevels(v.levels);
  return { ...o, ...translateOverride(v.translate) };
}

/** `--translate on|off|auto`: the chat model's translation of the question before the search (default auto). */
export function translateOverride(v: string | undefined): Partial<SearchSettings> {
  if (v === undefined) return {};
  if (v !== 'on' && v !== 'off' && v !== 'auto') throw new UsageError(`--translate must be on, off or auto, got "${v}"`);
  return { translateQuestion: v };
}

export function parseLevels(s: string): Level[] {
  const levels = s.split(',').map((x) => Number(x.trim().replace(/^L/i, '')));
  if (levels.length === 0 || levels.some((l) => l !== 0 && l !== 1 && l !== 2)) throw new UsageError('--levels takes a list like 1,2 (levels 0, 1, 2)');
  return levels as Level[];
}
