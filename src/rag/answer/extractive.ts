// Extractive answer (no language model): the most relevant passages quoted with their citations, clearly labelled.
import type { Lang, Passage, SearchHit } from '../types';
import { formatLocation } from './citations';
import { contentTerms, overlapsWholly, splitSentences, termSet } from './text';
import type { NumberedSource } from './types';

export type ExtractiveReason = 'no-model' | 'model-failed';

export function extractiveHeader(lang: Lang, reason: ExtractiveReason): string {
  if (reason === 'model-failed') {
    return lang === 'de'
      ? 'Das Sprachmodell ist nicht verfügbar — die relevantesten Textstellen:'
      : 'The language model is unavailable — the most relevant passages:';
  }
  return lang === 'de'
    ? 'Kein Sprachmodell konfiguriert — die relevantesten Textstellen:'
    : 'No language model configured — the most relevant passages:';
}

export function noPassagesMessage(lang: Lang): string {
  return lang === 'de'
    ? 'In den indexierten Dokumenten wurde nichts zu dieser Frage gefunden. Formulieren Sie die Frage anders oder prüfen Sie mit `docs-rag status`, ob die Dateien indexiert sind.'
    : 'Nothing in the indexed documents matches this question. Try other words, or check with `docs-rag status` that the files are indexed.';
}

/**
 * Picks the passages to quote: distinct ids, fine-grained passages (L2) first, and no passage whose text is already
 * inside one that was picked (a section and its own chunk).
 */
export function pickPassages(hits: SearchHit[], max: number): Passage[] {
  const ordered = [...hits.filter((h) => h.passage.level === 2), ...hits.filter((h) => h.passage.level !== 2)];
  const out: Passage[] = [];
  const seen = new Set<string>();
  for (const h of ordered) {
    const p = h.passage;
    if (seen.has(p.id) || !p.text.trim()) continue;
    if (out.some((q) => overlapsWholly(q, p))) continue;
    seen.add(p.id);
    out.push(p);
    if (out.length >= max) break;
  }
  return out;
}

/** The sentences of a passage that best match the question, in document order, within `maxChars` (elisions marked "…"). */
export function bestExcerpt(text: string, question: string, lang: Lang, maxChars = 500): string {
  const clean = text.trim();
  if (clean.length <= maxChars) return clean;
  const sentences = splitSentences(clean);
  const q = new Set(contentTerms(question, lang));
  const scored = sentences.map((s, i) => {
    const have = termSet(s);
    let score = 0;
    for (const t of q) if (have.has(t)) score++;
    return { s, i, score };
  });
  const chosen = new Set<number>();
  let used = 0;
  const take = (i: number): boolean => {
    if (chosen.has(i) || i < 0 || i >= sentences.length) return false;
    if (used + sentences[i].length > maxChars && chosen.size > 0) return false;
    chosen.add(i);
    used += sentences[i].length + 1;
    return true;
  };
  // Matching sentences first (best first), then their neighbours for context; no match at all: the beginning.
  const matching = scored.filter((c) => c.score > 0).sort((a, b) => b.score - a.score || a.i - b.i);
  for (const c of matching) take(c.i);
  if (chosen.size === 0) take(0);
  for (let grew = true; grew && used < maxChars; ) {
    grew = false;
    for (const i of [...chosen].sort((a, b) => a - b)) grew = take(i + 1) || take(i - 1) || grew;
  }
  const parts: string[] = [];
  let last = -1;
  for (const i of [...chosen].sort((a, b) => a - b)) {
    if (i !== last + 1) parts.push('…');
    const s = sentences[i];
    parts.push(s.length > maxChars ? `${s.slice(0, maxChars - 1)}…` : s);
    last = i;
  }
  if (last !== sentences.length - 1) parts.push('…');
  return parts.join(' ');
}

export interface ExtractiveAnswer {
  answer: string;
  sources: NumberedSource[];
}

/** Builds the extractive answer text: a labelled list of quoted passages with [n] and their locations. */
export function extractiveAnswer(
  question: string,
  hits: SearchHit[],
  lang: Lang,
  opts: { maxPassages?: number; maxChars?: number; reason?: ExtractiveReason } = {},
): ExtractiveAnswer {
  const picked = pickPassages(hits, opts.maxPassages ?? 3);
  if (picked.length === 0) return { answer: noPassagesMessage(lang), sources: [] };
  const sources = picked.map((passage, i) => ({ n: i + 1, passage }));
  const blocks = sources.map(({ n, passage }) => {
    const heading = passage.headingPath.length ? ` — ${passage.headingPath.join(' › ')}` : '';
    const quote = bestExcerpt(passage.text, question, lang, opts.maxChars ?? 800)
      .split('\n')
      .map((l) => `> ${l}`)
      .join('\n');
    return `[${n}] ${formatLocation(passage)}${heading}\n${quote}`;
  });
  return { answer: `${extractiveHeader(lang, opts.reason ?? 'no-model')}\n\n${blocks.join('\n\n')}`, sources };
}
