// Groups a document's blocks into sections by heading. A section is the content under one heading (up to the
// next heading of any level); its heading path runs from the document title down to that heading.
import type { Block, ParsedDocument } from '../types';

export interface Section {
  /** Document title first (unless the top heading already says it), then the enclosing headings. */
  headingPath: string[];
  /** The heading block that opens the section (none for text before the first heading). */
  heading?: Block;
  /** Content blocks (no headings). */
  blocks: Block[];
}

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();

/** Title of the document: metadata title, else the first heading, else the file name without extension. */
export function documentTitle(doc: ParsedDocument, filePath: string): string {
  const t = doc.title?.trim();
  if (t) return t;
  const h = doc.blocks.find((b) => b.kind === 'heading' && b.text.trim() !== '');
  if (h) return h.text.trim();
  const base = filePath.split('/').pop() ?? filePath;
  return base.replace(/\.[^.]+$/, '');
}

/** Whether a heading repeats the title (then the title is not listed separately in heading paths). */
function repeatsTitle(heading: string, title: string): boolean {
  const h = norm(heading);
  const t = norm(title);
  return h === t || h.startsWith(t) || t.startsWith(h);
}

/** Splits blocks into sections; sections without content blocks are dropped (their heading lives on in paths). */
export function groupSections(doc: ParsedDocument, title: string): Section[] {
  const sections: Section[] = [];
  const stack: { level: number; text: string }[] = [];
  const firstHeading = doc.blocks.find((b) => b.kind === 'heading' && b.text.trim() !== '');
  const titleIsHeading = firstHeading !== undefined && repeatsTitle(firstHeading.text, title);
  const pathOf = () => {
    const heads = stack.map((s) => s.text);
    return titleIsHeading && heads.length > 0 && repeatsTitle(heads[0], title) ? heads : [title, ...heads];
  };
  let current: Section = { headingPath: [title], blocks: [] };
  for (const block of doc.blocks) {
    if (block.kind === 'heading') {
      const text = block.text.replace(/\s+/g, ' ').trim();
      if (text === '') continue;
      if (current.blocks.length > 0) sections.push(current);
      const level = block.level ?? 1;
      while (stack.length > 0 && stack[stack.length - 1].level >= level) stack.pop();
      stack.push({ level, text });
      current = { headingPath: pathOf(), heading: block, blocks: [] };
      continue;
    }
    if (block.text.trim() === '' && !(block.rows && block.rows.length > 0)) continue;
    current.blocks.push(block);
  }
  if (current.blocks.length > 0) sections.push(current);
  return sections;
}
