// IVF_RQ codes by dimension: uniform random unit rows, 4 bits, every partition probed, refineFactor 10; how often a row
// finds itself first and recall@10 against a scan (20 queries). LanceDB 0.37.1 refuses dimensions not divisible by 8
// and ranks wrongly above ~1,500 dimensions (store/vectorIndexInfo.ts, VECTOR_RQ_MAX_DIMENSION).
//   ROWS=2000 PARTS=11 LANCEDB_LOG=error node --import tsx bench/vectorCodesDims.ts 1024,1536,2048,4096
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { Index } from '@lancedb/lancedb';
async function main() {
  for (const dim of (process.argv[2] ?? "1536,1792,1920,2000,2040").split(",").map(Number)) for (const bits of [4]) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rqd-'));
    const db = await lancedb.connect(dir);
    const rows = Array.from({ length: Number(process.env.ROWS ?? 2000) }, (_, i) => ({ id: i, vector: Array.from({ length: dim }, () => Math.random() - 0.5) }));
    const t = await db.createTable('t', rows);
    await t.createIndex('vector', { config: Index.ivfRq({ distanceType: 'cosine', numPartitions: Number(process.env.PARTS ?? 11), numBits: bits }), replace: true });
    let self = 0, rec = 0;
    for (let i = 0; i < 20; i++) {
      const q = rows[i * 37].vector;
      const got = (await t.vectorSearch(q).distanceType('cosine').nprobes(Number(process.env.PARTS ?? 11)).refineFactor(10).limit(10).toArray()).map((r) => r.id);
      const ex = (await t.vectorSearch(q).distanceType('cosine').bypassVectorIndex().limit(10).toArray()).map((r) => r.id);
      if (got[0] === i * 37) self++;
      rec += ex.filter((x) => got.includes(x)).length / 10;
    }
    console.log(JSON.stringify({ dim, bits, selfFirst: self / 20, recallAt10: rec / 20 }));
    fs.rmSync(dir, { recursive: true });
  }
}
void main();
