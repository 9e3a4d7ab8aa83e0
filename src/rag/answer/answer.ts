// Answers a question: retrieve → (generate with numbered sources | agentic tool use | extractive quotes) →
// remove unknown citations → redact secrets → check that cited passages support each sentence → notes and trace.
import type { Retriever } from '../search/types';
import { ModelError, type ChatModel, type Embedder, type Lang, type Passage, type SearchHit, type TraceSpan } from '../types';
import { agenticAnswer } from './agentic';
import { normaliseCitationStyles, resolveCitations, stripUnknownCitations, toCitation } from './citations';
import { extractiveAnswer, noPassagesMessage, pickPassages } from './extractive';
import { overlapsWholly } from './text';
import { checkQuestion, detectInjection, lowSupportDisclaimer, redactionNote, redactSecrets, StreamRedactor } from './guardrails';
import { ANSWER_TOKENS, estimateTokens, tokenCounter, type AnswerLength } from '../llm/tokens';
import { answerSystemPrompt, buildAnswerMessages, renderSource } from './prompts';
import { checkSupport } from './support';
import type { ToolContext } from './tools';
import type { AnswerMode, AnswerResult, AnswerStage, NumberedSource } from './types';

export interface AnswerOptions {
  retriever: Retriever;
  /** No model (null/undefined): the extractive answer. */
  chatModel?: ChatModel | null;
  /** Why there is no model (e.g. Restricted Mode, or the model failed its check); added to the notes. */
  noModelNote?: string;
  /** 'model-failed' labels the extractive answer "the language model is unavailable" instead of "no model configured". */
  extractiveReason?: 'no-model' | 'model-failed';
  /** Embedder of the index: confirms paraphrased sentences in the citation check. */
  embedder?: Embedder;
  /** Store access for the agentic mode's tools. */
  tools?: ToolContext;
  /** 'auto' = generative with a model, extractive without. 'agentic' needs `tools` and a tool-capable model. */
  mode?: 'auto' | 'generative' | 'agentic' | 'extractive';
  /** Passages retrieved (default 8). */
  k?: number;
  /** Most passages given to the model (default 16), fewer if the context window is small. */
  maxSources?: number;
  /** Tokens kept free for the answer (default by length: 384 / 1024 / 2048; at most a third of the window). */
  answerTokens?: number;
  length?: AnswerLength;
  /** Overrides the extractive answer's shape (default by `length`, see EXTRACTIVE_SHAPE). */
  extractive?: { maxPassages?: number; maxChars?: number };
  /** Agentic rounds (default 4). */
  maxRounds?: number;
  signal?: AbortSignal;
  /** Streamed answer text (already redacted, held back to sentence boundaries). */
  onToken?: (text: string) => void;
  /** Progress: the stage answering has reached. */
  onStage?: (stage: AnswerStage) => void;
  /**
   * The exact numbered sources, before any text is streamed (generative and extractive modes; in agentic mode the
   * sources grow with each tool call and are only final in the result), so a UI can link [n] while streaming.
   */
  onSources?: (sources: NumberedSource[]) => void;
  /** Called before the extractive answer (quoted document text) is streamed: without a model, or after it failed. */
  onExtractive?: () => void;
}

/** How many passages the extractive answer quotes, and how much of each, by answer length. */
export const EXTRACTIVE_SHAPE: Record<AnswerLength, { maxPassages: number; maxChars: number }> = {
  // Tuned on the dev questions (bench/answerEval.ts): longer quotes kept more key facts than shorter ones.
  short: { maxPassages: 2, maxChars: 400 },
  medium: { maxPassages: 3, maxChars: 800 },
  long: { maxPassages: 5, maxChars: 1200 },
};

