// Messages between ParserPool (main thread) and a parser worker (worker thread): parseWorker.ts, or the indexer's
// prepareWorker.ts, which parses the same way and then runs its own step on the file (`then`).
import type { DocFormat, LoadFailureKind, ParsedDocument } from '../types';
import type { OcrOptions } from './ocr';

export interface ParseRequest {
  id: number;
  /** The file to read and parse; absent for a request of `then` alone (ParserPool.compute), which reads no file. */
  absPath?: string;
  format?: DocFormat;
  /** OCR settings for scanned PDF pages and images; absent = defaults without a cache. */
  ocr?: OcrOptions;
  /** Work the worker entry does with the file after (or instead of) parsing it; opaque to the pool. */
  then?: unknown;
}

/**
 * Replies. `deadline: 'page'` is not an answer: the worker is about to recognise a page by OCR, and the pool restarts
 * the job's deadline (the hard deadline applies per recognised page; ocr.maxPages caps the pages of one file).
 * A request with `then` is answered with `result` (what the entry's step returned), one without with `doc`.
 */
export type ParseReply =
  | { id: number; deadline: 'page' }
  | { id: number; ok: true; doc?: ParsedDocument; result?: unknown }
  | { id: number; ok: false; kind: LoadFailureKind | null; message: string };
