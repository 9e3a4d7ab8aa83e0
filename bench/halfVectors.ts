// Half-precision vectors (Arrow Float16) against the Float32 the store writes: the first N rows' real vectors of a finished
// store are written to two new tables, one per element type, in batches of 2,000 as a first build appends them; then
// the CPU of those appends (the conversion to half precision not counted), the disk, exact vector search (median of 12 queries, the rows' own vectors), one IVF_FLAT
// training as the store sizes it, and the indexed search at half the partitions.
//   LANCEDB_LOG=error node --import tsx bench/halfVectors.ts <store> [rows=20000] [out=/tmp/half-vectors]
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { Field, FixedSizeList, Float16, Float32, RecordBatch, Schema, Struct, Table as ArrowTable, Utf8, makeData, vectorFromArray } from 'apache-arrow';
import { vectorPartitions } from '../src/rag/store/lanceStore';

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
/** IEEE 754 binary16 bits of a number (round to nearest even; subnormals kept). */
function toHalf(x: number): number {
  f32[0] = x;
  const b = u32[0];
  const sign = (b >>> 16) & 0x8000;
  const e = ((b >>> 23) & 0xff) - 112;
  let m = b & 0x7fffff;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    m |= 0x800000;
    const shift = 14 - e;
    const h = m >> shift;
    const rest = m & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    return sign | (h + (rest > half || (rest === half && h & 1) ? 1 : 0));
  }
  const h = (e << 10) | (m >> 13);
  const rest = m & 0x1fff;
  return sign | (h + (rest > 0x1000 || (rest === 0x1000 && h & 1) ? 1 : 0));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const [storeDir, rowsArg, outArg] = process.argv.slice(2);
  const n = Number(rowsArg ?? 20000);
  const out = outArg ?? '/tmp/half-vectors';
  const source = await (await lancedb.connect(storeDir)).openTable('passages');
  const rows = await source.query().select(['id', 'vector']).limit(n).toArray();
  const dim = (rows[0].vector as { length: number }).length;
  const ids = rows.map((r) => r.id as string);
  const flat = new Float32Array(rows.length * dim);
  rows.forEach((r, i) => flat.set(Float32Array.from(r.vector.toArray() as ArrayLike<number>), i * dim));
  const queries = Array.from({ length: 12 }, (_, i) => flat.slice(Math.floor((i * rows.length) / 12) * dim, (Math.floor((i * rows.length) / 12) + 1) * dim));
  console.log(JSON.stringify({ rows: rows.length, dim }));
  for (const kind of ['float32', 'float16'] as const) {
    const dir = path.join(out, kind);
    fs.rmSync(dir, { recursive: true, force: true });
    const db = await lancedb.connect(dir);
    const element = kind === 'float16' ? new Float16() : new Float32();
    const schema = new Schema([new Field('id', new Utf8(), false), new Field('vector', new FixedSizeList(dim, new Field('item', element, true)), false)]);
    let table: lancedb.Table | undefined;
    let appendCpu = 0;
    for (let start = 0; start < rows.length; start += 2000) {
      const end = Math.min(rows.length, start + 2000);
      const values = flat.subarray(start * dim, end * dim);
      const data = kind === 'float16' ? Uint16Array.from(values, toHalf) : Float32Array.from(values);
      const c0 = process.cpuUsage();
      const child = makeData({ type: element, length: data.length, nullCount: 0, data });
      const vectors = makeData({ type: schema.fields[1].type, length: end - start, nullCount: 0, child });
      const struct = makeData({ type: new Struct(schema.fields), length: end - start, nullCount: 0, children: [vectorFromArray(ids.slice(start, end), new Utf8()).data[0], vectors] });
      const batch = new ArrowTable([new RecordBatch(schema, struct)]);
      if (!table) table = await db.createTable('passages', batch);
      else await table.add(batch);
      const c = process.cpuUsage(c0);
      appendCpu += (c.user + c.system) / 1000;
    }
    const search = async (nprobes?: number) => {
      const ms: number[] = [];
      for (const q of queries) {
        const t0 = performance.now();
        let query = table!.vectorSearch(q).distanceType('cosine').limit(10);
        if (nprobes) query = query.nprobes(nprobes);
        await query.toArray();
        ms.push(performance.now() - t0);
      }
      return Math.round(median(ms) * 10) / 10;
    };
    const exactMs = await search();
    const partitions = vectorPartitions(rows.length);
    const t0 = performance.now();
    await table!.createIndex('vector', { config: lancedb.Index.ivfFlat({ distanceType: 'cosine', numPartitions: partitions }) });
    const trainMs = Math.round(performance.now() - t0);
    const indexedMs = await search(Math.ceil(partitions / 2));
    const diskMB = Number(execFileSync('du', ['-sm', dir]).toString().split('\t')[0]);
    console.log(JSON.stringify({ kind, appendCpuMs: Math.round(appendCpu), diskMB, exactMs, partitions, trainMs, indexedMs }));
  }
}

void main();
