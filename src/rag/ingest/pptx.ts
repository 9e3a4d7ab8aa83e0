// PPTX loader: slide text (shapes, groups, tables) and speaker notes in slide order. Only slide and notes parts are read,
// so master/layout placeholder prompts ("Click to edit Master title style") are never indexed.
import type { Block, ParsedDocument } from '../types';
import { assignJoinedOffsets } from './extracted';
import { child, childrenNamed, coreTitle, findAll, openZip, readRels, readXml, textOf, type XmlNode } from './officeZip';
import { cleanInline, collapseWhitespace, hasWords, normalizeUnicode } from './normalize';

const TITLE_TYPES = new Set(['title', 'ctrTitle']);
/** Placeholders on notes pages that hold boilerplate, not notes. */
const NOTES_BOILERPLATE = new Set(['sldNum', 'hdr', 'ftr', 'dt', 'sldImg']);

/** Text of one DrawingML paragraph (a:p): runs, fields and line breaks. */
function paragraphText(p: XmlNode): string {
  let out = '';
  for (const c of p.children) {
    if (c.name === 'r' || c.name === 'fld') {
      const t = child(c, 't');
      if (t) out += textOf(t);
    } else if (c.name === 'br') {
      out += '\n';
    }
  }
  return normalizeUnicode(out);
}

function placeholderType(shape: XmlNode): string | null {
  const nv = child(shape, 'nvSpPr') ?? child(shape, 'nvGraphicFramePr');
  const ph = child(child(nv, 'nvPr'), 'ph');
  if (!ph) return null;
  return ph.attrs.type ?? 'body';
}

interface ShapeText {
  kind: 'title' | 'text' | 'table';
  text: string;
  rows?: string[][];
  isList?: boolean;
}

/** Walks a shape tree (spTree / grpSp) in document order. */
function collectShapes(tree: XmlNode, out: ShapeText[], skipPlaceholders: Set<string> | null): void {
  for (const node of tree.children) {
    if (node.name === 'sp') {
      const ph = placeholderType(node);
      if (ph && skipPlaceholders?.has(ph)) continue;
      const body = child(node, 'txBody');
      if (!body) continue;
      const paras = childrenNamed(body, 'p');
      const lines = paras.map(paragraphText).map((l) => l.trim()).filter((l) => l.length > 0);
      if (lines.length === 0) continue;
      const isList = paras.some((p) => {
        const pPr = child(p, 'pPr');
        return !!(child(pPr, 'buChar') || child(pPr, 'buAutoNum'));
      });
      out.push({ kind: ph && TITLE_TYPES.has(ph) ? 'title' : 'text', text: lines.join('\n'), isList });
    } else if (node.name === 'grpSp') {
      collectShapes(node, out, skipPlaceholders);
    } else if (node.name === 'graphicFrame') {
      for (const tbl of findAll(node, 'tbl')) {
        const rows = childrenNamed(tbl, 'tr').map((tr) =>
          childrenNamed(tr, 'tc').map((tc) => cleanInline(findAll(tc, 'p').map(paragraphText).join('\n'))),
        );
        const kept = rows.filter((r) => r.some((c) => c.length > 0));
        if (kept.length > 0) out.push({ kind: 'table', text: kept.map((r) => r.join(' | ')).join('\n'), rows: kept });
      }
    } else if (node.name === 'AlternateContent') {
      // Read one alternative only (the first Choice), never both.
      const choice = child(node, 'Choice') ?? child(node, 'Fallback');
      if (choice) collectShapes(choice, out, skipPlaceholders);
    }
  }
}

function shapesOf(root: XmlNode | null, skip: Set<string> | null): ShapeText[] {
  const tree = child(child(root, 'cSld'), 'spTree');
  const out: ShapeText[] = [];
  if (tree) collectShapes(tree, out, skip);
  return out;
}

export function parsePptx(bytes: Uint8Array): ParsedDocument {
  const entries = openZip(bytes, 'PPTX', (name) => /^ppt\/(slides|notesSlides)\/(_rels\/)?[^/]+$/.test(name) || name === 'ppt/presentation.xml' || name === 'ppt/_rels/presentation.xml.rels' || name === 'docProps/core.xml');
  const presentation = readXml(entries, 'ppt/presentation.xml');
  const rels = readRels(entries, 'ppt/presentation.xml');
  let slideParts = childrenNamed(child(presentation, 'sldIdLst'), 'sldId')
    .map((s) => rels[s.attrs.id])
    .filter((p): p is string => !!p && !!entries[p]);
  if (slideParts.length === 0) {
    // No usable presentation.xml: fall back to slide part numbers.
    slideParts = Object.keys(entries)
      .filter((n) => /^ppt\/slides\/slide\d+\.xml$/.test(n))
      .sort((a, b) => Number(/(\d+)\.xml$/.exec(a)![1]) - Number(/(\d+)\.xml$/.exec(b)![1]));
  }

  const blocks: Block[] = [];
  let firstTitle: string | undefined;
  slideParts.forEach((part, index) => {
    const slideNo = index + 1;
    const shapes = shapesOf(readXml(entries, part), null);
    const title = shapes.find((s) => s.kind === 'title');
    const titleText = title ? collapseWhitespace(title.text) : '';
    firstTitle ??= titleText || undefined;
    blocks.push({ kind: 'heading', level: 1, text: titleText ? `Slide ${slideNo}: ${titleText}` : `Slide ${slideNo}`, loc: {} });
    for (const s of shapes) {
      if (s === title) continue;
      if (s.kind === 'table') blocks.push({ kind: 'table', text: s.text, rows: s.rows, hasHeader: true, loc: {} });
      else blocks.push({ kind: s.isList ? 'list' : 'paragraph', text: s.text, loc: {} });
    }
    const notesPart = Object.values(readRels(entries, part)).find((t) => /notesSlides\/[^/]+\.xml$/.test(t));
    if (notesPart) {
      const notes = shapesOf(readXml(entries, notesPart), NOTES_BOILERPLATE).filter((s) => hasWords(s.text));
      if (notes.length > 0) {
        blocks.push({ kind: 'heading', level: 2, text: `Slide ${slideNo} notes`, loc: {} });
        for (const n of notes) blocks.push({ kind: n.kind === 'table' ? 'table' : 'paragraph', text: n.text, rows: n.rows, loc: {} });
      }
    }
  });

  // Headings alone ("Slide 3") are not content: a deck whose slides carry no text has no extractable text.
  const content = blocks.filter((b) => b.kind !== 'heading' || !/^Slide \d+( notes)?$/.test(b.text));
  const kept = content.some((b) => hasWords(b.text)) ? blocks.filter((b) => hasWords(b.text)) : [];
  assignJoinedOffsets(kept);
  return {
    format: 'pptx',
    title: coreTitle(entries) ?? (kept.length > 0 ? firstTitle : undefined),
    blocks: kept,
    metadata: { slides: String(slideParts.length) },
    warnings: [],
  };
}
