// Worker-thread entry: reads a file and parses it with the in-process loaders. Bundled to dist/parseWorker.js.
// The pool kills this thread when a parse passes its deadline, so nothing here needs its own timeout.
import { readFile } from 'fs/promises';
import { parentPort } from 'worker_threads';
import { LoadError } from '../types';
import { DEFAULT_OCR } from './ocr';
import { parseBytes } from './parseBytes';
import type { ParseReply, ParseRequest } from './workerProtocol';

const port = parentPort;
if (port) {
  port.on('message', (req: ParseRequest) => {
    void handle(req).then((reply) => port.postMessage(reply));
  });
}

async function handle(req: ParseRequest): Promise<ParseReply> {
  try {
    const bytes = await readFile(req.absPath);
    const onPage = () => port?.postMessage({ id: req.id, deadline: 'page' } satisfies ParseReply);
    const doc = await parseBytes(bytes, req.format, req.absPath, { ...(req.ocr ?? DEFAULT_OCR), onPage });
    return { id: req.id, ok: true, doc };
  } catch (err) {
    if (err instanceof LoadError) return { id: req.id, ok: false, kind: err.kind, message: err.message };
    const e = err as NodeJS.ErrnoException;
    if (e && e.code && typeof e.code === 'string' && e.syscall) {
      return { id: req.id, ok: false, kind: 'corrupt', message: `cannot read the file (${e.code}); check that it exists and is readable` };
    }
    return { id: req.id, ok: false, kind: null, message: e?.message ?? String(err) };
  }
}
