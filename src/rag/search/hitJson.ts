// The JSON shape of a search result (CLI --json, the extension's tool): citation fields per format, text, score.
import { locationKind } from '../formats';
import type { SearchHit } from '../types';

export interface HitJson {
  path: string;
  /** Formats cited by lines (formats.ts `location`): 1-based inclusive line range as stored. */
  startLine?: number;
  endLine?: number;
  /** Formats cited by pages (PDF): 1-based physical page (pageEnd when the passage spans pages). */
  page?: number;
  pageEnd?: number;
  /** Formats cited by a quote (Office files, images): a short verbatim quote. */
  quote?: string;
  /** Set when the text was recognised by OCR (scanned PDF page, image): "recognised text (OCR)". */
  ocr?: { note: string; confidence: number };
  text: string;
  score: number;
  hybridScore?: number;
  level: number;
  /** The passage's own section heading (last element of the heading path). */
  heading: string;
  headingPath: string[];
  id: string;
  /** Brought in by an edge of the reference graph: the id of the hit it was reached from, the edge's kind and direction. */
  via?: SearchHit['via'];
}

/** How recognised text is labelled wherever a passage or citation is shown. */
export const OCR_NOTE = 'recognised text (OCR)';

/** " — recognised text (OCR, confidence 91%)" for OCR passages, '' otherwise. */
export function ocrSuffix(loc: { ocrConfidence?: number }): string {
  return loc.ocrConfidence === undefined ? '' : ` — ${OCR_NOTE.replace(')', `, confidence ${loc.ocrConfidence}%)`)}`;
}

export function hitToJson(h: SearchHit): HitJson {
  const p = h.passage;
  const out: HitJson = {
    path: p.path,
    text: p.text,
    score: Math.round(h.score * 1e6) / 1e6,
    level: p.level,
    heading: p.headingPath[p.headingPath.length - 1] ?? p.title ?? '',
    headingPath: p.headingPath,
    id: p.id,
  };
  const kind = locationKind(p.format);
  if (kind === 'pages') {
    if (p.loc.page !== undefined) out.page = p.loc.page;
    if (p.loc.pageEnd !== undefined && p.loc.pageEnd !== p.loc.page) out.pageEnd = p.loc.pageEnd;
  } else if (kind === 'quote') {
    if (p.loc.quote !== undefined) out.quote = p.loc.quote;
  } else {
    if (p.loc.startLine !== undefined) out.startLine = p.loc.startLine;
    if (p.loc.endLine !== undefined) out.endLine = p.loc.endLine;
  }
  if (p.loc.ocrConfidence !== undefined) out.ocr = { note: OCR_NOTE, confidence: p.loc.ocrConfidence };
  if (h.via) out.via = { ...h.via };
  if (h.hybridScore !== undefined) out.hybridScore = Math.round(h.hybridScore * 1e6) / 1e6;
  return out;
}
