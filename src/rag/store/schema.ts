// Arrow schemas of our LanceDB tables and the conversions between rows and engine types.
import { Bool, Field, FixedSizeList, Float32, Float64, Int32, Schema, Uint8, Utf8 } from 'apache-arrow';
import type { DocFormat, IndexedPassage, Lang, Level, Passage, SourceLocation, VectorLayout } from '../types';
import { codeBytes, encodeVector } from './vectorCodes';
import type { FileRecord, FileStatus, StoredVector } from './types';
import { withParts, withoutParts } from '../text/compounds';

/** Bump when the table layout changes; an index with another version is rebuilt. */
export const SCHEMA_VERSION = 4;

export const PASSAGES_TABLE = 'passages';
export const FILES_TABLE = 'files';

const str = (name: string, nullable = false) => new Field(name, new Utf8(), nullable);
const int = (name: string, nullable = false) => new Field(name, new Int32(), nullable);

export function passagesSchema(dimension: number, layout: VectorLayout): Schema {
  return new Schema([
    str('id'),
    str('path'),
    str('fileHash'),
    str('format'),
    int('level'),
    str('chunkPath'),
    str('parentId', true),
    int('order'),
    /** JSON array of strings. */
    str('headingPath'),
    str('title'),
    /** The passage's text, or null when it is the end of its keyword text (see `textFrom`). */
    str('text', true),
    /**
     * Where the text begins in the row's keyword text (`fts_de` without its compound parts, or `fts_en`) when `text` is
     * null: the keyword text is the text behind its headings, so a passage's text is stored once.
     */
    int('textFrom', true),
    str('overlap'),
    str('lang'),
    int('startLine', true),
    int('endLine', true),
    int('page', true),
    int('pageEnd', true),
    int('startOffset', true),
    int('endOffset', true),
    str('quote', true),
    /** Mean OCR confidence 0–100 of recognised text (scanned PDF pages, images); null for text layers. */
    int('ocrConfidence', true),
    /** indexText of English (and 'other') passages, '' otherwise: English analysis. */
    str('fts_en'),
    /** indexText of German passages plus their compound parts (text/compounds.ts), '' otherwise: German analysis. */
    str('fts_de'),
    /** True while the vector is a placeholder (zeros): a slow embedder's vectors are filled after the text is written. */
    new Field('vectorPending', new Bool(), false),
    ...vectorFields(dimension, layout),
  ]);
}

const bytes = (name: string, n: number) => new Field(name, new FixedSizeList(n, new Field('item', new Uint8(), true)), false);

/**
 * The vector columns. 'float': `vector`, the embedder's floats. 'codes' (vectorCodes.ts): `vector`, the rotated
 * vector's sign bits (searched by Hamming distance), `vectorCodes`, its 8-bit codes, and `vectorScale`, their range.
 */
export function vectorFields(dimension: number, layout: VectorLayout): Field[] {
  if (layout === 'float') return [new Field('vector', new FixedSizeList(dimension, new Field('item', new Float32(), true)), false)];
  const size = codeBytes(dimension);
  return [bytes('vector', size.bits), bytes('vectorCodes', size.codes), new Field('vectorScale', new Float32(), false)];
}

/** The vector columns of a row holding `vector` in the layout (floats are encoded here for the 'codes' layout). */
export function vectorColumns(vector: StoredVector, layout: VectorLayout): PassageRow {
  if (!(vector instanceof Float32Array)) {
    if (layout === 'float') throw new Error('vector codes given for an index that stores floats');
    return { vector: vector.bits, vectorCodes: vector.codes, vectorScale: vector.scale };
  }
  if (layout === 'float') return { vector };
  const code = encodeVector(vector);
  return { vector: code.bits, vectorCodes: code.codes, vectorScale: code.scale };
}

/** The names of the vector columns of the layout (what a copy of a row takes over as stored). */
export function vectorColumnNames(layout: VectorLayout): string[] {
  return layout === 'float' ? ['vector'] : ['vector', 'vectorCodes', 'vectorScale'];
}

/** The columns a vector fill writes (merged into the passages by id). */
export function vectorFillSchema(dimension: number, layout: VectorLayout): Schema {
  return new Schema([str('id'), new Field('vectorPending', new Bool(), false), ...vectorFields(dimension, layout)]);
}

export function filesSchema(): Schema {
  return new Schema([
    str('path'),
    new Field('size', new Float64(), false),
    new Field('mtimeMs', new Float64(), false),
    str('hash'),
    str('status'),
    str('reason'),
    int('passages'),
    str('embedder'),
    new Field('indexedAt', new Float64(), false),
  ]);
}

