// Builds Arrow tables column by column from our rows. lancedb's makeArrowTable converts row objects value by value
// (about 1 ms per 1024-dim row on this machine, blocking the JS thread); here each vector column is one Float32Array copy.
import {
  FixedSizeList, Float32, RecordBatch, Struct, Table, makeData, vectorFromArray, type Data, type Schema, type DataType,
} from 'apache-arrow';

/**
 * rows: plain objects with one key per schema field; the `vector` field (FixedSizeList<Float32>) takes Float32Arrays.
 * Returns null when a column came out in several chunks (very large batches): the caller then uses makeArrowTable.
 */
export function toArrowTable(schema: Schema, rows: Record<string, unknown>[]): Table | null {
  const n = rows.length;
  const children: (Data | null)[] = schema.fields.map((field) => {
    const type = field.type as DataType;
    if (type instanceof FixedSizeList) {
      const dim = type.listSize;
      const flat = new Float32Array(n * dim);
      rows.forEach((r, i) => flat.set(r[field.name] as Float32Array, i * dim));
      const child = makeData({ type: new Float32(), length: n * dim, nullCount: 0, data: flat });
      return makeData({ type, length: n, nullCount: 0, child });
    }
    const values = rows.map((r) => r[field.name] ?? null);
    const vec = vectorFromArray(values, type);
    return vec.data.length === 1 ? vec.data[0] : null;
  });
  if (children.some((c) => c === null)) return null;
  const struct = makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children: children as Data[] });
  return new Table(schema, [new RecordBatch(schema, struct)]);
}
