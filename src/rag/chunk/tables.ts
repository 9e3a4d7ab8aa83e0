// Tables are passages of their own. A table larger than the passage size is split into row groups, each
// repeating the header row so every group can be read (and matched) on its own.
import type { Block } from '../types';

export interface TablePart {
  text: string;
  /**
   * Text to quote from: the part's first data row when the block text is itself verbatim in the source (its
   * loader quote is the start of its text, e.g. XLSX rows joined by " | "), else the row's longest cell.
   */
  quoteSource: string;
}

const rowText = (row: string[]) => row.map((c) => c.replace(/\s+/g, ' ').trim()).join(' | ');

function longestCell(row: string[] | undefined): string {
  if (!row) return '';
  return row.reduce((best, c) => (c.trim().length > best.length ? c.trim() : best), '');
}

/** Splits a table block into parts of at most `size` characters (a single over-long row stays whole). */
export function splitTable(block: Block, size: number): TablePart[] {
  const rows = block.rows && block.rows.length > 0 ? block.rows : undefined;
  const verbatim = block.loc.quote !== undefined && block.loc.quote !== '' && block.text.replace(/\s+/g, ' ').startsWith(block.loc.quote);
  const quoteOfRow = (row: string[] | undefined, render: (r: string[]) => string): string => {
    if (!row) return '';
    const line = render(row);
    return verbatim && block.text.includes(line) ? line : longestCell(row);
  };
  if (block.text.length <= size || !rows) {
    if (block.text.length <= size || !block.text.includes('\n')) {
      return [{ text: block.text, quoteSource: rows ? quoteOfRow(rows[block.hasHeader ? 1 : 0] ?? rows[0], rowText) : block.text }];
    }
    // No structured rows: split the text by lines, repeating the first line when it is a header.
    const lines = block.text.split('\n');
    return groupRows(lines.map((l) => [l]), block.hasHeader === true, size, (r) => r[0], quoteOfRow);
  }
  return groupRows(rows, block.hasHeader === true, size, rowText, quoteOfRow);
}

function groupRows(
  rows: string[][],
  hasHeader: boolean,
  size: number,
  render: (r: string[]) => string,
  quoteOfRow: (row: string[] | undefined, render: (r: string[]) => string) => string,
): TablePart[] {
  const header = hasHeader ? rows[0] : undefined;
  const body = hasHeader ? rows.slice(1) : rows;
  const headerText = header ? render(header) : '';
  const parts: TablePart[] = [];
  let current: string[][] = [];
  let length = headerText.length;
  const flush = () => {
    if (current.length === 0) return;
    const lines = current.map(render);
    parts.push({ text: (header ? [headerText, ...lines] : lines).join('\n'), quoteSource: quoteOfRow(current[0], render) });
    current = [];
    length = headerText.length;
  };
  for (const row of body) {
    const len = render(row).length + 1;
    if (current.length > 0 && length + len > size) flush();
    current.push(row);
    length += len;
  }
  flush();
  if (parts.length === 0 && header) parts.push({ text: headerText, quoteSource: quoteOfRow(header, render) });
  return parts;
}
