// toArrowTable fills the column buffers itself: its tables must hold exactly what apache-arrow's own builders
// (vectorFromArray, the reference) make of the same rows, for every column type our schemas use, with nulls, non-ASCII
// text and lone surrogates; and LanceDB must read back what was written.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { Bool, Field, FixedSizeList, Float32, Float64, Int32, Schema, Utf8, vectorFromArray } from 'apache-arrow';
import { toArrowTable } from '../../src/rag/store/arrowRows';

const schema = new Schema([
  new Field('id', new Utf8(), false),
  new Field('note', new Utf8(), true),
  new Field('n', new Int32(), true),
  new Field('x', new Float64(), false),
  new Field('flag', new Bool(), false),
  new Field('vector', new FixedSizeList(3, new Field('item', new Float32(), true)), false),
]);

const texts = ['', 'plain ascii', 'Kündigungsschutz § 3 Abs. 2', '日本語', 'emoji 😀 pair', 'lone \ud83d high', '\udc00 lone low', 'ends high \ud83d'];

function rows(ascii: boolean): Record<string, unknown>[] {
  return Array.from({ length: 37 }, (_, i) => ({
    id: ascii ? `id-${i}` : texts[i % texts.length] + i,
    note: i % 5 === 0 ? null : ascii ? `note ${i}` : texts[(i * 3) % texts.length],
    n: i % 4 === 0 ? null : i * 7 - 100,
    x: i / 3,
    flag: i % 3 === 0,
    vector: new Float32Array([i, -i, i / 2]),
  }));
}

/** The reference: every column through apache-arrow's builders. */
function reference(rs: Record<string, unknown>[]): Record<string, unknown>[] {
  const cols = schema.fields.map((f) => (f.name === 'vector' ? null : vectorFromArray(rs.map((r) => r[f.name] ?? null), f.type)));
  return rs.map((r, i) =>
    Object.fromEntries(schema.fields.map((f, c) => [f.name, f.name === 'vector' ? Array.from(r.vector as Float32Array) : cols[c]!.get(i)])),
  );
}

function plain(table: NonNullable<ReturnType<typeof toArrowTable>>): Record<string, unknown>[] {
  return table.toArray().map((r) => {
    const o = r.toJSON() as Record<string, unknown>;
    return { ...o, vector: Array.from(o.vector as Iterable<number>) };
  });
}

describe('toArrowTable (store/arrowRows.ts)', () => {
  for (const ascii of [true, false]) {
    it(`builds the same columns as apache-arrow's builders (${ascii ? 'ASCII' : 'non-ASCII and lone surrogates'}, nulls)`, () => {
      const rs = rows(ascii);
      const table = toArrowTable(schema, rs);
      assert.ok(table);
      assert.equal(table.numRows, rs.length);
      assert.deepEqual(plain(table), reference(rs));
      assert.equal(table.getChild('note')!.nullCount, rs.filter((r) => r.note === null).length);
      assert.equal(table.getChild('n')!.nullCount, rs.filter((r) => r.n === null).length);
    });
  }

  it('writes rows LanceDB reads back unchanged', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-arrow-'));
    try {
      const db = await lancedb.connect(dir);
      const rs = rows(false);
      const table = await db.createEmptyTable('t', schema);
      await table.add(toArrowTable(schema, rs)!);
      const back = (await table.query().toArray()).map((r) => ({ ...r, vector: Array.from(r.vector as Iterable<number>) }));
      back.sort((a, b) => (a.x as number) - (b.x as number));
      assert.deepEqual(back, reference(rs));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
