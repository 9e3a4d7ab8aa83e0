// The first vector queries of a fresh process on a store with a vector index (LanceDB reads the index on first use):
// the time of three k = 80 queries and the process's resident memory after them.
//   LANCEDB_LOG=error node --import tsx bench/vectorFirstQuery.ts <store>
import { openStore } from '../src/rag/store';
import { createEmbedder } from '../src/rag/embed';
import { defaultConfig } from '../src/rag/config';
import * as fs from 'node:fs';
async function main() {
  const s = await openStore(process.argv[2]);
  const [a, b, c] = await createEmbedder(defaultConfig().embed).embedQueries!(['effect of vitamin D on bone density', 'risk factors for myocardial infarction', 'gene expression in breast cancer cells']);
  const out: number[] = [];
  for (const v of [a, b, c]) { const t = performance.now(); await s.vectorSearch(v, { k: 80 }); out.push(Math.round(performance.now() - t)); }
  const rss = Math.round(Number(fs.readFileSync('/proc/self/status', 'utf8').match(/VmRSS:\s+(\d+)/)![1]) / 1024);
  console.log(JSON.stringify({ store: process.argv[2], kind: s.vectorIndexInfo()?.kind ?? 'ivf_flat', ms: out, rssMB: rss }));
}
void main();