/** Columns read back to rebuild a Passage (everything but the vector; the keyword texts hold most passages' text). */
export const PASSAGE_COLUMNS = [
  'id', 'path', 'fileHash', 'format', 'level', 'chunkPath', 'parentId', 'order', 'headingPath', 'title', 'text',
  'textFrom', 'fts_en', 'fts_de', 'overlap', 'lang', 'startLine', 'endLine', 'page', 'pageEnd', 'startOffset', 'endOffset', 'quote', 'ocrConfidence',
];

export type PassageRow = Record<string, unknown>;

const orNull = (v: number | string | undefined): number | string | null => (v === undefined ? null : v);

/** `pending`: the vector is a placeholder, filled later (see `IndexStore.fillVectors`). */
export function passageToRow(p: IndexedPassage, vector: StoredVector, layout: VectorLayout, pending = false): PassageRow {
  const german = p.lang === 'de';
  const keyword = { lang: p.lang, fts_en: german ? '' : p.indexText, fts_de: german ? withParts(p.indexText, p.keywordParts) : '' };
  const textFrom = p.indexText.length - p.text.length;
  const once = textFrom >= 0 && keywordText(keyword).slice(textFrom) === p.text;
  return {
    id: p.id,
    path: p.path,
    fileHash: p.fileHash,
    format: p.format,
    level: p.level,
    chunkPath: p.chunkPath,
    parentId: p.parentId,
    order: p.order,
    headingPath: JSON.stringify(p.headingPath ?? []),
    title: p.title ?? '',
    text: once ? null : p.text,
    textFrom: once ? textFrom : null,
    overlap: p.overlap ?? '',
    lang: p.lang,
    startLine: orNull(p.loc.startLine),
    endLine: orNull(p.loc.endLine),
    page: orNull(p.loc.page),
    pageEnd: orNull(p.loc.pageEnd),
    startOffset: orNull(p.loc.startOffset),
    endOffset: orNull(p.loc.endOffset),
    quote: orNull(p.loc.quote),
    ocrConfidence: orNull(p.loc.ocrConfidence),
    fts_en: keyword.fts_en,
    fts_de: keyword.fts_de,
    vectorPending: pending,
    ...vectorColumns(vector, layout),
  };
}

/** A row's keyword text without its compound parts: its headings and text as indexed. */
function keywordText(r: Record<string, unknown>): string {
  return r.lang === 'de' ? withoutParts((r.fts_de as string) ?? '') : ((r.fts_en as string) ?? '');
}

/** A row's passage text: its `text`, or the end of its keyword text from `textFrom`. */
export function rowText(r: Record<string, unknown>): string {
  if (r.text !== null && r.text !== undefined) return r.text as string;
  return keywordText(r).slice(num(r.textFrom) ?? 0);
}

function num(v: unknown): number | undefined {
  if (v === null || v === undefined) return undefined;
  return typeof v === 'bigint' ? Number(v) : (v as number);
}

export function rowToPassage(r: Record<string, unknown>): Passage {
  const loc: SourceLocation = {};
  for (const k of ['startLine', 'endLine', 'page', 'pageEnd', 'startOffset', 'endOffset', 'ocrConfidence'] as const) {
    const v = num(r[k]);
    if (v !== undefined) loc[k] = v;
  }
  if (r.quote !== null && r.quote !== undefined) loc.quote = r.quote as string;
  let headingPath: string[] = [];
  try {
    headingPath = JSON.parse((r.headingPath as string) || '[]') as string[];
  } catch {
    headingPath = [];
  }
  return {
    id: r.id as string,
    path: r.path as string,
    fileHash: r.fileHash as string,
    format: r.format as DocFormat,
    level: num(r.level) as Level,
    chunkPath: r.chunkPath as string,
    parentId: (r.parentId as string | null) ?? null,
    order: num(r.order) ?? 0,
    headingPath,
    title: (r.title as string) ?? '',
    text: rowText(r),
    overlap: (r.overlap as string) ?? '',
    lang: r.lang as Lang,
    loc,
  };
}

/** The files table's row of a record. The pipeline key lives in the column `embedder` (its name in every index written so far). */
export function fileToRow(f: FileRecord): Record<string, unknown> {
  const { pipelineKey, ...rest } = f;
  return { ...rest, embedder: pipelineKey };
}

export function rowToFile(r: Record<string, unknown>): FileRecord {
  return {
    path: r.path as string,
    size: num(r.size) ?? 0,
    mtimeMs: num(r.mtimeMs) ?? 0,
    hash: r.hash as string,
    status: r.status as FileStatus,
    reason: (r.reason as string) ?? '',
    passages: num(r.passages) ?? 0,
    pipelineKey: (r.embedder as string) ?? '',
    indexedAt: num(r.indexedAt) ?? 0,
  };
}

/** SQL string literal for LanceDB (DataFusion) filters: single quotes doubled. */
export function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}

export function sqlIn(column: string, values: string[]): string {
  return `${column} IN (${values.map(sqlString).join(', ')})`;
}
