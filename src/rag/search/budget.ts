// Context budget: how many tokens of passages fit a model's context window, and filling it greedily by score.
import { ModelError, type Passage, type SearchHit } from '../types';

export type AnswerLength = 'short' | 'medium' | 'long';

/** Tokens reserved for the answer, by requested length. */
export const ANSWER_TOKENS: Record<AnswerLength, number> = { short: 256, medium: 768, long: 1536 };
/** Tokens reserved for the system prompt, instructions and the question. */
export const PROMPT_OVERHEAD_TOKENS = 600;
/** Smallest budget we ever hand out (a few passages). */
export const MIN_BUDGET_TOKENS = 512;

/** Rough token estimate for mixed German/English prose: ~3.6 characters per token (no tokenizer needed). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 3.6);
}

/** Context tokens available for passages given the model's window and the answer length. */
export function contextBudget(contextWindow: number, answerLength: AnswerLength = 'medium'): number {
  const available = contextWindow - ANSWER_TOKENS[answerLength] - PROMPT_OVERHEAD_TOKENS;
  return Math.max(MIN_BUDGET_TOKENS, Math.floor(available));
}

/** The budget for the single retry after a context overflow: 60 % of the previous one. */
export function shrinkBudget(budget: number): number {
  return Math.max(Math.floor(MIN_BUDGET_TOKENS / 2), Math.floor(budget * 0.6));
}

export interface BudgetFill<T> {
  items: T[];
  usedTokens: number;
  dropped: number;
}

/**
 * Fills the budget greedily in score order (the input order): an item that does not fit is skipped and smaller
 * later ones may still fit. The first item is always kept (truncation is the caller's concern).
 */
export function fillBudget<T>(items: T[], budget: number, tokensOf: (item: T) => number): BudgetFill<T> {
  const out: T[] = [];
  let used = 0;
  let dropped = 0;
  for (const item of items) {
    const t = tokensOf(item);
    if (out.length === 0 || used + t <= budget) {
      out.push(item);
      used += t;
    } else dropped++;
  }
  return { items: out, usedTokens: used, dropped };
}

/** Tokens a hit costs in a prompt: its text plus a heading line. */
export function hitTokens(hit: SearchHit): number {
  return passageTokens(hit.passage);
}

export function passageTokens(p: Passage): number {
  return estimateTokens(p.text) + estimateTokens(p.headingPath.join(' > ')) + 8;
}

/**
 * Runs `attempt(budget)`; when the model reports a context overflow (ModelError kind 'context-overflow'),
 * retries once with `shrinkBudget(budget)`. Any other error, or a second overflow, is thrown.
 */
export async function withOverflowRetry<T>(budget: number, attempt: (budget: number) => Promise<T>): Promise<T> {
  try {
    return await attempt(budget);
  } catch (err) {
    if (err instanceof ModelError && err.kind === 'context-overflow') return attempt(shrinkBudget(budget));
    throw err;
  }
}
