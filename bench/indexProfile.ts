// Ad-hoc profile of the indexing CPU per stage on the first 2,000 files of a folder, serially in one process:
// node --import tsx bench/indexProfile.ts /tmp/docs-rag-bench-10000
import { ParserPool } from '../src/rag/ingest';
import { chunkDocument } from '../src/rag/chunk';
import { createEmbedder, embedBuiltin } from '../src/rag/embed';
import { defaultConfig } from '../src/rag/config';
import { walkFolder } from '../src/rag/index/walk';
import { hashFile } from '../src/rag/index/plan';
async function main() {
  const c = defaultConfig();
  const entries = (await walkFolder(process.argv[2], { include: c.ingest.include, exclude: c.ingest.exclude })).slice(0, 2000);
  const pool = new ParserPool(2);
  const docs = [];
  let t = performance.now();
  for (const e of entries) docs.push(await pool.parse(e.abs, { timeoutMs: 30000, maxFileSizeMB: 50 }));
  console.log('parse (serial)', Math.round(performance.now() - t));
  t = performance.now();
  for (const e of entries) await hashFile(e.abs, e.size);
  console.log('hash', Math.round(performance.now() - t));
  t = performance.now();
  const ps = docs.map((d, i) => chunkDocument(d, { path: entries[i].path, fileHash: 'x' }, c.chunk, { embedText: embedBuiltin }));
  console.log('chunk', Math.round(performance.now() - t), ps.flat().length);
  const emb = createEmbedder(c.embed); await emb.init();
  t = performance.now();
  for (const p of ps) await emb.embed(p.map((x) => x.indexText));
  const ms = performance.now() - t;
  console.log('embed', Math.round(ms), Math.round(ps.flat().length / ms * 1000), 'p/s');
  await pool.close();
}
main();
