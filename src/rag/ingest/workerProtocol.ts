// Messages between ParserPool (main thread) and parseWorker (worker thread).
import type { DocFormat, LoadFailureKind, ParsedDocument } from '../types';

export interface ParseRequest {
  id: number;
  absPath: string;
  format: DocFormat;
}

export type ParseReply =
  | { id: number; ok: true; doc: ParsedDocument }
  | { id: number; ok: false; kind: LoadFailureKind | null; message: string };
