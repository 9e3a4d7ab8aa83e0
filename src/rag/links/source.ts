// The source text the link extraction reads besides the passages: Markdown / HTML / text files as stored (links,
// backticks and emphasis live only there; passages cite its lines). Other formats: none.
import { promises as fsp } from 'node:fs';
import type { DocFormat } from '../types';

export async function readLinkSource(abs: string, format: DocFormat): Promise<string | undefined> {
  if (format !== 'md' && format !== 'html' && format !== 'txt') return undefined;
  try {
    return await fsp.readFile(abs, 'utf8');
  } catch {
    return undefined; // vanished since parsing: the links that need the source are left out, the file still indexes
  }
}
