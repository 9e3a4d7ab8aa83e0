// Builds Arrow tables column by column from our rows. lancedb's makeArrowTable converts row objects value by value
// (slow for long vectors, blocking the JS thread), and apache-arrow's own builders (vectorFromArray) encode every string
// separately, a noticeable share of a large run's thread. Here each
// column's buffers are filled directly: a vector column is one Float32Array copy, a string column one UTF-8 encode of
// the column (when it is ASCII) or one write per value into one buffer.
import type { Table as LanceTable } from '@lancedb/lancedb';
import {
  Bool, FixedSizeList, Float32, Float64, Int32, RecordBatch, Struct, Table, Uint8, Utf8, makeData, vectorFromArray, type Data,
  type DataType, type Schema,
} from 'apache-arrow';

/**
 * rows: plain objects with one key per schema field; a FixedSizeList<Float32> field takes Float32Arrays, a
 * FixedSizeList<Uint8> field Uint8Arrays.
 * Returns null when a column came out in several chunks (very large batches): the caller then uses makeArrowTable.
 */
export function toArrowTable(schema: Schema, rows: Record<string, unknown>[]): Table | null {
  const n = rows.length;
  const children: (Data | null)[] = schema.fields.map((field) => {
    const type = field.type as DataType;
    if (type instanceof FixedSizeList) {
      const dim = type.listSize;
      const bytes = type.valueType instanceof Uint8;
      const flat = bytes ? new Uint8Array(n * dim) : new Float32Array(n * dim);
      rows.forEach((r, i) => flat.set(r[field.name] as ArrayLike<number>, i * dim));
      const child = bytes
        ? makeData({ type: new Uint8(), length: n * dim, nullCount: 0, data: flat as Uint8Array })
        : makeData({ type: new Float32(), length: n * dim, nullCount: 0, data: flat as Float32Array });
      return makeData({ type, length: n, nullCount: 0, child });
    }
    const values = rows.map((r) => r[field.name] ?? null);
    if (type instanceof Utf8) return utf8Data(type, values as (string | null)[]);
    if (type instanceof Int32) return numberData(type, values as (number | null)[], Int32Array);
    if (type instanceof Float64) return numberData(type, values as (number | null)[], Float64Array);
    if (type instanceof Float32) return numberData(type, values as (number | null)[], Float32Array);
    if (type instanceof Bool) return boolData(type, values as (boolean | null)[]);
    const vec = vectorFromArray(values, type);
    return vec.data.length === 1 ? vec.data[0] : null;
  });
  if (children.some((c) => c === null)) return null;
  const struct = makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children: children as Data[] });
  return new Table(schema, [new RecordBatch(schema, struct)]);
}

/** The validity bitmap of `values` (bit i set = value i present) and its null count; no bitmap when nothing is null. */
function validity(values: unknown[]): { nullBitmap?: Uint8Array; nullCount: number } {
  let nullCount = 0;
  for (const v of values) if (v === null || v === undefined) nullCount++;
  if (nullCount === 0) return { nullCount };
  const nullBitmap = new Uint8Array((values.length + 7) >> 3);
  values.forEach((v, i) => {
    if (v !== null && v !== undefined) nullBitmap[i >> 3] |= 1 << (i & 7);
  });
  return { nullBitmap, nullCount };
}

function utf8Data(type: Utf8, values: (string | null)[]): Data {
  const n = values.length;
  const valueOffsets = new Int32Array(n + 1);
  const strings = values.map((v) => (v === null || v === undefined ? '' : String(v)));
  const joined = strings.join('');
  let data: Uint8Array;
  if (Buffer.byteLength(joined, 'utf8') === joined.length) {
    // Only ASCII: one encode of the whole column, offsets are the strings' lengths.
    data = Buffer.from(joined, 'latin1');
    let off = 0;
    for (let i = 0; i < n; i++) valueOffsets[i + 1] = off += strings[i].length;
  } else {
    // Each value encoded on its own (a lone surrogate at a value's edge must not pair with its neighbour's).
    let total = 0;
    for (let i = 0; i < n; i++) valueOffsets[i + 1] = total += Buffer.byteLength(strings[i], 'utf8');
    const buf = Buffer.allocUnsafe(total);
    for (let i = 0; i < n; i++) buf.write(strings[i], valueOffsets[i], valueOffsets[i + 1] - valueOffsets[i], 'utf8');
    data = buf;
  }
  return makeData({ type, length: n, ...validity(values), valueOffsets, data });
}

function numberData(
  type: Int32 | Float64 | Float32,
  values: (number | null)[],
  Ctor: Int32ArrayConstructor | Float64ArrayConstructor | Float32ArrayConstructor,
): Data {
  const data = new Ctor(values.length);
  values.forEach((v, i) => {
    if (v !== null && v !== undefined) data[i] = Number(v);
  });
  return makeData({ type, length: values.length, ...validity(values), data } as Parameters<typeof makeData>[0]);
}

function boolData(type: Bool, values: (boolean | null)[]): Data {
  const data = new Uint8Array((values.length + 7) >> 3);
  values.forEach((v, i) => {
    if (v) data[i >> 3] |= 1 << (i & 7);
  });
  return makeData({ type, length: values.length, ...validity(values), data });
}

/** Calls `row` for each row that `where` selects, batch by batch (never the whole result at once). */
export async function eachRow(table: LanceTable, where: string, columns: string[], row: (r: Record<string, unknown>) => void): Promise<void> {
  for await (const batch of table.query().where(where).select(columns)) {
    const cols = columns.map((c) => batch.getChild(c));
    for (let i = 0; i < batch.numRows; i++) {
      const r: Record<string, unknown> = {};
      columns.forEach((c, j) => (r[c] = cols[j]?.get(i)));
      row(r);
    }
  }
}

/**
 * The rows of an Arrow table as plain objects of `columns`, and each row's value of the FixedSizeList<Uint8> column
 * `bytes` as a view into the table's buffer (no copy: a vector search's candidates carry a kilobyte each, and
 * converting them value by value cost more than the search).
 */
export function rowsWithBytes(table: Table, columns: string[], bytes: string): { row: Record<string, unknown>; bytes: Uint8Array }[] {
  const out: { row: Record<string, unknown>; bytes: Uint8Array }[] = [];
  for (const batch of table.batches) {
    const cols = columns.map((c) => batch.getChild(c));
    const list = batch.getChild(bytes);
    if (!list) throw new Error(`No column ${bytes} in the result`);
    const data = list.data[0];
    const size = (data.type as FixedSizeList).listSize;
    const child = data.children[0];
    const values = (child.values as Uint8Array).subarray(child.offset);
    for (let i = 0; i < batch.numRows; i++) {
      const row: Record<string, unknown> = {};
      columns.forEach((c, j) => (row[c] = cols[j]?.get(i)));
      const at = (data.offset + i) * size;
      out.push({ row, bytes: values.subarray(at, at + size) });
    }
  }
  return out;
}
