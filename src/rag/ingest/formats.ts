// File extension → document format, by the format table (../formats.ts).
import * as path from 'path';
import { DOC_FORMATS, FORMATS, type DocFormat } from '../formats';

const BY_EXTENSION = new Map<string, DocFormat>(DOC_FORMATS.flatMap((f) => FORMATS[f].extensions.map((e) => [`.${e}`, f] as const)));

/** The format of a file by its extension (case-insensitive), or null when the loaders do not handle it. */
export function formatOf(filePath: string): DocFormat | null {
  return BY_EXTENSION.get(path.extname(filePath).toLowerCase()) ?? null;
}
