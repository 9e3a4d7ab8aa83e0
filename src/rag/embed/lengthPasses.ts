// How a batch of texts is cut into an encoder's forward passes (localWorker.ts), and in what order a call's texts are
// batched (local.ts): by length, so that padding stays small and the activations of one pass stay bounded.

/**
 * Tokens per forward pass, padding included (texts × the longest, after truncation): one text of a model's full 512
 * tokens, or several shorter ones. An encoder's activations grow with texts × length² (the attention scores of every
 * head), and on a CPU a larger pass is not faster: passes of 512 tokens were the smallest in memory and no slower than
 * larger ones.
 */
export const TOKENS_PER_PASS = 512;

/**
 * Splits texts (by their token counts) into passes: ascending length, each pass as many texts as fit
 * TOKENS_PER_PASS (at least one). Returns the indices of each pass.
 */
export function passesByLength(lengths: number[], budget = TOKENS_PER_PASS): number[][] {
  const order = lengths.map((_, i) => i).sort((a, b) => lengths[a] - lengths[b] || a - b);
  const passes: number[][] = [];
  let current: number[] = [];
  for (const i of order) {
    // Ascending order: the text added now is the pass's longest.
    if (current.length > 0 && (current.length + 1) * lengths[i] > budget) {
      passes.push(current);
      current = [];
    }
    current.push(i);
  }
  if (current.length > 0) passes.push(current);
  return passes;
}

/** Indices of `texts` by ascending length (stable): neighbours in this order make batches with little padding. */
export function orderByLength(texts: readonly string[]): number[] {
  return texts.map((_, i) => i).sort((a, b) => texts[a].length - texts[b].length || a - b);
}
