// Packs a section's pieces into passage drafts: whole pieces up to the size, tables alone, then fragments under
// minSize merged with a text neighbour of the same section (so a passage may reach size + minSize).
import type { ChunkSize } from '../config';
import type { Piece } from './pieces';

export const PASSAGE_SEPARATOR = '\n\n';

export interface Draft {
  pieces: Piece[];
  table: boolean;
}

export const draftLength = (d: Draft) => d.pieces.reduce((n, p, i) => n + p.text.length + (i > 0 ? PASSAGE_SEPARATOR.length : 0), 0);

export function packSection(pieces: Piece[], size: ChunkSize, minSize: number): Draft[] {
  const drafts: Draft[] = [];
  let cur: Draft | undefined;
  for (const p of pieces) {
    if (p.table) {
      if (cur) drafts.push(cur);
      cur = undefined;
      drafts.push({ pieces: [p], table: true });
      continue;
    }
    if (cur && draftLength(cur) + PASSAGE_SEPARATOR.length + p.text.length > size.size) {
      drafts.push(cur);
      cur = undefined;
    }
    if (!cur) cur = { pieces: [], table: false };
    cur.pieces.push(p);
  }
  if (cur) drafts.push(cur);
  return mergeSmallDrafts(drafts, size, minSize);
}

/** Merges drafts under minSize with a text neighbour (previous first) while staying under size + minSize. */
export function mergeSmallDrafts(drafts: Draft[], size: ChunkSize, minSize: number): Draft[] {
  const limit = size.size + minSize;
  for (let i = 0; i < drafts.length; i++) {
    const d = drafts[i];
    if (d.table || draftLength(d) >= minSize) continue;
    const prev = drafts[i - 1];
    const next = drafts[i + 1];
    if (prev && !prev.table && draftLength(prev) + PASSAGE_SEPARATOR.length + draftLength(d) <= limit) {
      prev.pieces.push(...d.pieces);
      drafts.splice(i, 1);
      i--;
    } else if (next && !next.table && draftLength(next) + PASSAGE_SEPARATOR.length + draftLength(d) <= limit) {
      next.pieces.unshift(...d.pieces);
      drafts.splice(i, 1);
      i--;
    }
  }
  return drafts;
}
