// Helpers for LLM calls (query expansion, rerank): a chat call with a deadline, and robust extraction of JSON from model output.
import { ModelError, type ChatMessage, type ChatModel, type ChatOptions } from '../types';

/** Calls the model with a hard deadline (the adapter also gets the abort signal); errors become ModelError. */
export async function chatWithTimeout(
  model: ChatModel,
  messages: ChatMessage[],
  timeoutMs: number,
  options: { json?: boolean; temperature?: number; maxTokens?: number; signal?: AbortSignal; purpose?: ChatOptions['purpose'] } = {},
): Promise<string> {
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new ModelError('timeout', `The chat model ${model.id} did not answer within ${timeoutMs} ms.`));
    }, timeoutMs);
  });
  try {
    const res = await Promise.race([
      model.chat(messages, {
        signal: controller.signal,
        json: options.json,
        temperature: options.temperature ?? 0,
        maxTokens: options.maxTokens,
        purpose: options.purpose,
      }),
      deadline,
    ]);
    return res.text;
  } catch (err) {
    if (err instanceof ModelError) throw err;
    throw new ModelError('other', err instanceof Error ? err.message : String(err));
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/**
 * Finds the first JSON value in model output: the whole text, a ```json fenced block, or the first balanced {...} / [...].
 * Returns undefined when none parses.
 */
export function extractJson(text: string): unknown {
  const tryParse = (s: string): unknown => {
    try {
      return JSON.parse(s);
    } catch {
      return undefined;
    }
  };
  const whole = tryParse(text.trim());
  if (whole !== undefined) return whole;
  const fence = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  if (fence) {
    const v = tryParse(fence[1].trim());
    if (v !== undefined) return v;
  }
  for (let i = 0; i < text.length; i++) {
    const open = text[i];
    if (open !== '{' && open !== '[') continue;
    const close = open === '{' ? '}' : ']';
    let depth = 0;
    let inStr = false;
    for (let j = i; j < text.length; j++) {
      const c = text[j];
      if (inStr) {
        if (c === '\\') j++;
        else if (c === '"') inStr = false;
        continue;
      }
      if (c === '"') inStr = true;
      else if (c === open) depth++;
      else if (c === close && --depth === 0) {
        const v = tryParse(text.slice(i, j + 1));
        if (v !== undefined) return v;
        break;
      }
    }
  }
  return undefined;
}

/** Short, text-free description of an LLM failure for the trace. */
export function describeModelFailure(err: unknown): string {
  if (err instanceof ModelError) return `${err.kind}: ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}
