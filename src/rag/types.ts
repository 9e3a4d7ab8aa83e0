// Shared types at the seams of the engine. Every stage folder depends on this file and on nothing
// from another stage's internals. This file (and all of src/rag) never imports `vscode`.

import type { DocFormat } from './formats';

export type { DocFormat } from './formats';

/** Languages we analyse specially; everything else is 'other' (indexed with English analysis). */
export type Lang = 'de' | 'en' | 'other';

/**
 * Where a block or passage sits in its source file, so a citation can open it again.
 * By the format's location kind (formats.ts):
 * - lines: 1-based inclusive line numbers of the file as stored (split on \n).
 * - pages (PDF): 1-based physical page index (as unpdf/pdf.js count them); pageEnd when a passage spans pages.
 * - quote: Office documents give character offsets into the extracted text and a short verbatim quote; an image gives
 *   the file itself and a quote of its first recognised line.
 * Text recognised by OCR (scanned PDF pages, images) carries `ocrConfidence`, the mean word confidence 0–100
 * (the lowest of its blocks for a passage).
 */
export interface SourceLocation {
  startLine?: number;
  endLine?: number;
  page?: number;
  pageEnd?: number;
  startOffset?: number;
  endOffset?: number;
  quote?: string;
  /** Set when the text was recognised by OCR: tesseract's mean confidence 0–100. */
  ocrConfidence?: number;
}

export type BlockKind = 'heading' | 'paragraph' | 'list' | 'table' | 'code';

/** One structural unit produced by a loader. */
export interface Block {
  kind: BlockKind;
  /** Plain text of the block (for tables: rows joined, cells separated by " | "). */
  text: string;
  /** Heading level 1..6 (only for kind 'heading'). */
  level?: number;
  /** Table rows (only for kind 'table'); rows[0] is the header row when hasHeader. */
  rows?: string[][];
  hasHeader?: boolean;
  loc: SourceLocation;
}

/** What a loader returns for a readable file. */
export interface ParsedDocument {
  format: DocFormat;
  /** Title from metadata (front matter, <title>, core properties) or the first heading. */
  title?: string;
  blocks: Block[];
  /** Free-form metadata (front matter keys, sheet names, page count...). */
  metadata: Record<string, string>;
  /** Non-fatal problems worth showing (e.g. "charset declared UTF-8 but bytes are windows-1256"). */
  warnings: string[];
}

/** Why a file was not indexed. `kind` drives messages and tests; `reason` is for people. */
export type LoadFailureKind =
  | 'password-protected'
  | 'no-text'
  | 'corrupt'
  | 'too-large'
  | 'timeout'
  | 'unsupported';

export class LoadError extends Error {
  constructor(
    readonly kind: LoadFailureKind,
    message: string,
  ) {
    super(message);
    this.name = 'LoadError';
  }
}

/** L0 document, L1 section, L2 passage. */
export type Level = 0 | 1 | 2;

/** A unit of retrieval as stored in the index (without its vector). */
export interface Passage {
  /** Stable id: derived from path + level + heading path + content (not the position), see chunk/ids.ts. */
  id: string;
  /** File path relative to the indexed folder, with '/' separators. */
  path: string;
  /** Content hash (sha256 hex) of the file the passage came from. */
  fileHash: string;
  format: DocFormat;
  level: Level;
  /** Hierarchical path such as `doc/section-1/chunk-0`. */
  chunkPath: string;
  /** Id of the parent (L1 for L2, L0 for L1, null for L0). */
  parentId: string | null;
  /** Order within its parent (document order). */
  order: number;
  /** Headings from the document title down to the passage's section. */
  headingPath: string[];
  /** Document title. */
  title: string;
  /** The text that is shown, embedded and keyword-indexed. */
  text: string;
  /** Tail of the previous passage (context only: not embedded, not keyword-indexed). */
  overlap: string;
  lang: Lang;
  loc: SourceLocation;
}

/** A passage with the text actually embedded / keyword-indexed (may be enriched with context). */
export interface IndexedPassage extends Passage {
  /** Text used for embedding and full-text search; defaults to headings + text. */
  indexText: string;
  /** German passages: compound parts of its words (text/compounds.ts), extra keyword and builtin-embedder features. */
  keywordParts?: string;
}

/** What an edge of the reference graph stands for (links/: extracted at index time, model-free). */
export type LinkKind = 'link' | 'reference' | 'name' | 'definition';

/**
 * One row of the `links` table, written and removed with its file's passages (each row depends on its own file only).
 * - role 'edge': passage `from` points at `to` (a passage of the same file, resolved at index time) or, when `to` is
 *   empty, at every passage of any file that provides `key` (resolved when read, so an edge never goes stale).
 * - role 'target': passage `from` provides `key` (a § of a law, a heading anchor, a file, a name, a defined term);
 *   `anchor` holds the law's title on a law's identity row (key `law:<id>`).
 */
