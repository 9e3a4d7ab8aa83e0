// The evaluation data beside the repository (`../shared`, or DOCS_RAG_SHARED): real documents, the evaluation workspace
// and BEIR sets. Suites that need it call `needsShared(...)` in their describe block: without the data they fail in one
// line that says what is missing, instead of a stack trace from deep inside a test.
import * as fs from 'node:fs';
import * as path from 'node:path';

export const SHARED = process.env.DOCS_RAG_SHARED ? path.resolve(process.env.DOCS_RAG_SHARED) : path.resolve(__dirname, '../../../shared');
export const EVAL = path.join(SHARED, 'eval');
export const REALDOCS = path.join(EVAL, 'realdocs');
export const WORKSPACE = path.join(EVAL, 'workspace');

/** The one-line message for the first of these folders (relative to SHARED) that does not exist, or undefined. */
export function sharedMissing(...rels: string[]): string | undefined {
  const missing = rels.find((rel) => !fs.existsSync(path.join(SHARED, rel)));
  if (missing === undefined) return undefined;
  const shown = process.env.DOCS_RAG_SHARED ? path.join(SHARED, missing) : `../shared/${missing}`;
  return `needs ${shown} (the evaluation data beside the repository; set DOCS_RAG_SHARED to the folder that holds eval/)`;
}

/** Throws an error that prints as one line (no stack) when the shared data is missing. */
export function requireShared(...rels: string[]): void {
  const message = sharedMissing(...rels);
  if (message === undefined) return;
  const err = new Error(message);
  err.name = 'SharedDataMissing';
  err.stack = `${err.name}: ${message}`;
  throw err;
}

/** In a describe block: its tests run only after checking the shared folders, and fail in one line without them. */
export function needsShared(...rels: string[]): void {
  before(function () {
    requireShared(...rels);
  });
}
