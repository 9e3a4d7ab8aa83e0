// Query expansion: LLM multi-query (variants with synonyms, both languages where useful) and HyDE (a hypothetical
// answer passage). Both go through any ChatModel; failures throw ModelError and the orchestrator falls back.
import { ModelError, type ChatModel, type Lang } from '../types';
import { chatWithTimeout, extractJson } from '../llm/chatCall';

export interface ExpansionOptions {
  n: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

const MULTI_QUERY_SYSTEM =
  'You rewrite search queries for a document search engine over German laws and English technical documentation. ' +
  'Return ONLY JSON of the form {"queries": ["...", "..."]}.';

/** Asks the model for `n` alternative phrasings of the query; returns unique, non-empty variants (never the original). */
export async function multiQuery(model: ChatModel, query: string, lang: Lang, o: ExpansionOptions): Promise<string[]> {
  const langHint =
    lang === 'de'
      ? 'The query is German: keep the variants German, use the legal terms a statute would use, split compound words where it helps.'
      : 'The query is English: use the terms technical documentation would use; add a German variant only if the topic is German law.';
  const text = await chatWithTimeout(
    model,
    [
      { role: 'system', content: MULTI_QUERY_SYSTEM },
      {
        role: 'user',
        content: `Write ${o.n} different search queries that find the passages answering this query. Use synonyms and the documents' own terminology. ${langHint}\nQuery: ${query}`,
      },
    ],
    o.timeoutMs,
    { json: true, signal: o.signal },
  );
  const parsed = extractJson(text);
  let list: unknown[] | undefined;
  if (Array.isArray(parsed)) list = parsed;
  else if (parsed && typeof parsed === 'object') {
    const q = (parsed as Record<string, unknown>).queries ?? Object.values(parsed as Record<string, unknown>).find(Array.isArray);
    if (Array.isArray(q)) list = q;
  }
  if (!list) throw new ModelError('bad-output', 'The model did not return a JSON list of queries.');
  const seen = new Set([query.trim().toLowerCase()]);
  const out: string[] = [];
  for (const item of list) {
    if (typeof item !== 'string') continue;
    const v = item.trim().replace(/\s+/g, ' ');
    if (!v || v.length > 300 || seen.has(v.toLowerCase())) continue;
    seen.add(v.toLowerCase());
    out.push(v);
    if (out.length >= o.n) break;
  }
  if (out.length === 0) throw new ModelError('bad-output', 'The model returned no usable query variants.');
  return out;
}

/** Typical refusals/apologies instead of a passage (English and German). */
const REFUSAL_RE = /^(sorry|i('m| am)? (can ?not|can't|cannot|unable)|i can't|as an ai|es tut mir leid|entschuldigung|ich kann (leider )?nicht|als (ki|sprachmodell))/i;

/** HyDE: a short hypothetical passage that would answer the query, written in the query's language. */
export async function hypotheticalDocument(model: ChatModel, query: string, lang: Lang, o: Omit<ExpansionOptions, 'n'>): Promise<string> {
  const text = await chatWithTimeout(
    model,
    [
      {
        role: 'system',
        content:
          'Write a short passage (3-5 sentences) as it could appear in the documentation or statute that answers the question. ' +
          'Write plain text only, no preamble.',
      },
      { role: 'user', content: `${lang === 'de' ? 'Antworte auf Deutsch. ' : ''}Question: ${query}` },
    ],
    o.timeoutMs,
    { signal: o.signal, maxTokens: 300 },
  );
  const passage = text.trim();
  if (REFUSAL_RE.test(passage)) throw new ModelError('bad-output', 'The model refused to write a hypothetical passage.');
  if (passage.length < 20) throw new ModelError('bad-output', 'The model returned no usable hypothetical passage.');
  return passage.slice(0, 2000);
}
