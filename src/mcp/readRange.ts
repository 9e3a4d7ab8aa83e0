// The `read` tool's file access: a path from an agent is resolved inside the served folder and nowhere else.
// Relative paths only resolve under the folder, `..` that leaves it is refused, and so is a symlink (of the file or of
// any folder on the way) whose target lies outside; the index store, non-document files and files the index leaves out
// (its include/exclude globs and ignore files: the indexer's own path filter) are refused too.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { READ_KINDS } from '../rag/formats';
import { formatOf } from '../rag/ingest/formats';
import { documentOrder } from '../rag/store/lanceStore';
import type { DocFormat, Passage } from '../rag/types';

/** A refused or impossible read, with a message for the agent. */
export class ReadError extends Error {}

/** Most lines one call returns; longer ranges are cut and say where to read on. */
export const MAX_READ_LINES = 1000;
/**
 * Most characters of text one call returns (about 100 kB): a reply stays far below the clients' message limits however
 * large the file or long its lines. A longer range is cut at a line end; a single longer line is cut inside.
 */
export const MAX_READ_CHARS = 100_000;

export interface ResolvedPath {
  /** Relative path with '/' separators, as the index stores it. */
  rel: string;
  abs: string;
  format: DocFormat;
}

function inside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

/**
 * Resolves `requested` (relative to the folder, or absolute inside it) to an existing document file in the folder that
 * the index selects (`selected`: the index's own path filter — include/exclude globs, ignore files, the store).
 */
export function resolveInFolder(folder: string, storeDir: string, requested: string, selected: (rel: string) => boolean): ResolvedPath {
  if (requested.includes('\0')) throw new ReadError('The path contains a NUL character.');
  const root = path.resolve(folder);
  const abs = path.resolve(root, requested);
  if (!inside(root, abs) || abs === root) throw new ReadError(`Refused: "${requested}" is outside the served folder. Give a path relative to the folder, as returned by search.`);
  if (inside(path.resolve(storeDir), abs)) throw new ReadError(`Refused: "${requested}" is inside the index store, not a document.`);
  let real: string;
  let realRoot: string;
  try {
    realRoot = fs.realpathSync(root);
    real = fs.realpathSync(abs);
  } catch {
    throw new ReadError(`No such file in the folder: "${requested}".`);
  }
  if (!inside(realRoot, real)) throw new ReadError(`Refused: "${requested}" is a link to a place outside the served folder.`);
  const st = fs.statSync(real);
  if (!st.isFile()) throw new ReadError(`"${requested}" is not a file.`);
  const format = formatOf(abs);
  if (!format) throw new ReadError(`Refused: "${requested}" is not a document type Docs RAG reads (${READ_KINDS}).`);
  const rel = path.relative(root, abs).split(path.sep).join('/');
  // Only what the index would read: a git-ignored file, .git/ or node_modules/ is no document of this folder.
  if (!selected(rel)) throw new ReadError(`Refused: "${requested}" is not one of the folder's indexed documents (left out by the index's include/exclude settings or an ignore file).`);
  return { rel, abs: real, format };
}

export interface LineRead {
  startLine: number;
  endLine: number;
  /** Lines in the file; known when the read reached its end. */
  totalLines?: number;
  text: string;
  /** The range was cut (lines or characters): `nextStartLine` is where to read on. */
  truncated: boolean;
  nextStartLine?: number;
  /** The last returned line was longer than a reply and is cut inside. */
  lineCut?: boolean;
}

/**
 * Lines startLine..endLine (1-based, inclusive) of a text file as stored, clamped to the file, to MAX_READ_LINES and to
 * MAX_READ_CHARS. Streams the file: memory stays bounded by one reply whatever its size, lines before the range are
 * only counted, and reading stops as soon as the reply is full.
 */
