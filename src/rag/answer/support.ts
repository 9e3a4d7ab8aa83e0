// Citation check: every sentence that carries a citation must be supported by the passages it cites.
// Lexical evidence (share of the sentence's content terms found in the cited passages, and every number of the
// sentence present in them) decides; an embedding similarity, when an embedder is available, can confirm a
// paraphrase whose terms differ.
import type { Embedder, Lang, Passage } from '../types';
import { sentenceCitations, withoutMarkers } from './citations';
import { contentTerms, numbersContained, splitSentences, termSet } from './text';
import type { SentenceCheck } from './types';

export interface SupportOptions {
  lang: Lang;
  embedder?: Embedder;
  signal?: AbortSignal;
  /** Term coverage from which a sentence counts as supported. Default 0.5. */
  minCoverage?: number;
  /** Cosine similarity that confirms a sentence with weaker term coverage (at least half of minCoverage). Default 0.75. */
  minSimilarity?: number;
}

export interface SupportReport {
  checks: SentenceCheck[];
  /** Sentences with no citation (only those with content terms: headings and connectives are ignored). */
  uncited: string[];
  /** Share of checked sentences that are supported (1 when none was checked). */
  supportedShare: number;
}

/** Text a passage offers as evidence: its headings, title and text. */
function evidenceText(p: Passage): string {
  return `${p.title}\n${p.headingPath.join('\n')}\n${p.text}`;
}

export async function checkSupport(answer: string, passages: Map<number, Passage>, opts: SupportOptions): Promise<SupportReport> {
  const minCoverage = opts.minCoverage ?? 0.5;
  const minSimilarity = opts.minSimilarity ?? 0.75;
  const checks: SentenceCheck[] = [];
  const uncited: string[] = [];
  const pending: { check: SentenceCheck; plain: string; cited: Passage[] }[] = [];

  for (const sentence of splitSentences(answer)) {
    const nums = sentenceCitations(sentence).filter((n) => passages.has(n));
    const plain = withoutMarkers(sentence);
    const terms = contentTerms(plain, opts.lang);
    if (nums.length === 0) {
      if (terms.length >= 3 && !/:\s*$/.test(plain)) uncited.push(plain);
      continue;
    }
    const cited = nums.map((n) => passages.get(n)!);
    const evidence = cited.map(evidenceText).join('\n');
    const have = termSet(evidence);
    const found = terms.filter((t) => have.has(t) || compoundMatch(t, have)).length;
    const termCoverage = terms.length ? found / terms.length : 1;
    const { missing } = numbersContained(plain, evidence);
    const check: SentenceCheck = {
      sentence: plain,
      citations: nums,
      supported: missing.length === 0 && termCoverage >= minCoverage,
      termCoverage: Math.round(termCoverage * 1000) / 1000,
      missingNumbers: missing,
    };
    checks.push(check);
    if (opts.embedder && !check.supported && missing.length === 0 && termCoverage >= minCoverage / 2) {
      pending.push({ check, plain, cited });
    }
  }

  if (opts.embedder && pending.length) {
    try {
      const texts = pending.flatMap((p) => [p.plain, ...p.cited.map((c) => c.text)]);
      const vectors = await opts.embedder.embed(texts, opts.signal);
      let i = 0;
      for (const p of pending) {
        const sv = vectors[i++];
        let best = -1;
        for (let j = 0; j < p.cited.length; j++) best = Math.max(best, dot(sv, vectors[i++]));
        p.check.similarity = Math.round(best * 1000) / 1000;
        if (best >= minSimilarity) p.check.supported = true;
      }
    } catch {
      // Embedding is a bonus: without it the lexical verdict stands.
    }
  }

  const supportedShare = checks.length ? checks.filter((c) => c.supported).length / checks.length : 1;
  return { checks, uncited, supportedShare };
}

/**
 * German compounds: "urlaubsanspruch" in a sentence is supported by "urlaub" + "anspruch" in the passage, and
 * "kündigungsschutzklag" by "klage" … — a long term counts when it contains, or is contained in, a passage term of at
 * least 5 letters that covers at least 40% of it.
 */
function compoundMatch(term: string, have: Set<string>): boolean {
  if (term.length < 6) return false;
  for (const w of have) {
    if (w.length < 5) continue;
    if ((term.includes(w) && w.length >= term.length * 0.4) || (w.includes(term) && term.length >= w.length * 0.4)) return true;
  }
  return false;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}
