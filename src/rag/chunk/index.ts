// Structural chunker: document → sections (by heading) → passages (whole sentences, sized per format).
//
// Output, in document order: one L0 passage for the document (title + extractive summary + outline), then for
// each section its L1 passage (heading + start of text) followed by its L2 passages. L2 passages:
//  - are packed from whole blocks; a block longer than the size is split between sentences (only an over-long
//    sentence is cut, at a word boundary);
//  - never cross a section; tables are passages of their own (large ones split by row groups, header repeated);
//  - fragments under `minSize` merge with a neighbour of the same section (so a passage may reach size + minSize);
//  - keep the previous text passage's tail (about `overlap` characters, whole sentences when possible) in
//    `overlap`, as context only: it is not part of `text`/`indexText` (none after a table part);
//  - carry the union of their blocks' locations, so the cited range holds the text.
// With `config.strategy === 'semantic'` the L2 grouping inside a section follows chunk/semantic.ts instead, with the
// text embedding the caller passes in `options.embedText` (chunk/ does not import embed/; the indexer passes
// embedBuiltin); everything else (sections, L0/L1, ids, locations, overlap) is the same.
import type { ChunkConfig, ChunkSize } from '../config';
import type { Block, DocFormat, IndexedPassage, Lang, Level, ParsedDocument, SourceLocation } from '../types';
import { PassageIdFactory } from './ids';
import { guessLanguage } from '../text/language';
import { needsQuote, quoteOf, unionLocations } from './locations';
import { PASSAGE_SEPARATOR, packSection } from './pack';
import { blockPieces } from './pieces';
import { semanticDrafts, type TextEmbedding } from './semantic';
import { documentTitle, groupSections, type Section } from './sections';
import { splitSentences } from '../text/sentences';
import { documentSummary, leadSentences, sectionSummary } from './summary';

export { detectLanguage, guessLanguage } from '../text/language';
export { splitSentences } from '../text/sentences';
export type { TextEmbedding } from './semantic';

export interface ChunkOptions {
  /** Sentence-window embedding for the semantic strategy's breakpoints; required when `config.strategy === 'semantic'`. */
  embedText?: TextEmbedding;
}

/** Tail of the previous passage: whole trailing sentences within `max` characters, else its last words. */
function overlapTail(text: string, max: number, lang: Lang): string {
  if (max <= 0 || text.length === 0) return '';
  // Only the end matters: a partial first sentence of the window starts before text.length - max and is never taken.
  const offset = Math.max(0, text.length - max - 400);
  const sentences = splitSentences(text.slice(offset), lang).map((s) => ({ ...s, start: s.start + offset }));
  let start = text.length;
  for (let i = sentences.length - 1; i >= 0; i--) {
    if (text.length - sentences[i].start > max) break;
    start = sentences[i].start;
  }
  if (start < text.length) return text.slice(start).trim();
  const raw = text.slice(text.length - max);
  const sp = raw.indexOf(' ');
  return (sp >= 0 && sp < max / 2 ? raw.slice(sp + 1) : raw).trim();
}

function sizeFor(format: DocFormat, config: ChunkConfig): ChunkSize {
  return config.sizes[format] ?? { size: 1000, overlap: 150 };
}

function indexTextOf(headingPath: string[], text: string): string {
  return headingPath.length > 0 ? `${headingPath.join(' > ')}\n${text}` : text;
}

