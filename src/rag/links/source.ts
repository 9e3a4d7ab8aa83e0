// The source text the link extraction reads besides the passages: Markdown / HTML / text files as stored (links,
// backticks and emphasis live only there; passages cite its lines). Other formats: none.
import { locationKind } from '../formats';
import type { DocFormat } from '../types';

export function linkSource(bytes: Buffer, format: DocFormat): string | undefined {
  if (locationKind(format) !== 'lines') return undefined;
  return bytes.toString('utf8');
}
