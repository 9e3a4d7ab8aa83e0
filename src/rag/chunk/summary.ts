// Extractive summaries for the upper levels of the hierarchy:
// L0 (document): title, the first sentences of the document and an outline of its section headings (≤ ~1500 chars);
// L1 (section): the section heading and the start of its text (≤ ~800 chars).
// Only sentences copied from the document: nothing is generated.
import type { Block, Lang } from '../types';
import { splitSentences } from '../text/sentences';

export const DOC_SUMMARY_MAX = 1500;
export const SECTION_SUMMARY_MAX = 800;

/** Whole leading sentences of the blocks, up to `max` characters (at least one sentence, cut if it is longer). */
export function leadSentences(blocks: Block[], max: number, lang: Lang): string {
  const out: string[] = [];
  let length = 0;
  for (const b of blocks) {
    if (b.kind === 'code') continue;
    const text = b.kind === 'table' ? b.text.split('\n').slice(0, 3).join('\n') : b.text;
    for (const s of splitSentences(text, lang)) {
      const add = s.text.length + (out.length > 0 ? 1 : 0);
      if (length + add > max) {
        if (out.length === 0) out.push(cutAtWord(s.text, max));
        return out.join(' ');
      }
      out.push(s.text);
      length += add;
    }
  }
  return out.join(' ');
}

export function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const sp = cut.lastIndexOf(' ');
  return (sp > max / 2 ? cut.slice(0, sp) : cut).trimEnd();
}

/** L0 text: title, lead, outline. */
export function documentSummary(title: string, lead: string, headings: string[]): string {
  let text = title;
  const budget = DOC_SUMMARY_MAX;
  const outlineReserve = headings.length > 0 ? Math.min(500, budget / 3) : 0;
  const leadPart = cutAtWord(lead, Math.max(0, budget - title.length - outlineReserve - 2));
  if (leadPart) text += `\n${leadPart}`;
  if (headings.length > 0) {
    let outline = '';
    for (const h of headings) {
      const add = (outline ? '; ' : '') + h;
      if (text.length + 1 + outline.length + add.length > budget) break;
      outline += add;
    }
    if (outline) text += `\n${outline}`;
  }
  return text;
}

/** L1 text: heading and the start of the section's text. */
export function sectionSummary(heading: string | undefined, blocks: Block[], lang: Lang): string {
  const head = heading ? `${heading}\n` : '';
  return head + leadSentences(blocks, SECTION_SUMMARY_MAX - head.length, lang);
}
