// Messages between ParserPool (main thread) and parseWorker (worker thread).
import type { DocFormat, LoadFailureKind, ParsedDocument } from '../types';
import type { OcrOptions } from './ocr';

export interface ParseRequest {
  id: number;
  absPath: string;
  format: DocFormat;
  /** OCR settings for scanned PDF pages and images; absent = defaults without a cache. */
  ocr?: OcrOptions;
}

/**
 * Replies. `deadline: 'page'` is not an answer: the worker is about to recognise a page by OCR, and the pool restarts
 * the job's deadline (the hard deadline applies per recognised page; ocr.maxPages caps the pages of one file).
 */
export type ParseReply =
  | { id: number; deadline: 'page' }
  | { id: number; ok: true; doc: ParsedDocument }
  | { id: number; ok: false; kind: LoadFailureKind | null; message: string };