/** L0 document, L1 sections, L2 passages, each with a stable id, chunk path, parent and order. */
export function chunkDocument(
  doc: ParsedDocument,
  file: { path: string; fileHash: string },
  config: ChunkConfig,
  options: ChunkOptions = {},
): IndexedPassage[] {
  const { embedText } = options;
  if (config.strategy === 'semantic' && !embedText) throw new Error("chunkDocument: the 'semantic' strategy needs options.embedText");
  // The walk's relative path as it is ('/' separators on every OS; on POSIX a '\' is part of a name): the passages
  // carry exactly the path their file record has, which is what removing the file deletes by.
  const path = file.path;
  const title = documentTitle(doc, path);
  const size = sizeFor(doc.format, config);
  let sections = groupSections(doc, title);
  if (sections.length === 0) {
    // Only headings (e.g. a slide deck of titles): index the headings as text rather than nothing.
    const asText = doc.blocks.filter((b) => b.text.trim() !== '').map((b): Block => ({ ...b, kind: 'paragraph', level: undefined }));
    sections = asText.length > 0 ? [{ headingPath: [title], blocks: asText }] : [];
  }
  const contentBlocks = sections.flatMap((s) => s.blocks);
  if (contentBlocks.length === 0) return [];

  const sample = contentBlocks
    .map((b) => b.text)
    .join('\n')
    .slice(0, 4000);
  const docLang = guessLanguage(`${title}\n${sample}`).lang;
  const langOf = (text: string): Lang => {
    const g = guessLanguage(text);
    return g.confident ? g.lang : docLang;
  };
  const ids = new PassageIdFactory(path);
  const out: IndexedPassage[] = [];
  const allLocs = doc.blocks.map((b) => b.loc);
  const quoted = needsQuote(doc.format, allLocs);

  const make = (
    level: Level,
    chunkPath: string,
    parentId: string | null,
    order: number,
    headingPath: string[],
    text: string,
    overlap: string,
    loc: SourceLocation,
    indexText: string,
  ): IndexedPassage => ({
    id: ids.next(level, headingPath, text),
    path,
    fileHash: file.fileHash,
    format: doc.format,
    level,
    chunkPath,
    parentId,
    order,
    headingPath,
    title,
    text,
    overlap,
    lang: langOf(text),
    loc,
    indexText,
  });

  // L0: the document.
  const headingTexts = sections.filter((s) => s.heading).map((s) => s.headingPath[s.headingPath.length - 1]);
  const l0Text = documentSummary(title, leadSentences(contentBlocks, 900, docLang), headingTexts);
  const l0Loc = unionLocations(allLocs);
  if (l0Loc.startLine !== undefined) l0Loc.startLine = 1; // the title may come from front matter
  if (quoted) l0Loc.quote = contentBlocks[0].loc.quote || quoteOf(contentBlocks[0].text);
  const l0 = make(0, 'doc', null, 0, [title], l0Text, '', l0Loc, l0Text);
  l0.lang = docLang;
  out.push(l0);

  sections.forEach((section: Section, si: number) => {
    const sectionPath = `doc/section-${si}`;
    const headingText = section.heading ? section.headingPath[section.headingPath.length - 1] : undefined;
    const l1Text = sectionSummary(headingText, section.blocks, docLang);
    const l1Locs = [...(section.heading ? [section.heading.loc] : []), ...section.blocks.map((b) => b.loc)];
    const l1Loc = unionLocations(l1Locs);
    if (quoted) {
      const first = section.heading ?? section.blocks[0];
      l1Loc.quote = first.loc.quote || quoteOf(first.text);
    }
    const l1 = make(1, sectionPath, l0.id, si, section.headingPath, l1Text, '', l1Loc, indexTextOf(section.heading ? section.headingPath.slice(0, -1) : section.headingPath, l1Text));
    out.push(l1);

    const drafts =
      config.strategy === 'semantic'
        ? semanticDrafts(section.blocks, size, config.minSize, docLang, embedText!)
        : packSection(
            section.blocks.flatMap((b: Block) => blockPieces(b, size.size, docLang)),
            size,
            config.minSize,
          );
    let previous: { text: string; table: boolean } | undefined;
    drafts.forEach((d, ci) => {
      const text = d.pieces.map((p) => p.text).join(PASSAGE_SEPARATOR);
      const loc = unionLocations(d.pieces.map((p) => p.loc));
      if (quoted) loc.quote = quoteOf(d.pieces[0].quoteSource);
      // A table's first part gets the text before it as context ("...into the following directories:").
      const overlap = previous && !previous.table ? overlapTail(previous.text, size.overlap, docLang) : '';
      out.push(make(2, `${sectionPath}/chunk-${ci}`, l1.id, ci, section.headingPath, text, overlap, loc, indexTextOf(section.headingPath, text)));
      previous = { text, table: d.table };
    });
  });
  return out;
}
