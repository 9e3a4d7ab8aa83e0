// Types of the answer stage: numbered sources, citations, sentence checks and the answer result.
import type { Passage, SourceLocation, TraceSpan } from '../types';

/** A passage shown to the model under a number. */
export interface NumberedSource {
  n: number;
  passage: Passage;
}

/** A resolved citation: number → passage → file location. */
export interface Citation {
  n: number;
  passageId: string;
  path: string;
  title: string;
  headingPath: string[];
  loc: SourceLocation;
  /** The passage text (verbatim as indexed; a text-format location's lines contain it). */
  text: string;
}

/** The support check of one sentence that carries citations. */
export interface SentenceCheck {
  sentence: string;
  citations: number[];
  supported: boolean;
  /** Share of the sentence's content terms found in the cited passages (0..1). */
  termCoverage: number;
  /** Cosine similarity of sentence and best cited passage when an embedder was available. */
  similarity?: number;
  /** Numbers of the sentence that none of its cited passages contains. */
  missingNumbers: string[];
}

export type AnswerMode = 'generative' | 'extractive' | 'agentic';

/** The steps of answering, in order, as reported to `onStage`; hosts switch on them for what they show. */
export type AnswerStage = 'searching' | 'searching-with-model' | 'generating' | 'checking-citations';

export interface AnswerResult {
  question: string;
  answer: string;
  mode: AnswerMode;
  /** Chat model id, or null for the extractive answer. */
  model: string | null;
  lang: 'de' | 'en' | 'other';
  /** Passages cited in the answer, in order of their number. */
  citations: Citation[];
  /** Every source the model was given (cited or not). */
  sources: Citation[];
  /** Citation numbers the model used that match no source (removed from the answer). */
  removedCitations: number[];
  /** Sentence checks of every sentence with a citation. */
  checks: SentenceCheck[];
  /** Sentences whose cited passages do not support them. */
  unsupported: string[];
  /** Sentences of a generated answer with no citation at all. */
  uncited: string[];
  /** Notes for the user (disclaimer, redaction, model problem with its fix). */
  notes: string[];
  flags: {
    /** The question looks like a prompt-injection attempt (answered under the same rules). */
    injectionSuspected: boolean;
    /** Retrieved passages with instruction-like text (treated as data). */
    injectionInSources: number;
    redactions: number;
    lowSupport: boolean;
    /** The model failed and the extractive answer was given instead. */
    modelFailed: boolean;
  };
  /** Names, durations and counts only: no document text. */
  trace: TraceSpan[];
}
