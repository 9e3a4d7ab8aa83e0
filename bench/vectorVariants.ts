// What a vector search of a 'codes' store (the builtin embedder's, store/vectorCodes.ts) costs by what it asks LanceDB
// for, and what it gives up against ranking every row by its codes: the Hamming search of all partitions for ids alone,
// and with the codes of 2k, 4k, the store's number (codeCandidates) and 32k candidates ranked as the store ranks them, each timed and compared with the codes'
// ranking of every row (hits lost of all, and of its top 10). k = 80 (the default's candidates per list), two rounds.
//   npm run bench -- search --sizes 10000   (builds /tmp/docs-rag-bench-search/n10000), then
//   node --import tsx bench/vectorVariants.ts /tmp/docs-rag-bench-search/n10000 [questions.jsonl]
// (default questions: SciFact's first 60; any JSONL with a `text` or `query` field, e.g. for the scale store
// `../shared/eval/workspace/queries-dev.jsonl`).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { embedBuiltin } from '../src/rag/embed/builtin';
import { rowsWithBytes } from '../src/rag/store/arrowRows';
import { codeCandidates, codeDot, queryCode } from '../src/rag/store/vectorCodes';

const SHARED = process.env.DOCS_RAG_SHARED ?? path.resolve(__dirname, '../../shared');
const K = 80;
const WHERE = 'vectorPending = false AND level IN (1, 2)';

type Query = ReturnType<typeof queryCode>;

/** The k best of rows with codes by the query's dot product, as the store ranks its candidates. */
function rank(q: Query, rows: { row: Record<string, unknown>; bytes: Uint8Array }[]): string[] {
  return rows
    .map(({ row, bytes }) => ({ id: String(row.id), score: codeDot(q.rotated, bytes, Number(row.vectorScale)) }))
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, K)
    .map((r) => r.id);
}

async function main(dir: string, questionsFile: string): Promise<void> {
  const info = JSON.parse(fs.readFileSync(path.join(dir, 'vector-index.json'), 'utf8')) as { partitions: number; kind: string; rows: number };
  if (info.kind !== 'ivf_bits') throw new Error(`${dir} has a ${info.kind} vector index; this bench measures the builtin embedder's codes (ivf_bits).`);
  const table = await (await lancedb.connect(dir)).openTable('passages');
  const questions = fs.readFileSync(questionsFile, 'utf8').split('\n').filter(Boolean).slice(0, 60);
  const queries = questions.map((l) => {
    const q = JSON.parse(l) as { text?: string; query?: string };
    return queryCode(embedBuiltin(q.text ?? q.query ?? ''));
  });
  const everyRow = rowsWithBytes(await table.query().where(WHERE).select(['id', 'vectorCodes', 'vectorScale']).toArrow(), ['id', 'vectorScale'], 'vectorCodes');
  const exact = queries.map((q) => rank(q, everyRow));
  const hamming = (q: Query, columns: string[], limit: number) =>
    table.vectorSearch(q.bits).column('vector').distanceType('hamming' as 'l2').select(columns).nprobes(info.partitions).where(WHERE).limit(limit).toArrow();
  const ranked = async (q: Query, candidates: number) => rank(q, rowsWithBytes(await hamming(q, ['id', 'level', 'vectorCodes', 'vectorScale', '_distance'], candidates), ['id', 'vectorScale'], 'vectorCodes'));
  const stored = codeCandidates(K, info.rows);
  const variants: [string, (q: Query) => Promise<string[]>][] = [
    ['ids alone, 4k', async (q) => (await hamming(q, ['id', '_distance'], 4 * K)).getChild('id')!.toArray().slice(0, K) as string[]],
    ['codes of 2k, ranked', (q) => ranked(q, 2 * K)],
    ['codes of 4k, ranked', (q) => ranked(q, 4 * K)],
    [`the store's ${stored}, ranked`, (q) => ranked(q, stored)],
    ['codes of 32k, ranked', (q) => ranked(q, 32 * K)],
  ];
  process.stdout.write(`${info.kind}, ${info.partitions} partitions, ${everyRow.length} rows, ${queries.length} questions, k = ${K}\n`);
  for (let round = 1; round <= 2; round++) {
    for (const [name, run] of variants) {
      const times: number[] = [];
      let lost = 0;
      let lostTop10 = 0;
      for (const [i, q] of queries.entries()) {
        const t0 = performance.now();
        const got = new Set(await run(q));
        times.push(performance.now() - t0);
        lost += exact[i].filter((id) => !got.has(id)).length;
        lostTop10 += exact[i].slice(0, 10).filter((id) => !got.has(id)).length;
      }
      times.sort((a, b) => a - b);
      const at = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(1);
      const total = exact.reduce((n, e) => n + e.length, 0);
      process.stdout.write(`round ${round}  ${name.padEnd(20)} p50 ${at(0.5)} ms  p95 ${at(0.95)} ms  hits lost ${lost} of ${total} (top 10: ${lostTop10})\n`);
    }
  }
}

main(process.argv[2] ?? '/tmp/docs-rag-bench-search/n10000', process.argv[3] ?? path.join(SHARED, 'eval/scifact/queries.jsonl')).catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
