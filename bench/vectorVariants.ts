// What a vector search of the store costs by what it asks LanceDB for, and what it gives up against the scan: the store's
// query (all partitions, the passages' columns, the level filter) at refine factors 4 and 2, and ids and distances only,
// each timed and compared with the exact scan's hits (hits lost of all, and of the scan's top 10). Builtin embedder,
// k = 80 (the default's candidates per list), two rounds.
//   npm run bench -- search --sizes 10000   (builds /tmp/docs-rag-bench-search/n10000), then
//   node --import tsx bench/vectorVariants.ts /tmp/docs-rag-bench-search/n10000 [questions.jsonl]
// (default questions: SciFact's first 60; any JSONL with a `text` or `query` field, e.g. for the scale store
// `../shared/eval/workspace/queries-dev.jsonl`).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { embedBuiltin } from '../src/rag/embed/builtin';
import { PASSAGE_COLUMNS } from '../src/rag/store/schema';

const SHARED = process.env.DOCS_RAG_SHARED ?? path.resolve(__dirname, '../../shared');
const K = 80;

async function main(dir: string, questionsFile: string): Promise<void> {
  const info = JSON.parse(fs.readFileSync(path.join(dir, 'vector-index.json'), 'utf8')) as { partitions: number; kind: string };
  const db = await lancedb.connect(dir);
  const table = await db.openTable('passages');
  const questions = fs.readFileSync(questionsFile, 'utf8').split('\n').filter(Boolean).slice(0, 60);
  const vectors = questions.map((l) => {
    const q = JSON.parse(l) as { text?: string; query?: string };
    return embedBuiltin(q.text ?? q.query ?? '');
  });
  const where = 'vectorPending = false AND level IN (1, 2)';
  const search = (v: Float32Array, columns: string[], refine: number) =>
    table.vectorSearch(v).distanceType('cosine').select(columns).nprobes(info.partitions).refineFactor(refine).where(where).limit(K).toArray();
  // The levels filtered after the search, from twice the hits, as the retriever does for a flat search.
  const post = async (v: Float32Array, refine: number) =>
    (await table.vectorSearch(v).distanceType('cosine').select(['id', 'level', '_distance']).nprobes(info.partitions).refineFactor(refine).where('vectorPending = false').limit(2 * K).toArray())
      .filter((r) => Number(r.level) !== 0)
      .slice(0, K);
  const exact: string[][] = [];
  for (const v of vectors) exact.push((await table.vectorSearch(v).distanceType('cosine').bypassVectorIndex().select(['id']).where(where).limit(K).toArray()).map((r) => r.id as string));
  const variants: [string, (v: Float32Array) => Promise<Record<string, unknown>[]>][] = [
    ['passages, refine 4', (v) => search(v, [...PASSAGE_COLUMNS, '_distance'], 4)],
    ['passages, refine 2', (v) => search(v, [...PASSAGE_COLUMNS, '_distance'], 2)],
    ['ids, refine 4', (v) => search(v, ['id', 'level', '_distance'], 4)],
    ['ids, refine 2', (v) => search(v, ['id', 'level', '_distance'], 2)],
    ['ids, 2k, levels after, refine 4', (v) => post(v, 4)],
    ['ids, no filter, refine 4', (v) => table.vectorSearch(v).distanceType('cosine').select(['id', 'level', '_distance']).nprobes(info.partitions).refineFactor(4).limit(K).toArray()],
    ['ids, level only, refine 4', (v) => table.vectorSearch(v).distanceType('cosine').select(['id', 'level', '_distance']).nprobes(info.partitions).refineFactor(4).where('level IN (1, 2)').limit(K).toArray()],
    ['ids, no filter, refine 2', (v) => table.vectorSearch(v).distanceType('cosine').select(['id', 'level', '_distance']).nprobes(info.partitions).refineFactor(2).limit(K).toArray()],
  ];
  process.stdout.write(`${info.kind}, ${info.partitions} partitions, ${vectors.length} questions, k = ${K}\n`);
  for (let round = 1; round <= 2; round++) {
    for (const [name, run] of variants) {
      const times: number[] = [];
      let lost = 0;
      let lostTop10 = 0;
      for (const [i, v] of vectors.entries()) {
        const t0 = performance.now();
        const rows = await run(v);
        times.push(performance.now() - t0);
        const got = new Set(rows.map((r) => r.id as string));
        lost += exact[i].filter((id) => !got.has(id)).length;
        lostTop10 += exact[i].slice(0, 10).filter((id) => !got.has(id)).length;
      }
      times.sort((a, b) => a - b);
      const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(1);
      const total = exact.reduce((n, e) => n + e.length, 0);
      process.stdout.write(`round ${round}  ${name.padEnd(22)} p50 ${at(0.5)} ms  p95 ${at(0.95)} ms  scan's hits lost ${lost} of ${total} (top 10: ${lostTop10})\n`);
    }
  }
}

main(process.argv[2] ?? '/tmp/docs-rag-bench-search/n10000', process.argv[3] ?? path.join(SHARED, 'eval/scifact/queries.jsonl')).catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