export interface LinkRow {
  role: 'edge' | 'target';
  from: string;
  path: string;
  kind: LinkKind;
  key: string;
  to: string;
  /** The text that makes the link ("§ 23 KSchG", a link text, a name); '' on target rows. */
  anchor: string;
}

/** A retrieval hit. */
export interface SearchHit {
  passage: Passage;
  /** Final score of the stage that produced this list (higher is better). */
  score: number;
  /** Fusion score kept when a reranker replaces `score`. */
  hybridScore?: number;
  /** Vector, when the stage that produced the hit loaded it (MMR needs it). */
  vector?: Float32Array;
  /** Set when an edge of the reference graph brought the hit (search/links.ts): the hit it was reached from and how. */
  via?: { seed: string; kind: LinkKind; direction: 'out' | 'in' };
}

/** Embeds texts into L2-normalised vectors. */
/**
 * How an index keeps an embedder's vectors. 'float': 32-bit floats, searched by cosine. 'codes': compact codes of the
 * rotated vector (store/vectorCodes.ts: sign bits searched by Hamming distance, candidates ranked by 8-bit codes), under
 * a third of the bytes; chosen by an embedder whose rankings the quality gate showed unchanged by them.
 */
export type VectorLayout = 'float' | 'codes';

export interface Embedder {
  /** e.g. "builtin" or "ollama". */
  readonly id: string;
  /** Model name (e.g. "hash-ngram-v1", "nomic-embed-text"). */
  readonly model: string;
  /** Vector dimension; for remote models known after the first call (see `init`). */
  dimension: number;
  /** How an index keeps this embedder's vectors. */
  readonly vectorLayout: VectorLayout;
  /** Checks the model is usable and learns the dimension. Throws an error with a fix in its message. */
  init(signal?: AbortSignal): Promise<void>;
  /**
   * Embeds documents: passages, HyDE's hypothetical passages, answer sentences compared with passages. Order of
   * output = order of input. With a prefix model the document prefix is added (nomic-embed-text: `search_document: `).
   */
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
  /**
   * Embeds search queries (the user's query, its multi-query variants, the agent's semantic_search). With a prefix
   * model the query prefix is added (nomic-embed-text: `search_query: `; e5: `query: `). Every search path calls this,
   * never `embed`, for the query side.
   */
  embedQueries(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
  /**
   * A slow embedder (a real model: local, Ollama): the indexer writes passages with their text and keyword columns
   * first and fills their vectors afterwards, so keyword search works before every vector exists. A fast one (builtin)
   * embeds inline.
   */
  readonly deferVectors?: boolean;
  /** Frees what the embedder holds (the local embedder's worker thread); the engine calls it on close. */
  close?(): Promise<void>;
  /**
   * Unloads the model until the next call, which loads it again (the local embedder: its worker and the model's
   * hundreds of MB). A large run with deferred vectors calls it for its files phase, which embeds nothing.
   */
  release?(): Promise<void>;
}

/** Identity of the embedder that built an index; two different ones are never mixed. */
export interface EmbedderInfo {
  id: string;
  model: string;
  dimension: number;
  vectorLayout: VectorLayout;
}

/** The identity an index records of `embedder`. */
export function embedderInfo(embedder: Pick<Embedder, 'id' | 'model' | 'dimension' | 'vectorLayout'>): EmbedderInfo {
  return { id: embedder.id, model: embedder.model, dimension: embedder.dimension, vectorLayout: embedder.vectorLayout };
}

/** Chat message in the format shared by Ollama and VS Code (roles system/user/assistant/tool). */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  toolCalls?: ToolCall[];
  toolName?: string;
}

export interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON schema of the arguments. */
  parameters: Record<string, unknown>;
}

export interface ChatOptions {
  signal?: AbortSignal;
  temperature?: number;
  maxTokens?: number;
  tools?: ToolSpec[];
  /** Ask for JSON output where the model supports it. */
  json?: boolean;
  /** Called with each streamed piece of text. */
  onToken?: (text: string) => void;
  /** What the call is for, when a host shows it as progress (the search's translation of the question). */
  purpose?: 'translate-question';
}

export interface ChatResponse {
  text: string;
  toolCalls: ToolCall[];
}

/** A chat model: Ollama, the VS Code language model, or a test model. */
export interface ChatModel {
  readonly id: string;
  /** Context window in tokens. */
  readonly contextWindow: number;
  chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResponse>;
  /**
   * The model's own token count of a text (the VS Code model's `countTokens`). Without it (Ollama) the token budget
   * estimates from the characters.
   */
  countTokens?(text: string, signal?: AbortSignal): Promise<number>;
}

/** Error raised by model adapters with a message that tells the user the fix. */
export class ModelError extends Error {
  constructor(
    readonly kind: 'unreachable' | 'model-missing' | 'timeout' | 'context-overflow' | 'bad-output' | 'cancelled' | 'other',
    message: string,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}

/** A trace span: no document text, only names, durations and counts. */
export interface TraceSpan {
  name: string;
  ms: number;
  counts?: Record<string, number>;
  notes?: string[];
}
