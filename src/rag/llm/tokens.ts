// Token counting and answer lengths, shared by the answer stage, the search budget and the chat adapters.
import type { ChatModel } from '../types';

export type AnswerLength = 'short' | 'medium' | 'long';

/** Tokens of the answer, by requested length: what the model may generate (num_predict) and what the budget reserves. */
export const ANSWER_TOKENS: Record<AnswerLength, number> = { short: 384, medium: 1024, long: 2048 };

/** Rough token estimate for mixed German/English prose: ~3.6 characters per token (no tokenizer needed). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 3.6);
}

/** Counts the tokens of a text for a budget. */
export type TokenCount = (text: string) => Promise<number>;

/**
 * The model's own token count when it has one (`ChatModel.countTokens`), else the estimate. A failing count falls back to
 * the estimate for that text (cancellation is thrown).
 */
export function tokenCounter(model?: Pick<ChatModel, 'countTokens'> | null, signal?: AbortSignal): TokenCount {
  if (!model?.countTokens) return async (text) => estimateTokens(text);
  return async (text) => {
    if (!text) return 0;
    try {
      const n = await model.countTokens!(text, signal);
      return Number.isFinite(n) && n >= 0 ? Math.ceil(n) : estimateTokens(text);
    } catch (err) {
      if (signal?.aborted) throw err;
      return estimateTokens(text);
    }
  };
}
