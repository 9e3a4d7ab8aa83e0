// Reads the `docsRag.*` settings (and `files.exclude`) and maps them onto the engine's configuration.
import * as vscode from 'vscode';
import { DEFAULT_EXCLUDE, DEFAULT_INCLUDE, DEFAULT_OCR_CONFIG, defaultConfig, DEFAULT_OLLAMA_CHAT_MODEL, DEFAULT_OLLAMA_EMBED_MODEL, DEFAULT_OLLAMA_HOST, OCR_LANGUAGES } from '../rag/config';
import { renamedSetting } from './renamedSettings';

import type { AnswerLength } from '../rag/llm/tokens';
export type { AnswerLength };

export interface DocsRagSettings {
  include: string[];
  exclude: string[];
  maxFileSizeMB: number;
  parseTimeoutSeconds: number;
  followExternalSymlinks: boolean;
  /** docsRag.index.useIgnoreFiles: leave out what .gitignore / .ignore files ignore (default true). */
  useIgnoreFiles: boolean;
  ocrEnabled: boolean;
  ocrLanguages: string;
  ocrMaxPages: number;
  embedder: 'builtin' | 'ollama' | 'local';
  /** docsRag.local.modelPath: a model folder or a known model name; empty = the default model. */
  localModelPath: string;
  /** docsRag.local.modelHost: a Hugging Face mirror (or local server) the known models are downloaded from; empty = huggingface.co. */
  localModelHost: string;
  /** docsRag.store: a team's shared index in object storage (a URI), read-only here; '' = the index of this machine. */
  store: string;
  ollamaHost: string;
  ollamaEmbedModel: string;
  chatModel: 'vscode' | 'ollama';
  ollamaChatModel: string;
  enrichContextual: boolean;
  enrichSummaries: boolean;
  hybridAlpha: number | null;
  /** LLM query expansion (multi-query variants); `docsRag.search.queryExpansion`, formerly `search.expansion`. */
  queryExpansion: boolean;
  rerank: boolean;
  /** The chat model's translation of the question before the search (`docsRag.search.translateQuestion`). */
  translateQuestion: 'auto' | 'on' | 'off';
  /** Follow the reference graph (links table) for multi-part, relational and comparative questions. */
  followLinks: boolean;
  enableDocumentExpansion: boolean;
  maxDocumentsToExpand: number;
  maxChunksPerDocument: number;
  /** Document expansion: share of the top score a document's best passage needs; formerly `search.expansionThreshold`. */
  documentExpansionThreshold: number;
  answerLength: AnswerLength;
}

const DEFAULT_INGEST = defaultConfig().ingest;

function stringList(value: unknown, fallback: string[]): string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : fallback;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T): T {
  return allowed.includes(value as T) ? (value as T) : fallback;
}

function num(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** `files.exclude` entries that are switched on, as picomatch globs that also cover a folder's content. */
export function filesExcludeGlobs(filesExclude: Record<string, unknown> | undefined): string[] {
  const globs: string[] = [];
  for (const [glob, on] of Object.entries(filesExclude ?? {})) {
    if (on !== true) continue; // `{when: ...}` conditions are about sibling files; they do not apply to documents
    globs.push(glob);
    if (!glob.endsWith('/**')) globs.push(`${glob}/**`);
  }
  return globs;
}

export function readSettings(scope?: vscode.ConfigurationScope): DocsRagSettings {
  const c = vscode.workspace.getConfiguration('docsRag', scope);
  const filesExclude = vscode.workspace.getConfiguration('files', scope).get<Record<string, unknown>>('exclude');
  const alpha = c.get<unknown>('search.hybridAlpha');
  return {
    include: stringList(c.get('include'), DEFAULT_INCLUDE),
    exclude: [...stringList(c.get('exclude'), DEFAULT_EXCLUDE), ...filesExcludeGlobs(filesExclude)],
    maxFileSizeMB: num(c.get('maxFileSizeMB'), DEFAULT_INGEST.maxFileSizeMB),
    parseTimeoutSeconds: Math.min(3600, Math.max(1, num(c.get('parseTimeoutSeconds'), DEFAULT_INGEST.parseTimeoutMs / 1000))),
    followExternalSymlinks: c.get<boolean>('index.followExternalSymlinks') === true,
    useIgnoreFiles: c.get<boolean>('index.useIgnoreFiles') !== false,
    ocrEnabled: c.get<boolean>('ocr.enabled') !== false,
    ocrLanguages: OCR_LANGUAGES.test(c.get<string>('ocr.languages') ?? '') ? c.get<string>('ocr.languages')! : DEFAULT_OCR_CONFIG.languages,
    ocrMaxPages: Math.max(0, Math.floor(num(c.get('ocr.maxPages'), DEFAULT_OCR_CONFIG.maxPages))),
    embedder: oneOf(c.get('embedder'), ['builtin', 'ollama', 'local'] as const, 'builtin'),
    localModelPath: (c.get<string>('local.modelPath') ?? '').trim(),
    localModelHost: (c.get<string>('local.modelHost') ?? '').trim(),
    store: (c.get<string>('store') ?? '').trim(),
    ollamaHost: c.get<string>('ollama.host') || DEFAULT_OLLAMA_HOST,
    ollamaEmbedModel: c.get<string>('ollama.embedModel') || DEFAULT_OLLAMA_EMBED_MODEL,
    chatModel: oneOf(c.get('chatModel'), ['vscode', 'ollama'] as const, 'vscode'),
    ollamaChatModel: c.get<string>('ollama.chatModel') || DEFAULT_OLLAMA_CHAT_MODEL,
    enrichContextual: c.get<boolean>('enrich.contextual') === true,
    enrichSummaries: c.get<boolean>('enrich.summaries') === true,
    hybridAlpha: typeof alpha === 'number' && alpha >= 0 && alpha <= 1 ? alpha : null,
    queryExpansion: renamedSetting<boolean>(c, 'search.queryExpansion') === true,
    rerank: c.get<boolean>('search.rerank') === true,
    translateQuestion: oneOf(c.get('search.translateQuestion'), ['auto', 'on', 'off'] as const, 'auto'),
    followLinks: c.get<boolean>('search.followLinks') !== false,
    enableDocumentExpansion: c.get<boolean>('search.enableDocumentExpansion') !== false,
    maxDocumentsToExpand: num(c.get('search.maxDocumentsToExpand'), 3),
    maxChunksPerDocument: num(c.get('search.maxChunksPerDocument'), 20),
    documentExpansionThreshold: num(renamedSetting(c, 'search.documentExpansionThreshold'), 0.3),
    answerLength: oneOf(c.get('answer.length'), ['short', 'medium', 'long'] as const, 'medium'),
  };
}

/** Settings whose change needs the engines to be reopened (a different index layout or embedder). */
export const ENGINE_SETTINGS = ['docsRag.include', 'docsRag.exclude', 'docsRag.maxFileSizeMB', 'docsRag.parseTimeoutSeconds', 'docsRag.index.followExternalSymlinks', 'docsRag.index.useIgnoreFiles', 'docsRag.ocr.enabled', 'docsRag.ocr.languages', 'docsRag.ocr.maxPages', 'docsRag.embedder', 'docsRag.local.modelPath', 'docsRag.ollama.host', 'docsRag.ollama.embedModel', 'docsRag.enrich.contextual', 'docsRag.enrich.summaries', 'docsRag.ollama.chatModel', 'docsRag.store', 'files.exclude'];
