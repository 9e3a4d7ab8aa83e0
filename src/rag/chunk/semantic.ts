// Semantic chunking (strategy 'semantic'): within a section, sentences are grouped until the similarity across a
// gap drops: the distance between the two sentences before and the two after each gap is computed, and gaps whose
// distance is a local maximum at or above the section's `percentile` are breakpoints (minimum and maximum sizes
// still apply). Same output contract as the structural strategy (drafts of verbatim pieces), so the evaluation
// can compare the two.
//
// Similarity comes from a synchronous text embedding passed in by the caller (chunk/ does not import embed/): the
// indexer passes the builtin lexical sketch (embedBuiltin), deterministic and free. It finds topic shifts that change
// vocabulary; it is not a semantic model.
import type { ChunkSize } from '../config';
import type { Block, Lang } from '../types';
import { sliceLocation } from './locations';
import { type Draft, mergeSmallDrafts } from './pack';
import { blockPieces, cutLongSpan, segmentSpans, type Piece } from './pieces';

/** One text → an L2-normalised vector, synchronously (the indexer passes embed/builtin's `embedBuiltin`). */
export type TextEmbedding = (text: string) => Float32Array;

/** Distances at or above this percentile of a section's neighbour distances are breakpoints. */
export const SEMANTIC_BREAKPOINT_PERCENTILE = 80;

interface Unit {
  block: Block;
  start: number;
  end: number;
}

function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Infinity;
  const sorted = [...values].sort((x, y) => x - y);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

/** Turns a run of units into pieces: one verbatim slice per block. */
function piecesOf(units: Unit[]): Piece[] {
  const pieces: Piece[] = [];
  let i = 0;
  while (i < units.length) {
    let j = i;
    while (j + 1 < units.length && units[j + 1].block === units[i].block) j++;
    const block = units[i].block;
    const text = block.text.slice(units[i].start, units[j].end);
    pieces.push({ text, loc: sliceLocation(block, units[i].start, units[j].end), quoteSource: text, table: false });
    i = j + 1;
  }
  return pieces;
}

const unitText = (u: Unit) => u.block.text.slice(u.start, u.end);

/** Groups a run of text units at semantic breakpoints. */
function groupUnits(units: Unit[], size: ChunkSize, minSize: number, percentileCut: number, embed: TextEmbedding): Draft[] {
  if (units.length === 0) return [];
  const texts = units.map(unitText);
  // Distance at the gap after sentence i: the two sentences before it against the two after it.
  // pair[j] embeds sentences j and j+1, so each window is embedded once: left of gap i = pair[i-1], right = pair[i+1].
  const pair = texts.map((_, j) => embed(texts.slice(j, j + 2).join(' ')));
  const first = embed(texts[0]);
  const distances = texts.slice(0, -1).map((_, i) => 1 - cosine(i === 0 ? first : pair[i - 1], pair[i + 1]));
  const threshold = percentile(distances, percentileCut);
  // A breakpoint is a local maximum of the distance at or above the threshold (TextTiling-style), so one topic
  // shift yields one break, not a run of them.
  const isBreak = distances.map(
    (d, i) => d >= threshold && d >= (distances[i - 1] ?? -Infinity) && d >= (distances[i + 1] ?? -Infinity),
  );
  const drafts: Draft[] = [];
  let group: Unit[] = [units[0]];
  let length = texts[0].length;
  for (let i = 1; i < units.length; i++) {
    const add = texts[i].length + 2;
    const tooBig = length + add > size.size;
    const breakpoint = isBreak[i - 1] && length >= minSize;
    if (tooBig || breakpoint) {
      drafts.push({ pieces: piecesOf(group), table: false });
      group = [];
      length = 0;
    }
    group.push(units[i]);
    length += (group.length > 1 ? 2 : 0) + texts[i].length;
  }
  drafts.push({ pieces: piecesOf(group), table: false });
  return drafts;
}

/** Passage drafts of one section with the semantic strategy (tables stay passages of their own). */
export function semanticDrafts(
  blocks: Block[],
  size: ChunkSize,
  minSize: number,
  lang: Lang,
  embed: TextEmbedding,
  percentileCut = SEMANTIC_BREAKPOINT_PERCENTILE,
): Draft[] {
  const drafts: Draft[] = [];
  let run: Unit[] = [];
  const flush = () => {
    drafts.push(...groupUnits(run, size, minSize, percentileCut, embed));
    run = [];
  };
  for (const block of blocks) {
    if (block.kind === 'table') {
      flush();
      for (const p of blockPieces(block, size.size, lang)) drafts.push({ pieces: [p], table: true });
      continue;
    }
    if (block.text.trim() === '') continue;
    for (const span of segmentSpans(block, lang)) {
      const spans = span.end - span.start > size.size ? cutLongSpan(block.text, span, size.size) : [span];
      for (const s of spans) run.push({ block, start: s.start, end: s.end });
    }
  }
  flush();
  return mergeSmallDrafts(drafts, size, minSize);
}
