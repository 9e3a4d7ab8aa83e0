// Shared helpers for the loader tests (not a spec file: no `.test.ts`).
import * as path from 'path';
import type { ParsedDocument } from '../../src/rag/types';

export const SHARED = process.env.DOCS_RAG_SHARED ? path.resolve(process.env.DOCS_RAG_SHARED) : path.resolve(__dirname, '../../../shared');
export const REALDOCS = path.join(SHARED, 'eval/realdocs');
export const WORKSPACE = path.join(SHARED, 'eval/workspace');

/** All block texts, whitespace collapsed and NFC-normalised (how MANIFEST phrases are compared). */
export function flatText(doc: ParsedDocument): string {
  return doc.blocks
    .map((b) => b.text)
    .join(' ')
    .normalize('NFC')
    .replace(/\s+/g, ' ');
}

/** Words (letters/digits) of a text. */
export function wordsOf(text: string): string[] {
  return text.normalize('NFC').match(/[\p{L}\p{N}]+/gu) ?? [];
}

export function occurrences(haystack: string, needle: string): number {
  let n = 0;
  for (let i = haystack.indexOf(needle); i >= 0; i = haystack.indexOf(needle, i + needle.length)) n++;
  return n;
}