const REFUSAL_RE =
  /\b(do(es)? not|don't|doesn't|cannot|can't) (contain|say|mention|state|answer|cover|include)|\bno information\b|\bnot (found|mentioned|covered)\b|\bkeine (angaben|informationen|aussage|regelung)|\bnicht (enthalten|erwähnt|beantwortet|geregelt|zu entnehmen)|\benthalten (dazu )?keine\b|\bgeben (dazu )?keine auskunft/i;

function span(name: string, start: number, counts?: Record<string, number>, notes?: string[]): TraceSpan {
  return { name, ms: Math.round((performance.now() - start) * 10) / 10, ...(counts ? { counts } : {}), ...(notes?.length ? { notes } : {}) };
}

/**
 * Numbers the passages for the prompt within the token budget: retrieval order, distinct, no passage that holds or is
 * held by another one already chosen from the same file (an L2 passage and its L1 section would say the same twice).
 */
export function selectSources(
  hits: SearchHit[],
  maxSources: number,
  budgetTokens: number,
  /** Tokens of a rendered source (default: the estimate). */
  costOf: (rendered: string, p: Passage) => number = (rendered) => estimateTokens(rendered),
): NumberedSource[] {
  const out: NumberedSource[] = [];
  let used = 0;
  const seen = new Set<string>();
  for (const h of hits) {
    const p = h.passage;
    if (seen.has(p.id) || !p.text.trim()) continue;
    if (out.some((s) => overlapsWholly(s.passage, p))) continue;
    const cost = costOf(renderSource(out.length + 1, p), p) + 8;
    if (used + cost > budgetTokens && out.length > 0) break;
    seen.add(p.id);
    out.push({ n: out.length + 1, passage: p });
    used += cost;
    if (out.length >= maxSources) break;
  }
  return out;
}

export async function answerQuestion(question: string, opts: AnswerOptions): Promise<AnswerResult> {
  const trace: TraceSpan[] = [];
  const t0 = performance.now();
  const q = checkQuestion(question);
  const injection = detectInjection(q);
  trace.push(span('answer.guard', t0, { chars: q.length, injectionPatterns: injection.length }, injection.map((p) => `injection-suspected:${p}`)));

  const t1 = performance.now();
  opts.onStage?.('searching');
  const model = opts.chatModel ?? null;
  const wanted = opts.mode ?? 'auto';
  const generating = !!model && wanted !== 'extractive';
  // With a model the retriever also builds the answer context (parents, neighbours, expanded documents) within the
  // model's window; the extractive answer quotes the hits themselves.
  const retrieval = await opts.retriever.retrieve(q, {
    k: opts.k ?? 8,
    signal: opts.signal,
    context: generating,
    ...(generating
      ? {
          contextWindow: model!.contextWindow,
          answerLength: opts.length ?? 'medium',
          ...(model!.countTokens ? { countTokens: tokenCounter(model, opts.signal) } : {}),
        }
      : {}),
  });
  trace.push(...retrieval.trace);
  const lang: Lang = retrieval.analysis.lang;
  const hits = retrieval.hits;
  const injectionInSources = hits.filter((h) => detectInjection(h.passage.text).length > 0).length;
  trace.push(span('answer.retrieve', t1, { hits: hits.length, injectionInSources }, retrieval.warnings));

  const notes: string[] = [];
  const flags: AnswerResult['flags'] = {
    injectionSuspected: injection.length > 0,
    injectionInSources,
    redactions: 0,
    lowSupport: false,
    modelFailed: false,
  };
  const base = { question: q, lang, flags, notes, trace };
  let streamed = false;

  const extractive = (reason: 'no-model' | 'model-failed'): AnswerResult => {
    const t = performance.now();
    const shape = { ...EXTRACTIVE_SHAPE[opts.length ?? 'medium'], ...opts.extractive };
    const ex = extractiveAnswer(q, hits, lang, { reason, ...shape });
    opts.onSources?.(ex.sources);
    opts.onExtractive?.();
    const citations = ex.sources.map((s) => toCitation(s.n, s.passage));
    // After a model failure mid-stream, start the quotes on a fresh paragraph.
    opts.onToken?.(streamed ? `\n\n${ex.answer}` : ex.answer);
    trace.push(span('answer.extractive', t, { passages: citations.length }));
    return {
      ...base,
      answer: ex.answer,
      mode: 'extractive',
      model: null,
      citations,
      sources: citations,
      removedCitations: [],
      checks: [],
      unsupported: [],
      uncited: [],
    };
  };

  if (!model || wanted === 'extractive') {
    if (opts.noModelNote) notes.push(opts.noModelNote);
    if (opts.extractiveReason === 'model-failed') flags.modelFailed = true;
    return extractive(opts.extractiveReason ?? 'no-model');
  }
  if (hits.length === 0 && wanted !== 'agentic') {
    // Nothing to ground an answer in: say so instead of letting the model guess.
    const answer = noPassagesMessage(lang);
    opts.onToken?.(answer);
    return { ...base, answer, mode: 'generative', model: model.id, citations: [], sources: [], removedCitations: [], checks: [], unsupported: [], uncited: [] };
  }

  const redactor = opts.onToken
    ? new StreamRedactor((t) => {
        streamed = true;
        opts.onToken!(t);
      })
    : undefined;
  const onToken = redactor ? (t: string) => redactor.push(t) : undefined;
  const window = model.contextWindow;
  const answerTokens = Math.min(opts.answerTokens ?? ANSWER_TOKENS[opts.length ?? 'medium'], Math.floor(window / 3));
  let text: string;
  let sources: NumberedSource[];
  let mode: AnswerMode;
  const t2 = performance.now();
  opts.onStage?.(wanted === 'agentic' && opts.tools ? 'searching-with-model' : 'generating');
  try {
    if (wanted === 'agentic' && opts.tools) {
      const initial = pickPassages(hits, 3);
      let res;
      try {
        res = await agenticAnswer(q, model, opts.tools, { lang, maxRounds: opts.maxRounds, initial, answerTokens, signal: opts.signal, onToken });
      } catch (err) {
        // A model without tool support answers in the normal mode.
        if (!(err instanceof ModelError) || !/does not support tools/i.test(err.message)) throw err;
        notes.push(`${model.id} cannot call tools; answered from the retrieved passages instead.`);
        res = undefined;
      }
      if (res) {
        text = res.text;
        sources = res.sources;
        mode = 'agentic';
        trace.push(span('answer.agentic', t2, { rounds: res.rounds, sources: sources.length, ...prefixed('tool.', res.toolCalls) }));
      } else {
        ({ text, sources } = await generate());
        mode = 'generative';
      }
    } else {
      ({ text, sources } = await generate());
      mode = 'generative';
    }
  } catch (err) {
    if (err instanceof ModelError && err.kind !== 'cancelled' && !opts.signal?.aborted) {
      redactor?.end();
      flags.modelFailed = true;
      notes.push(err.message);
      trace.push(span('answer.model-error', t2, undefined, [err.kind]));
      return extractive('model-failed');
    }
    throw err;
  }
  redactor?.end();

  async function generate(): Promise<{ text: string; sources: NumberedSource[] }> {
    const t = performance.now();
    // The model's own token counts when it has a tokenizer (VS Code), else the estimate.
    const count = tokenCounter(model, opts.signal);
    const fixed = (await count(answerSystemPrompt(lang, opts.length) + q)) + 64;
    // The retriever's budgeted context when it built one (in priority order), else the hits.
    const candidates: SearchHit[] = retrieval.context?.passages.length
      ? retrieval.context.passages.map((c) => ({ passage: c.passage, score: c.score }))
      : hits;
    // Sources are numbered by position, so a passage's cost is counted once as the first source (a longer number costs
    // nothing a tokenizer would notice).
    const costs = new Map<string, number>();
    if (model!.countTokens) {
      const distinct = [...new Map(candidates.map((h) => [h.passage.id, h.passage])).values()];
      await Promise.all(distinct.map(async (p) => costs.set(p.id, await count(renderSource(1, p)))));
    }
    const costOf = (rendered: string, p: Passage) => costs.get(p.id) ?? estimateTokens(rendered);
    let srcs = selectSources(candidates, opts.maxSources ?? 16, Math.max(256, window - answerTokens - fixed), costOf);
    opts.onSources?.(srcs);
    let res;
    try {
      res = await model!.chat(buildAnswerMessages(q, srcs, lang, opts.length), { signal: opts.signal, onToken, maxTokens: answerTokens });
    } catch (err) {
      // One retry with half the sources when the prompt overflowed the window (nothing was streamed yet).
      if (!(err instanceof ModelError && err.kind === 'context-overflow') || srcs.length < 2) throw err;
      srcs = srcs.slice(0, Math.ceil(srcs.length / 2));
      opts.onSources?.(srcs);
      trace.push(span('answer.overflow-retry', t, { sources: srcs.length }));
      res = await model!.chat(buildAnswerMessages(q, srcs, lang, opts.length), { signal: opts.signal, onToken, maxTokens: answerTokens });
    }
    trace.push(span('answer.generate', t, { sources: srcs.length, candidates: candidates.length, answerChars: res.text.length }));
    return { text: res.text, sources: srcs };
  }

  return finish(text, sources, mode, model.id, base, opts);
}

function prefixed(prefix: string, counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).map(([k, v]) => [`${prefix}${k}`, v]));
}

