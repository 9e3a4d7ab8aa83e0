// LLM reranker: scores candidates in batches through any ChatModel with a strict output format and robust parsing.
// After reranking `score` is the reranker's score in [0, 1] and the fusion score is kept as `hybridScore`.
import { ModelError, type ChatModel, type SearchHit } from '../types';
import { chatWithTimeout, extractJson } from '../llm/chatCall';
import { neutralise } from '../llm/prompts';
import type { Reranker } from './types';

export interface LlmRerankerOptions {
  batchSize: number;
  timeoutMs: number;
  /** Characters of each passage shown to the model. */
  maxPassageChars: number;
}

const SYSTEM =
  'You judge how well passages answer a search query. For each numbered passage give an integer relevance score from 0 ' +
  '(irrelevant) to 10 (answers the query directly). Reply with ONLY JSON: {"scores": [s1, s2, ...]} with exactly one score per passage, in order.';

export class LlmReranker implements Reranker {
  readonly id: string;

  constructor(
    private readonly model: ChatModel,
    private readonly options: LlmRerankerOptions = { batchSize: 8, timeoutMs: 20_000, maxPassageChars: 700 },
  ) {
    this.id = `llm:${model.id}`;
  }

  async rerank(query: string, hits: SearchHit[], signal?: AbortSignal): Promise<SearchHit[]> {
    const out: SearchHit[] = [];
    for (let i = 0; i < hits.length; i += this.options.batchSize) {
      const batch = hits.slice(i, i + this.options.batchSize);
      const scores = await this.scoreBatch(query, batch, signal);
      batch.forEach((hit, j) => out.push({ ...hit, hybridScore: hit.hybridScore ?? hit.score, score: scores[j] / 10 }));
    }
    return out.sort((a, b) => b.score - a.score || (b.hybridScore ?? 0) - (a.hybridScore ?? 0));
  }

  private async scoreBatch(query: string, batch: SearchHit[], signal?: AbortSignal): Promise<number[]> {
    const passages = batch
      .map((h, i) => {
        // Headings and text are document text: neutralised, so they cannot open a turn or close the list.
        const heading = neutralise(h.passage.headingPath.join(' > '));
        const text = neutralise(h.passage.text.replace(/\s+/g, ' ').slice(0, this.options.maxPassageChars));
        return `[${i + 1}] ${heading ? `(${heading}) ` : ''}${text}`;
      })
      .join('\n\n');
    const text = await chatWithTimeout(
      this.model,
      [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: `Query: ${query}\n\nPassages:\n${passages}\n\nReturn {"scores": [...]} with ${batch.length} integers.` },
      ],
      this.options.timeoutMs,
      { json: true, signal },
    );
    return parseScores(text, batch.length);
  }
}

/**
 * Parses reranker output into exactly `n` scores in [0, 10]. Accepts {"scores": [..]}, a bare array, an array of
 * {"id"/"index", "score"} objects, an object keyed by passage number, or lines like "[2] 7" / "2: 7".
 * Throws ModelError('bad-output') when a score is missing or not a number.
 */
export function parseScores(text: string, n: number): number[] {
  const fromList = (list: unknown[]): (number | undefined)[] => {
    if (list.every((v) => typeof v === 'number' || (typeof v === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(v)))) return list.map(Number);
    const byIndex: (number | undefined)[] = new Array(n).fill(undefined);
    for (const item of list) {
      if (!item || typeof item !== 'object') continue;
      const o = item as Record<string, unknown>;
      const idx = Number(o.id ?? o.index ?? o.passage ?? o.n);
      const s = Number(o.score ?? o.relevance);
      if (Number.isInteger(idx) && idx >= 1 && idx <= n && Number.isFinite(s)) byIndex[idx - 1] = s;
    }
    return byIndex;
  };
  const complete = (sc: (number | undefined)[] | undefined): sc is number[] =>
    !!sc && sc.length >= n && sc.slice(0, n).every((x) => x !== undefined && Number.isFinite(x));
  const json = extractJson(text);
  let scores: (number | undefined)[] | undefined;
  if (Array.isArray(json)) scores = fromList(json);
  else if (json && typeof json === 'object') {
    const o = json as Record<string, unknown>;
    const list = o.scores ?? o.results ?? o.ranking;
    if (Array.isArray(list)) scores = fromList(list);
    else if (Object.keys(o).every((k) => /^\[?\d+\]?$/.test(k))) {
      scores = new Array(n).fill(undefined);
      for (const [k, v] of Object.entries(o)) {
        const idx = Number(k.replace(/[[\]]/g, ''));
        if (idx >= 1 && idx <= n) scores[idx - 1] = Number(v);
      }
    }
  }
  if (!complete(scores)) {
    const lines = [...text.matchAll(/^\s*\[?(\d+)\]?\s*[:=)-]?\s*(\d+(?:\.\d+)?)\s*$/gm)];
    if (lines.length) {
      scores = new Array(n).fill(undefined);
      for (const m of lines) {
        const idx = Number(m[1]);
        if (idx >= 1 && idx <= n) scores[idx - 1] = Number(m[2]);
      }
    }
  }
  if (!complete(scores)) {
    throw new ModelError('bad-output', `The reranker did not return ${n} numeric scores.`);
  }
  return scores.slice(0, n).map((s) => Math.min(10, Math.max(0, s as number)));
}
