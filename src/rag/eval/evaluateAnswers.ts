// Generation evaluation (`docs-rag eval --answers`): key-fact coverage tolerant of number formats, citation accuracy
// (a citation counts when its passage matches an evidence item of the question and supports its sentence), and
// groundedness by an LLM judge when a model is configured.
import { matchesEvidence, type Evidence } from './match';
import type { WorkspaceQuery } from './datasets';
import type { Retriever } from '../search/types';
import type { ChatModel, Embedder } from '../types';
import { answerQuestion, type AnswerOptions } from '../answer/answer';
import { groundednessMessages } from '../answer/prompts';
import { contentTerms, numbersContained, termSet } from '../answer/text';
import type { AnswerResult, NumberedSource } from '../answer/types';

export interface AnswerScores {
  id: string;
  lang: string;
  category: string;
  mode: AnswerResult['mode'];
  /** Share of key facts found in the answer (null when the question lists none). */
  keyFactCoverage: number | null;
  missingFacts: string[];
  citations: number;
  /** Citations whose passage matches an evidence item. */
  citationsOnEvidence: number;
  /** Citations that match evidence and support their sentence(s). */
  citationsCorrect: number;
  /** citationsCorrect / citations (null without citations). */
  citationAccuracy: number | null;
  /** Share of the answer's statements the judge found supported (null without a judge or when it failed). */
  groundedness: number | null;
  unsupportedSentences: number;
  removedCitations: number;
  ms: number;
  error?: string;
}

export interface AnswerEvalSummary {
  questions: number;
  answered: number;
  keyFactCoverage: number | null;
  citationAccuracy: number | null;
  citationsOnEvidence: number | null;
  groundedness: number | null;
  medianMs: number;
  byLang: Record<string, { questions: number; keyFactCoverage: number | null; citationAccuracy: number | null }>;
}

export interface AnswerEvalReport {
  summary: AnswerEvalSummary;
  perQuery: AnswerScores[];
}

const SYMBOLS: [RegExp, string][] = [
  [/€/g, ' euro '],
  [/\$/g, ' dollar '],
  [/%/g, ' prozent percent '],
  [/§/g, ' § '],
];

function prepare(text: string): string {
  let t = text.normalize('NFC');
  for (const [re, rep] of SYMBOLS) t = t.replace(re, rep);
  return t;
}

/** Loose normal form for a verbatim check: lower case, symbols spelled out, punctuation and spaces collapsed. */
function loose(text: string): string {
  return prepare(text)
    .toLowerCase()
    .replace(/(\d)[\s\u00a0\u202f.,](?=\d{3}\b)/g, '$1')
    .replace(/[^\p{L}\p{N}§]+/gu, ' ')
    .trim();
}

/**
 * Whether an answer states a key fact: verbatim after normalisation, or every number of the fact present (in any
 * format: "1 800 Euro" = "1.800 €") and at least 60% of its content terms (stemmed).
 */
export function factCovered(fact: string, answer: string, lang?: string): boolean {
  if (loose(answer).includes(loose(fact))) return true;
  const f = prepare(fact);
  const a = prepare(answer);
  if (!numbersContained(f, a).ok) return false;
  const l = lang === 'de' || lang === 'en' ? lang : undefined;
  const terms = contentTerms(f, l);
  if (terms.length === 0) return /\d/.test(f);
  const have = termSet(a);
  return terms.filter((t) => have.has(t)).length / terms.length >= 0.6;
}

/** Scores one answer against its question's key facts and evidence (no model needed). */
export function scoreAnswer(q: WorkspaceQuery, r: AnswerResult, ms = 0): AnswerScores {
  const facts = q.keyFacts ?? [];
  const missingFacts = facts.filter((f) => !factCovered(f, r.answer, q.lang));
  let onEvidence = 0;
  let correct = 0;
  for (const c of r.citations) {
    const matches = (q.relevant as Evidence[]).some((e) => matchesEvidence({ path: c.path, loc: c.loc, text: c.text }, e, { quoteEdges: true }));
    if (!matches) continue;
    onEvidence++;
    const checks = r.checks.filter((ch) => ch.citations.includes(c.n));
    // Extractive answers quote the passage itself: the quote supports itself.
    const supports = r.mode === 'extractive' || (checks.length > 0 && checks.some((ch) => ch.supported));
    if (supports) correct++;
  }
  return {
    id: q.id,
    lang: q.lang,
    category: q.category,
    mode: r.mode,
    keyFactCoverage: facts.length ? (facts.length - missingFacts.length) / facts.length : null,
    missingFacts,
    citations: r.citations.length,
    citationsOnEvidence: onEvidence,
    citationsCorrect: correct,
    citationAccuracy: r.citations.length ? correct / r.citations.length : null,
    groundedness: null,
    unsupportedSentences: r.unsupported.length,
    removedCitations: r.removedCitations.length,
    ms: Math.round(ms),
  };
}