/** Post-processing shared by the generative and agentic modes. */
async function finish(
  raw: string,
  sources: NumberedSource[],
  mode: AnswerMode,
  modelId: string,
  base: Pick<AnswerResult, 'question' | 'lang' | 'flags' | 'notes' | 'trace'>,
  opts: AnswerOptions,
): Promise<AnswerResult> {
  const t = performance.now();
  opts.onStage?.('checking-citations');
  const { flags, notes, lang } = base;
  const stripped = stripUnknownCitations(normaliseCitationStyles(raw.trim()), new Set(sources.map((s) => s.n)));
  const redacted = redactSecrets(stripped.text);
  flags.redactions = redacted.count;
  if (redacted.count) notes.push(redactionNote(redacted, lang));
  if (stripped.removed.length) {
    notes.push(
      lang === 'de'
        ? `Entfernte Quellenangaben ohne passende Quelle: ${stripped.removed.map((n) => `[${n}]`).join(', ')}.`
        : `Removed citations that match no source: ${stripped.removed.map((n) => `[${n}]`).join(', ')}.`,
    );
  }
  const answer = redacted.text;
  const byN = new Map<number, Passage>(sources.map((s) => [s.n, s.passage]));
  const report = await checkSupport(answer, byN, { lang, embedder: opts.embedder, signal: opts.signal });
  const citations = resolveCitations(answer, sources);
  const refusal = REFUSAL_RE.test(answer);
  flags.lowSupport = report.checks.length > 0 ? report.supportedShare < 0.5 : !refusal && answer.length > 0;
  if (flags.lowSupport) notes.push(lowSupportDisclaimer(lang));
  const unsupported = report.checks.filter((c) => !c.supported).map((c) => c.sentence);
  base.trace.push(
    span('answer.check', t, {
      sentencesChecked: report.checks.length,
      supported: report.checks.length - unsupported.length,
      unsupported: unsupported.length,
      uncited: report.uncited.length,
      removedCitations: stripped.removed.length,
      redactions: redacted.count,
      citations: citations.length,
    }),
  );
  return {
    ...base,
    answer,
    mode,
    model: modelId,
    citations,
    sources: sources.map((s) => toCitation(s.n, s.passage)),
    removedCitations: stripped.removed,
    checks: report.checks,
    unsupported,
    uncited: report.uncited,
  };
}
