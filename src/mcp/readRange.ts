// The `read` tool's file access: a path from an agent is resolved inside the served folder and nowhere else.
// Relative paths only resolve under the folder, `..` that leaves it is refused, and so is a symlink (of the file or of
// any folder on the way) whose target lies outside; the index store and non-document files are refused too.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { READ_KINDS } from '../rag/formats';
import { formatOf } from '../rag/ingest/formats';
import { documentOrder } from '../rag/store/lanceStore';
import type { DocFormat, Passage } from '../rag/types';

/** A refused or impossible read, with a message for the agent. */
export class ReadError extends Error {}

/** Longest range one call returns (lines); longer ranges are cut and say so. */
export const MAX_READ_LINES = 1000;

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

/** Resolves `requested` (relative to the folder, or absolute inside it) to an existing document file in the folder. */
export function resolveInFolder(folder: string, storeDir: string, requested: string): ResolvedPath {
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
  return { rel: path.relative(root, abs).split(path.sep).join('/'), abs: real, format };
}

export interface LineRead {
  startLine: number;
  endLine: number;
  totalLines: number;
  text: string;
  truncated: boolean;
}

/** Lines startLine..endLine (1-based, inclusive) of a text file as stored; the range is clamped to the file and to MAX_READ_LINES. */
export function readLines(abs: string, rel: string, startLine = 1, endLine?: number): LineRead {
  const lines = fs.readFileSync(abs, 'utf8').split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const total = lines.length;
  if (startLine > total) throw new ReadError(`${rel} has ${total} lines; startLine ${startLine} is past its end.`);
  let end = Math.min(endLine ?? total, total);
  let truncated = false;
  if (end - startLine + 1 > MAX_READ_LINES) {
    end = startLine + MAX_READ_LINES - 1;
    truncated = true;
  }
  const text = lines
    .slice(startLine - 1, end)
    .map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))
    .join('\n');
  return { startLine, endLine: end, totalLines: total, text, truncated };
}

/**
 * Text of a PDF page (or of a whole DOCX/PPTX/XLSX without pages) from the passages in the index: the L2 passages of the
 * file in document order (they do not overlap), restricted to the page.
 */
export function extractedText(rel: string, passages: Passage[], page?: number): { text: string; pages?: number } {
  const leaves = documentOrder(passages).filter((p) => p.level === 2);
  if (leaves.length === 0) throw new ReadError(`${rel} has no passages in the index (not indexed yet, or no text). Check the status tool.`);
  const lastPage = Math.max(0, ...leaves.map((p) => p.loc.pageEnd ?? p.loc.page ?? 0));
  let picked = leaves;
  if (page !== undefined) {
    if (lastPage === 0) throw new ReadError(`${rel} has no pages; call read with only "path".`);
    if (page > lastPage) throw new ReadError(`${rel} has ${lastPage} pages with text; page ${page} is past its end.`);
    picked = leaves.filter((p) => p.loc.page !== undefined && p.loc.page <= page && page <= (p.loc.pageEnd ?? p.loc.page));
    if (picked.length === 0) throw new ReadError(`Page ${page} of ${rel} has no extracted text.`);
  }
  return { text: picked.map((p) => p.text.trim()).join('\n\n'), ...(lastPage > 0 ? { pages: lastPage } : {}) };
}
