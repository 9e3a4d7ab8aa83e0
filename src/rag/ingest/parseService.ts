// The message loop of a parser worker: reads the requested file, parses it with the in-process loaders and answers the
// pool. An entry with a step of its own (the indexer's prepareWorker.ts) passes `then`, which receives the file's bytes
// and a parse function, and answers requests that carry `then` with whatever it returns.
import { readFileSync } from 'fs';
import type { MessagePort, TransferListItem } from 'worker_threads';
import { LoadError, type ParsedDocument } from '../types';
import { DEFAULT_OCR } from './ocr';
import { parseBytes } from './parseBytes';
import type { ParseReply, ParseRequest } from './workerProtocol';

export interface FollowUp {
  /** `parse()` parses `bytes` as the request says; throws LoadError. Returns the reply's result and what to transfer. */
  (spec: unknown, bytes: Buffer, parse: () => Promise<ParsedDocument>): Promise<{ result: unknown; transfer?: TransferListItem[] }>;
}

const NO_BYTES = Buffer.alloc(0);

export function serveParses(port: MessagePort, then?: FollowUp): void {
  port.on('message', (req: ParseRequest) => {
    void handle(port, req, then).then(({ reply, transfer }) => port.postMessage(reply, transfer));
  });
}

async function handle(port: MessagePort, req: ParseRequest, then?: FollowUp): Promise<{ reply: ParseReply; transfer?: TransferListItem[] }> {
  try {
    // Read synchronously: the worker has nothing else to do meanwhile, and for small files the four thread-pool round
    // trips of an async read (open, stat, read, close) cost more than the read itself.
    const { absPath, format } = req;
    if (absPath === undefined || format === undefined) {
      if (!then || req.then === undefined) throw new Error('a request without a file needs a follow-up step');
      const { result, transfer } = await then(req.then, NO_BYTES, () => Promise.reject(new Error('this request has no file to parse')));
      return { reply: { id: req.id, ok: true, result }, transfer };
    }
    const bytes = readFileSync(absPath);
    const onPage = () => port.postMessage({ id: req.id, deadline: 'page' } satisfies ParseReply);
    const parse = () => parseBytes(bytes, format, absPath, { ...(req.ocr ?? DEFAULT_OCR), onPage });
    if (req.then !== undefined) {
      if (!then) throw new Error('this parser worker has no follow-up step');
      const { result, transfer } = await then(req.then, bytes, parse);
      return { reply: { id: req.id, ok: true, result }, transfer };
    }
    return { reply: { id: req.id, ok: true, doc: await parse() } };
  } catch (err) {
    if (err instanceof LoadError) return { reply: { id: req.id, ok: false, kind: err.kind, message: err.message } };
    const e = err as NodeJS.ErrnoException;
    if (e && e.code && typeof e.code === 'string' && e.syscall) {
      return { reply: { id: req.id, ok: false, kind: 'corrupt', message: `cannot read the file (${e.code}); check that it exists and is readable` } };
    }
    return { reply: { id: req.id, ok: false, kind: null, message: e?.message ?? String(err) } };
  }
}
