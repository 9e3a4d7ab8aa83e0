// Locations for formats without lines or pages: character offsets into "the extracted text" plus a short verbatim quote.
import type { Block } from '../types';
import { quoteOf } from './normalize';

/**
 * For pptx/xlsx the extracted text is defined as the block texts joined by a blank line ("\n\n"); this assigns each
 * block its [startOffset, endOffset) in that text and a quote.
 */
export function assignJoinedOffsets(blocks: Block[]): string {
  let offset = 0;
  const parts: string[] = [];
  for (const block of blocks) {
    if (parts.length > 0) offset += 2;
    block.loc = { ...block.loc, startOffset: offset, endOffset: offset + block.text.length, quote: quoteOf(block.text) };
    parts.push(block.text);
    offset += block.text.length;
  }
  return parts.join('\n\n');
}
