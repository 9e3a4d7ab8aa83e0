// Engine configuration with defaults. The CLI maps flags onto it; the extension maps `docsRag.*` settings onto it.
// Each stage reads only its own section.
import { DOC_FORMATS, FORMATS, defaultIncludeGlob, type DocFormat } from './formats';

export interface IngestConfig {
  /** Glob patterns (picomatch, relative to the folder) of files to index. */
  include: string[];
  /** Glob patterns of files and folders never to index. The store folder is always excluded. */
  exclude: string[];
  /** Files larger than this are reported as too large. */
  maxFileSizeMB: number;
  /** Per-file parse deadline; the parser runs in a worker that is killed when it passes. */
  parseTimeoutMs: number;
  /** Parallel parser workers. */
  workers: number;
  /** Index files that symbolic links point to outside the folder (default false: such links are skipped). */
  followExternalSymlinks?: boolean;
  /** Leave out what the folder's `.gitignore` / `.ignore` files and `.git/info/exclude` ignore (absent = true). */
  useIgnoreFiles?: boolean;
  /** OCR of scanned PDF pages and images (tesseract.js, offline); absent = defaults (on, deu+eng, 50 pages). */
  ocr?: OcrConfig;
}

export interface OcrConfig {
  enabled: boolean;
  /** tesseract language codes joined by '+' (traineddata must be in dist/tessdata or DOCS_RAG_TESSDATA). */
  languages: string;
  /** At most this many scanned pages of one file are recognised. */
  maxPages: number;
}

export interface ChunkSize {
  size: number;
  overlap: number;
}

export interface ChunkConfig {
  /** Target passage size / overlap in characters, per format (defaults: formats.ts). */
  sizes: Record<DocFormat, ChunkSize>;
  /** Fragments under this many characters merge with a neighbour. */
  minSize: number;
  /** 'structural' (default): whole blocks and sentences packed up to the size; 'semantic': sentences grouped
   *  until the similarity of neighbours drops (see chunk/semantic.ts). */
  strategy?: 'structural' | 'semantic';
}

export interface EmbedConfig {
  provider: 'builtin' | 'ollama' | 'local';
  /** Ollama model name (ignored by builtin and local). */
  model: string;
  /** `local`: a model folder (transformers.js layout) or a known model name (embed/localModels.ts). */
  localModel: string;
  /** `local`: where known models are downloaded to (default ~/.cache/docs-rag/models; the extension: its global storage). */
  modelCacheDir?: string;
  /**
   * `local`: texts per request to the model's worker (one timeout each), taken in order of length; the worker runs them
   * in forward passes of at most 512 tokens (embed/lengthPasses.ts), so this bounds neither memory nor padding.
   */
  localBatchSize: number;
  /** `local`: onnxruntime threads (default: onnxruntime's, one per core). */
  localThreads?: number;
  ollamaHost: string;
  batchSize: number;
  timeoutMs: number;
  /** Overrides the model's known query / document task prefixes (see embed/prefixes.ts). */
  queryPrefix?: string;
  documentPrefix?: string;
}

/** LLM-built index enrichments (opt-in; off when absent). Uses Ollama at `embed.ollamaHost`. */
export interface EnrichConfig {
  /** Prepend a short model-written context to each passage's indexText (contextual retrieval). */
  contextual: boolean;
  /** Abstractive summaries for documents (L0) and sections (L1), extractive on any model error. */
  summaries: boolean;
  /** Ollama chat model (default DEFAULT_OLLAMA_CHAT_MODEL). */
  model?: string;
}

export interface EngineConfig {
  ingest: IngestConfig;
  chunk: ChunkConfig;
  embed: EmbedConfig;
  enrich?: EnrichConfig;
}

/**
 * What decided which files an index holds, how they were read and enriched: every run records its own (meta.json), and
 * a CLI run or MCP server given no flag for one of them keeps the recorded one (engine.ts, `settingsFromIndex`).
 */
export interface RecordedSettings {
  ingest: Pick<IngestConfig, 'include' | 'exclude' | 'maxFileSizeMB' | 'parseTimeoutMs' | 'followExternalSymlinks' | 'useIgnoreFiles' | 'ocr'>;
  /** Absent: no enrichment. */
  enrich?: EnrichConfig;
}

export function recordedSettings(config: EngineConfig): RecordedSettings {
  const { include, exclude, maxFileSizeMB, parseTimeoutMs, followExternalSymlinks, useIgnoreFiles, ocr } = config.ingest;
  const enrich = config.enrich && (config.enrich.contextual || config.enrich.summaries) ? config.enrich : undefined;
  return {
    ingest: { include, exclude, maxFileSizeMB, parseTimeoutMs, followExternalSymlinks: followExternalSymlinks === true, useIgnoreFiles: useIgnoreFiles !== false, ocr: { ...DEFAULT_OCR_CONFIG, ...ocr } },
    ...(enrich ? { enrich } : {}),
  };
}

