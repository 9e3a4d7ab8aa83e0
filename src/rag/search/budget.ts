// Context budget: how many tokens of passages fit a model's context window, and filling it greedily by score.
import { ANSWER_TOKENS, estimateTokens, type AnswerLength, type TokenCount } from '../llm/tokens';
import type { Passage } from '../types';

/** Tokens reserved for the system prompt, instructions and the question. */
export const PROMPT_OVERHEAD_TOKENS = 600;
/** Smallest budget we ever hand out (a few passages). */
export const MIN_BUDGET_TOKENS = 512;

/** Context tokens available for passages given the model's window and the answer length. */
export function contextBudget(contextWindow: number, answerLength: AnswerLength = 'medium'): number {
  const available = contextWindow - ANSWER_TOKENS[answerLength] - PROMPT_OVERHEAD_TOKENS;
  return Math.max(MIN_BUDGET_TOKENS, Math.floor(available));
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

/** Tokens a passage costs in a prompt: its text plus a heading line (estimated). */
export function passageTokens(p: Passage): number {
  return estimateTokens(p.text) + estimateTokens(p.headingPath.join(' > ')) + 8;
}

/** Tokens a passage costs in a prompt, counted by `count` (the model's tokenizer when it has one). */
export async function countedPassageTokens(p: Passage, count: TokenCount): Promise<number> {
  const [text, heading] = await Promise.all([count(p.text), count(p.headingPath.join(' > '))]);
  return text + heading + 8;
}
