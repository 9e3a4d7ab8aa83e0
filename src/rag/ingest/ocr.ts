// OCR inside the parser worker: tesseract.js (WASM, offline) reads page images. The traineddata come from a local
// folder (dist/tessdata, built by scripts/ocr/traineddata.sh); nothing is fetched and tesseract.js writes no cache of
// its own. Results are cached per (file content, page, languages) under <store>/ocr-cache, so a reindex or a rename
// never recognises a page twice. The pool's hard deadline applies per recognised page (see OcrContext.onPage).
import { createHash, randomUUID } from 'crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'fs';
import * as path from 'path';
import { DEFAULT_OCR_CONFIG } from '../config';
import { LoadError, type Block } from '../types';
import { collapseWhitespace, hasWords, normalizeUnicode } from './normalize';
import { joinLines, vocabularyOf } from './pdfLayout';

/** What the indexer asks of OCR (carried in the parse request to the worker). */
export interface OcrOptions {
  enabled: boolean;
  /** tesseract language codes joined by '+', e.g. 'deu+eng'. */
  languages: string;
  /** At most this many pages of one file are recognised; the rest are skipped with a warning. */
  maxPages: number;
  /** Folder for cached results (usually <store>/ocr-cache); no cache when absent. */
  cacheDir?: string;
  /** Folder holding <lang>.traineddata; found by findTessdata() when absent. */
  langPath?: string;
}

export const DEFAULT_OCR: OcrOptions = DEFAULT_OCR_CONFIG;

/** Images claiming more pixels than this are refused before decoding (pixel bombs). 50 MP ≈ A4 at 600 dpi. */
export const MAX_IMAGE_PIXELS = 50_000_000;
export const MAX_IMAGE_SIDE = 30_000;

/** Bumped when recognition settings change, so cached results of another setup are not reused. */
const OCR_CACHE_VERSION = 1;

/** Per-file context: options plus a hook the worker uses to restart the deadline before each recognised page. */
export interface OcrContext extends OcrOptions {
  onPage?: () => void;
  /** sha256 of the file (computed once per file on first use). */
  fileHash?: string;
}

export interface OcrLine {
  text: string;
  confidence: number;
}
export interface OcrParagraph {
  lines: OcrLine[];
  confidence: number;
}
export interface OcrPage {
  paragraphs: OcrParagraph[];
  /** Mean word confidence 0–100 as tesseract reports it. */
  confidence: number;
}

/** Counters for tests and status: how many pages were recognised now and how many came from the cache. */
export const ocrStats = { recognised: 0, cached: 0 };

export function languagesOf(spec: string): string[] {
  return spec
    .split(/[+,\s]+/)
    .map((l) => l.trim())
    .filter((l) => /^[a-z_]{3,12}$/i.test(l));
}

/** Folders searched for traineddata, in order. */
export function tessdataCandidates(): string[] {
  const out: string[] = [];
  if (process.env.DOCS_RAG_TESSDATA) out.push(process.env.DOCS_RAG_TESSDATA);
  // Bundled (dist/parseWorker.js): dist/tessdata. From source (src/rag/ingest): the repository's dist/tessdata.
  out.push(path.join(__dirname, 'tessdata'));
  out.push(path.join(__dirname, '..', '..', '..', 'dist', 'tessdata'));
  // Debian/Ubuntu packages tesseract-ocr-<lang>.
  out.push('/usr/share/tesseract-ocr/5/tessdata', '/usr/share/tesseract-ocr/4.00/tessdata');
  return out;
}

/** The folder with every requested traineddata, or a LoadError saying which are missing and how to get them. */
export function findTessdata(languages: string[], explicit?: string): string {
  const folders = explicit ? [explicit] : tessdataCandidates();
  for (const dir of folders) {
    if (languages.every((l) => existsSync(path.join(dir, `${l}.traineddata`)))) return dir;
  }
  throw new LoadError(
    'no-text',
    `no extractable text (OCR needed; OCR is unavailable: ${languages.map((l) => `${l}.traineddata`).join(', ')} not found in ${folders[0]}; run "bash scripts/ocr/traineddata.sh" or set docsRag.ocr.languages)`,
  );
}

interface TesseractWorker {
  recognize(image: Buffer, options?: object, output?: object): Promise<{ data: TesseractData }>;
  terminate(): Promise<unknown>;
}
interface TesseractData {
  confidence: number;
  blocks?: Array<{ paragraphs?: Array<{ confidence: number; lines?: Array<{ text: string; confidence: number }> }> }> | null;
}

let engine: { key: string; worker: Promise<TesseractWorker> } | null = null;

/** An idle tesseract worker (it holds its languages' models in memory) is ended after this long without a page. */
const IDLE_MS = 60_000;
let idleTimer: NodeJS.Timeout | null = null;

function whenIdle(): void {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    idleTimer = null;
    void closeOcr();
  }, IDLE_MS);
  idleTimer.unref();
}

/**
 * In the bundles, tesseract.js's worker script is a bundle of its own beside this code (esbuild.mjs): its path, since
 * the default one points into the tesseract.js package folder. Run from the sources, the package's own.
 */
function ocrWorkerPath(): { workerPath?: string } {
  const bundled = path.join(__dirname, 'ocrWorker.js');
  return existsSync(bundled) ? { workerPath: bundled } : {};
}