export const DEFAULT_OCR_CONFIG: OcrConfig = { enabled: true, languages: 'deu+eng', maxPages: 50 };

/** Well-formed OCR languages: tesseract codes joined by '+' (deu+eng). */
export const OCR_LANGUAGES = /^[a-z_]{3,12}(\+[a-z_]{3,12})*$/i;

/**
 * The well-formed part of settings read from meta.json (a file a user or another version may have edited): each value
 * of the wrong type or out of range is left out, so the defaults or the caller's flags apply to it.
 */
export function readRecordedSettings(raw: unknown): RecordedSettings | undefined {
  if (!raw || typeof raw !== 'object') return undefined;
  const r = raw as Record<string, unknown>;
  const i = (r.ingest && typeof r.ingest === 'object' ? r.ingest : {}) as Record<string, unknown>;
  const strings = (v: unknown) => (Array.isArray(v) && v.every((x) => typeof x === 'string') ? (v as string[]) : undefined);
  const positive = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined);
  const bool = (v: unknown) => (typeof v === 'boolean' ? v : undefined);
  const o = (i.ocr && typeof i.ocr === 'object' ? i.ocr : {}) as Record<string, unknown>;
  const ocr: Partial<OcrConfig> = pick({
    enabled: bool(o.enabled),
    languages: typeof o.languages === 'string' && OCR_LANGUAGES.test(o.languages) ? o.languages : undefined,
    maxPages: Number.isInteger(o.maxPages) && (o.maxPages as number) >= 0 ? (o.maxPages as number) : undefined,
  });
  const ingest = pick({
    include: strings(i.include),
    exclude: strings(i.exclude),
    maxFileSizeMB: positive(i.maxFileSizeMB),
    parseTimeoutMs: positive(i.parseTimeoutMs),
    followExternalSymlinks: bool(i.followExternalSymlinks),
    useIgnoreFiles: bool(i.useIgnoreFiles),
  }) as RecordedSettings['ingest'];
  if (Object.keys(ocr).length) ingest.ocr = { ...DEFAULT_OCR_CONFIG, ...ocr };
  const e = (r.enrich && typeof r.enrich === 'object' ? r.enrich : undefined) as Record<string, unknown> | undefined;
  const enrich = e && typeof e.contextual === 'boolean' && typeof e.summaries === 'boolean'
    ? { contextual: e.contextual, summaries: e.summaries, ...(typeof e.model === 'string' && e.model ? { model: e.model } : {}) }
    : undefined;
  return { ingest, ...(enrich ? { enrich } : {}) };
}

function pick<T extends Record<string, unknown>>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export const DEFAULT_INCLUDE = [defaultIncludeGlob()];
export const DEFAULT_EXCLUDE = ['**/node_modules/**', '**/.git/**', '**/.docs-rag/**'];
export const DEFAULT_STORE_DIRNAME = '.docs-rag';
export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';
export const DEFAULT_OLLAMA_EMBED_MODEL = 'nomic-embed-text';
/** The local embedder's default model (embed/localModels.ts; chosen in EVALUATION.md, "Local embedding model"). */
export const DEFAULT_LOCAL_MODEL = 'multilingual-e5-small';
/** The Ollama chat model of answers (the extension's `docsRag.ollama.chatModel`) and of the index enrichments. */
export const DEFAULT_OLLAMA_CHAT_MODEL = 'qwen2.5:7b-instruct';

export function defaultConfig(): EngineConfig {
  return {
    ingest: {
      include: [...DEFAULT_INCLUDE],
      exclude: [...DEFAULT_EXCLUDE],
      maxFileSizeMB: 50,
      parseTimeoutMs: 30_000,
      workers: 2,
      followExternalSymlinks: false,
      useIgnoreFiles: true,
      ocr: { ...DEFAULT_OCR_CONFIG },
    },
    chunk: {
      sizes: Object.fromEntries(DOC_FORMATS.map((f) => [f, { ...FORMATS[f].chunk }])) as Record<DocFormat, ChunkSize>,
      minSize: 120,
    },
    embed: {
      provider: 'builtin',
      model: DEFAULT_OLLAMA_EMBED_MODEL,
      localModel: DEFAULT_LOCAL_MODEL,
      localBatchSize: 16,
      ollamaHost: process.env.OLLAMA_HOST || DEFAULT_OLLAMA_HOST,
      batchSize: 64,
      timeoutMs: 60_000,
    },
  };
}