/** Asks a judge model how much of the answer its cited sources support; null when the reply is not usable. */
export async function judgeGroundedness(judge: ChatModel, r: AnswerResult, signal?: AbortSignal): Promise<number | null> {
  if (!r.answer.trim() || r.sources.length === 0) return null;
  const cited = r.citations.length ? r.citations : r.sources;
  const sources: NumberedSource[] = cited.map((c) => ({
    n: c.n,
    passage: { id: c.passageId, path: c.path, title: c.title, headingPath: c.headingPath, loc: c.loc, text: c.text } as NumberedSource['passage'],
  }));
  try {
    const res = await judge.chat(groundednessMessages(r.question, r.answer, sources), { json: true, temperature: 0, signal });
    const m = /\{[\s\S]*\}/.exec(res.text);
    if (!m) return null;
    const obj = JSON.parse(m[0]) as { grounded?: unknown };
    const g = Number(obj.grounded);
    return Number.isFinite(g) ? Math.max(0, Math.min(1, g)) : null;
  } catch {
    return null;
  }
}

export interface EvaluateAnswersOptions {
  retriever: Retriever;
  /** The answering model; none → extractive answers are scored. */
  chatModel?: ChatModel | null;
  /** Judge for groundedness (often the same model); none → groundedness is null. */
  judge?: ChatModel | null;
  embedder?: Embedder;
  mode?: AnswerOptions['mode'];
  tools?: AnswerOptions['tools'];
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
}

function mean(xs: (number | null)[]): number | null {
  const v = xs.filter((x): x is number => x !== null);
  return v.length ? Math.round((v.reduce((a, b) => a + b, 0) / v.length) * 1000) / 1000 : null;
}

function median(xs: number[]): number {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : Math.round((s[m - 1] + s[m]) / 2);
}

export function summarise(perQuery: AnswerScores[]): AnswerEvalSummary {
  const byLang: AnswerEvalSummary['byLang'] = {};
  for (const lang of [...new Set(perQuery.map((p) => p.lang))].sort()) {
    const part = perQuery.filter((p) => p.lang === lang);
    byLang[lang] = { questions: part.length, keyFactCoverage: mean(part.map((p) => p.keyFactCoverage)), citationAccuracy: mean(part.map((p) => p.citationAccuracy)) };
  }
  const withCitations = perQuery.filter((p) => p.citations > 0);
  return {
    questions: perQuery.length,
    answered: perQuery.filter((p) => !p.error).length,
    keyFactCoverage: mean(perQuery.map((p) => p.keyFactCoverage)),
    citationAccuracy: mean(perQuery.map((p) => p.citationAccuracy)),
    citationsOnEvidence: mean(withCitations.map((p) => p.citationsOnEvidence / p.citations)),
    groundedness: mean(perQuery.map((p) => p.groundedness)),
    medianMs: median(perQuery.filter((p) => !p.error).map((p) => p.ms)),
    byLang,
  };
}

/** Answers every question and scores the answers. A failing question is recorded with its error, not fatal. */
export async function evaluateAnswers(queries: WorkspaceQuery[], o: EvaluateAnswersOptions): Promise<AnswerEvalReport> {
  const perQuery: AnswerScores[] = [];
  for (const [i, q] of queries.entries()) {
    if (o.signal?.aborted) break;
    const t = performance.now();
    try {
      const r = await answerQuestion(q.query, {
        retriever: o.retriever,
        chatModel: o.chatModel,
        embedder: o.embedder,
        mode: o.mode,
        tools: o.tools,
        signal: o.signal,
      });
      const ms = performance.now() - t;
      const s = scoreAnswer(q, r, ms);
      if (o.judge && r.mode !== 'extractive') s.groundedness = await judgeGroundedness(o.judge, r, o.signal);
      perQuery.push(s);
    } catch (err) {
      perQuery.push({
        id: q.id,
        lang: q.lang,
        category: q.category,
        mode: 'extractive',
        keyFactCoverage: null,
        missingFacts: q.keyFacts ?? [],
        citations: 0,
        citationsOnEvidence: 0,
        citationsCorrect: 0,
        citationAccuracy: null,
        groundedness: null,
        unsupportedSentences: 0,
        removedCitations: 0,
        ms: Math.round(performance.now() - t),
        error: err instanceof Error ? err.message : String(err),
      });
    }
    o.onProgress?.(i + 1, queries.length);
  }
  return { summary: summarise(perQuery), perQuery };
}
