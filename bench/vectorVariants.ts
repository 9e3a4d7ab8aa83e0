// What a vector search of the store costs by what it asks LanceDB for: the store's own query (all partitions, refine
// factor 4, the passages' columns, the level filter) beside half the refine candidates and beside ids and distances
// only. SciFact's first 60 questions, builtin embedder, k = 80 (the default's candidates per list), two rounds.
//   npm run bench -- search --sizes 10000   (builds /tmp/docs-rag-bench-search/n10000), then
//   node --import tsx bench/vectorVariants.ts /tmp/docs-rag-bench-search/n10000
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { embedBuiltin } from '../src/rag/embed/builtin';
import { PASSAGE_COLUMNS } from '../src/rag/store/schema';

const SHARED = process.env.DOCS_RAG_SHARED ?? path.resolve(__dirname, '../../shared');

async function main(dir: string): Promise<void> {
  const info = JSON.parse(fs.readFileSync(path.join(dir, 'vector-index.json'), 'utf8')) as { partitions: number; kind: string };
  const db = await lancedb.connect(dir);
  const table = await db.openTable('passages');
  const questions = fs.readFileSync(path.join(SHARED, 'eval/scifact/queries.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, 60);
  const vectors = questions.map((l) => embedBuiltin((JSON.parse(l) as { text: string }).text));
  const search = (v: Float32Array, columns: string[], refine: number) =>
    table.vectorSearch(v).distanceType('cosine').select(columns).nprobes(info.partitions).refineFactor(refine).where('vectorPending = false AND level IN (1, 2)').limit(80).toArray();
  const variants: [string, (v: Float32Array) => Promise<unknown>][] = [
    ['passages, refine 4 (the store)', (v) => search(v, [...PASSAGE_COLUMNS, '_distance'], 4)],
    ['passages, refine 2', (v) => search(v, [...PASSAGE_COLUMNS, '_distance'], 2)],
    ['ids, refine 4', (v) => search(v, ['id', '_distance'], 4)],
    ['ids, refine 2', (v) => search(v, ['id', '_distance'], 2)],
  ];
  process.stdout.write(`${info.kind}, ${info.partitions} partitions, ${vectors.length} questions\n`);
  for (let round = 1; round <= 2; round++) {
    for (const [name, run] of variants) {
      const times: number[] = [];
      for (const v of vectors) {
        const t0 = performance.now();
        await run(v);
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(1);
      process.stdout.write(`round ${round}  ${name.padEnd(32)} p50 ${at(0.5)} ms  p95 ${at(0.95)} ms\n`);
    }
  }
}

main(process.argv[2] ?? '/tmp/docs-rag-bench-search/n10000').catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
