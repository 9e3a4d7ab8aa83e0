// Shared helpers for the loader tests (not a spec file: no `.test.ts`).
import * as path from 'path';
import type { ParsedDocument } from '../../src/rag/types';

export { REALDOCS, SHARED, WORKSPACE } from '../helpers/shared';

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