async function tesseract(languages: string[], langPath: string): Promise<TesseractWorker> {
  const key = `${languages.join('+')}@${langPath}`;
  if (engine?.key !== key) {
    const previous = engine;
    if (previous) void previous.worker.then((w) => w.terminate()).catch(() => undefined);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { createWorker } = require('tesseract.js') as typeof import('tesseract.js');
    const worker = createWorker(languages, 1 /* LSTM only */, {
      ...ocrWorkerPath(),
      langPath,
      gzip: false,
      cacheMethod: 'none',
      // Errors come back as rejected promises; the default handler would also throw them in the worker.
      errorHandler: () => undefined,
    }) as unknown as Promise<TesseractWorker>;
    engine = { key, worker };
    worker.catch(() => {
      if (engine?.worker === worker) engine = null;
    });
  }
  return engine!.worker;
}

/** Ends the tesseract worker (tests; the parser worker's own end also ends it). */
export async function closeOcr(): Promise<void> {
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  const e = engine;
  engine = null;
  if (e) await e.worker.then((w) => w.terminate()).catch(() => undefined);
}

function cacheFile(ctx: OcrContext, unit: string, languages: string[]): string | null {
  if (!ctx.cacheDir || !ctx.fileHash) return null;
  return path.join(ctx.cacheDir, ctx.fileHash.slice(0, 2), `${ctx.fileHash}.${unit}.${languages.join('+')}.v${OCR_CACHE_VERSION}.json`);
}

export function fileHashOf(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Recognises one image (PNG/JPEG/BMP bytes, or a rendered page). `unit` names it in the cache ('p3' for page 3,
 * 'img' for an image file); `render` produces the image only when the cache has no answer.
 */
export async function recognise(ctx: OcrContext, unit: string, render: () => Promise<Buffer>): Promise<OcrPage> {
  const languages = languagesOf(ctx.languages);
  if (languages.length === 0) throw new LoadError('no-text', `no extractable text (OCR needed; no usable language in "${ctx.languages}")`);
  const file = cacheFile(ctx, unit, languages);
  if (file && existsSync(file)) {
    try {
      const page = JSON.parse(readFileSync(file, 'utf8')) as OcrPage;
      if (Array.isArray(page.paragraphs)) {
        ocrStats.cached++;
        return page;
      }
    } catch {
      // A damaged cache entry is recognised again.
    }
  }
  const langPath = findTessdata(languages, ctx.langPath);
  ctx.onPage?.();
  const image = await render();
  // Busy: no idle shutdown while a page is being recognised.
  if (idleTimer) clearTimeout(idleTimer);
  idleTimer = null;
  let worker: TesseractWorker;
  try {
    worker = await tesseract(languages, langPath);
  } catch (err) {
    // Not the file's fault (a damaged traineddata, a missing WASM core): the same for every page and file.
    throw new LoadError('no-text', `no extractable text (OCR needed; OCR could not start: ${messageOf(err)})`);
  }
  let data: TesseractData;
  try {
    ({ data } = await worker.recognize(image, {}, { blocks: true, text: false }));
  } catch (err) {
    whenIdle();
    throw new LoadError('corrupt', `cannot read the image (${messageOf(err)}); the file may be damaged`);
  }
  ocrStats.recognised++;
  whenIdle();
  const page = toPage(data);
  if (file) {
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      // Two parser workers share the process: a unique temporary name, then an atomic rename.
      const tmp = `${file}.${randomUUID()}.tmp`;
      writeFileSync(tmp, JSON.stringify(page));
      renameSync(tmp, file);
    } catch {
      // The cache is an optimisation; a read-only store still indexes.
    }
  }
  return page;
}

/** tesseract.js rejects with strings as well as Errors. */
export function messageOf(err: unknown): string {
  const message = err instanceof Error ? err.message : typeof err === 'string' ? err : JSON.stringify(err) ?? String(err);
  return collapseWhitespace(message.replace(/^Error: /, '')).slice(0, 200);
}

function toPage(data: TesseractData): OcrPage {
  const paragraphs: OcrParagraph[] = [];
  for (const block of data.blocks ?? []) {
    for (const p of block.paragraphs ?? []) {
      const lines = (p.lines ?? [])
        .map((l) => ({ text: collapseWhitespace(normalizeUnicode(l.text)), confidence: Math.round(l.confidence) }))
        .filter((l) => l.text !== '');
      if (lines.length > 0) paragraphs.push({ lines, confidence: Math.round(p.confidence) });
    }
  }
  return { paragraphs, confidence: Math.round(data.confidence) };
}

/** Paragraphs below this confidence are noise read from pictures, rules or speckles. */
const MIN_PARAGRAPH_CONFIDENCE = 30;

/**
 * Blocks of a recognised page: one paragraph block per tesseract paragraph (broken words rejoined as in PDFs), each
 * carrying its confidence; `loc` adds the location (page for PDFs; a quote of the first line for images).
 */
export function ocrBlocks(page: OcrPage, loc: (p: OcrParagraph) => Block['loc']): Block[] {
  const kept = page.paragraphs.filter((p) => p.confidence >= MIN_PARAGRAPH_CONFIDENCE && p.lines.some((l) => hasWords(l.text)));
  const vocabulary = vocabularyOf(kept.flatMap((p) => p.lines.map((l) => l.text)));
  return kept.map((p) => {
    let text = '';
    for (const l of p.lines) text = joinLines(text, l.text, vocabulary);
    return { kind: 'paragraph', text: collapseWhitespace(text), loc: { ...loc(p), ocrConfidence: p.confidence } };
  });
}
