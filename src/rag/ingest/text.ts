// Plain-text loader: paragraphs are runs of non-blank lines; each knows its 1-based line range, and its text keeps
// one line per source line.
import type { Block, ParsedDocument } from '../types';
import { decodeText } from './decode';
import { readFrontMatter } from './frontMatter';
import { isBlank, splitLines } from './lines';
import { collapseWithinLines, hasWords, normalizeUnicode } from './normalize';

export function parsePlainText(bytes: Uint8Array): ParsedDocument {
  const decoded = decodeText(bytes);
  const lines = splitLines(normalizeUnicode(decoded.text.replace(/^\uFEFF/, '')));
  const fm = readFrontMatter(lines);
  const blocks: Block[] = [];
  let start = -1;
  for (let i = fm.lineCount; i <= lines.length; i++) {
    const blank = i === lines.length || isBlank(lines[i]);
    if (!blank && start < 0) start = i;
    if (blank && start >= 0) {
      const text = collapseWithinLines(lines.slice(start, i).join('\n'));
      if (hasWords(text)) blocks.push({ kind: 'paragraph', text, loc: { startLine: start + 1, endLine: i } });
      start = -1;
    }
  }
  const title = fm.title ?? (blocks[0] && blocks[0].text.length <= 120 ? blocks[0].text : undefined);
  return { format: 'txt', title, blocks, metadata: { ...fm.metadata, encoding: decoded.encoding }, warnings: [...decoded.warnings, ...fm.warnings] };
}