export async function readLines(abs: string, rel: string, startLine = 1, endLine?: number): Promise<LineRead> {
  const last = endLine ?? Number.POSITIVE_INFINITY;
  const decoder = new StringDecoder('utf8');
  const lines: string[] = [];
  let lineNo = 1; // the line the next character belongs to
  let current = ''; // that line's text so far, kept only inside the range
  let chars = 0;
  let newlines = 0;
  let tail = false; // characters after the last newline
  let stopped = false; // the reply is full or the range is done: the rest of the file is not read
  let lineCut = false;
  const inRange = () => lineNo >= startLine && lineNo <= last;
  const finishLine = () => {
    lines.push(current.endsWith('\r') ? current.slice(0, -1) : current);
    chars += current.length + 1;
  };
  const stream = fs.createReadStream(abs, { highWaterMark: 64 * 1024 });
  try {
    outer: for await (const chunk of stream) {
      const text = decoder.write(chunk as Buffer);
      let pos = 0;
      for (;;) {
        const nl = text.indexOf('\n', pos);
        const end = nl < 0 ? text.length : nl;
        if (inRange() && end > pos) {
          const room = MAX_READ_CHARS - chars - current.length;
          if (end - pos > room) {
            // The line does not fit: after other lines the next call starts with it; alone it is cut inside.
            if (lines.length === 0) {
              current += text.slice(pos, pos + Math.max(0, room));
              finishLine();
              lineNo++;
              lineCut = true;
            }
            stopped = true;
            break outer;
          }
          current += text.slice(pos, end);
        }
        if (nl < 0) {
          if (end > pos) tail = true;
          break;
        }
        newlines++;
        tail = false;
        if (inRange()) {
          finishLine();
          if (lineNo === last || lines.length >= MAX_READ_LINES || chars >= MAX_READ_CHARS) {
            lineNo++;
            stopped = true;
            break outer;
          }
        }
        lineNo++;
        current = '';
        pos = nl + 1;
      }
    }
  } finally {
    stream.destroy();
  }
  let total: number | undefined;
  if (!stopped) {
    // End of file: a last line without a newline counts, and an empty file has one empty line.
    if (decoder.end().length > 0) tail = true;
    total = newlines + (tail || newlines === 0 ? 1 : 0);
    if (lineNo <= total && inRange()) finishLine();
    if (startLine > total) throw new ReadError(`${rel} has ${total} lines; startLine ${startLine} is past its end.`);
  }
  const endRead = startLine + lines.length - 1;
  const more = total === undefined ? endRead < last : Math.min(last, total) > endRead;
  return {
    startLine,
    endLine: endRead,
    ...(total !== undefined ? { totalLines: total } : {}),
    text: lines.join('\n'),
    truncated: more,
    ...(more ? { nextStartLine: endRead + 1 } : {}),
    ...(lineCut ? { lineCut } : {}),
  };
}

/**
 * Text of a PDF page (or of a whole file without pages or lines) from the passages in the index: the L2 passages of the
 * file in document order (they do not overlap), restricted to the page.
 */
export function extractedText(rel: string, passages: Passage[], page?: number): { text: string; pages?: number; cut?: boolean } {
  const leaves = documentOrder(passages).filter((p) => p.level === 2);
  if (leaves.length === 0) throw new ReadError(`${rel} has no passages in the index (not indexed yet, or no text). Check the status tool.`);
  const lastPage = leaves.reduce((m, p) => Math.max(m, p.loc.pageEnd ?? p.loc.page ?? 0), 0);
  let picked = leaves;
  if (page !== undefined) {
    if (lastPage === 0) throw new ReadError(`${rel} has no pages; call read with only "path".`);
    if (page > lastPage) throw new ReadError(`${rel} has ${lastPage} pages with text; page ${page} is past its end.`);
    picked = leaves.filter((p) => p.loc.page !== undefined && p.loc.page <= page && page <= (p.loc.pageEnd ?? p.loc.page));
    if (picked.length === 0) throw new ReadError(`Page ${page} of ${rel} has no extracted text.`);
  }
  // Bounded like a line read: passages are joined until the reply is full.
  let text = '';
  let cut = false;
  for (const p of picked) {
    const piece = (text ? '\n\n' : '') + p.text.trim();
    if (text.length + piece.length > MAX_READ_CHARS) {
      text += piece.slice(0, MAX_READ_CHARS - text.length);
      cut = true;
      break;
    }
    text += piece;
  }
  return { text, ...(lastPage > 0 ? { pages: lastPage } : {}), ...(cut ? { cut } : {}) };
}
