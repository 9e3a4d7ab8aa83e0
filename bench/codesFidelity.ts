// How far the default's results over a 'codes' store (the builtin embedder's, store/vectorCodes.ts) are from those
// of an exact vector list: every question is retrieved twice through the real engine, once as the store searches
// (sign bits choose codeCandidates candidates, their codes rank them) and once with the vector list ranked over every
// row's codes, and the top 10 are compared (ids that differ, questions with any difference, first hits that differ).
//   node --import tsx bench/codesFidelity.ts <indexed folder> [questions.jsonl …]
// e.g. after `npm run bench -- scale --folder /tmp/scale`: bench/codesFidelity.ts /tmp/scale/gesetze (default
// questions: the workspace's dev and cross-language questions, whose laws the scale corpus holds). Holds every row's
// codes in memory (about 1 KB per passage).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openEngine } from '../src/rag/engine';
import { createRetriever } from '../src/rag/search';
import { detectLanguage } from '../src/rag/text/language';
import * as lancedb from '@lancedb/lancedb';
import { rowsWithBytes } from '../src/rag/store/arrowRows';
import { codeDot, queryCode } from '../src/rag/store/vectorCodes';
import type { IndexStore, VectorHitId, VectorOptions } from '../src/rag/store/types';
import type { Level } from '../src/rag/types';

const SHARED = process.env.DOCS_RAG_SHARED ?? path.resolve(__dirname, '../../shared');

async function main(folder: string, files: string[]): Promise<void> {
  const questions = files.flatMap((f) =>
    fs.readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => {
      const q = JSON.parse(l) as { text?: string; query?: string };
      return q.text ?? q.query ?? '';
    }),
  );
  const engine = await openEngine({ folder, readOnly: true });
  try {
    if (engine.store.meta()?.embedder.vectorLayout !== 'codes') throw new Error(`${folder}'s index does not store codes (the builtin embedder's layout).`);
    const retriever = createRetriever(engine, { config: 'default', detect: detectLanguage });
    const top = async () => {
      const out: string[][] = [];
      for (const q of questions) out.push((await retriever.retrieve(q, { k: 10 })).hits.map((h) => h.passage.id));
      return out;
    };
    const stored = await top();
    const table = await (await lancedb.connect(engine.storeDir)).openTable('passages');
    const read = rowsWithBytes(await table.query().where('vectorPending = false').select(['id', 'level', 'vectorCodes', 'vectorScale']).toArrow(), ['id', 'level', 'vectorScale'], 'vectorCodes');
    const rows = read.map(({ row, bytes }) => ({ id: String(row.id), level: Number(row.level), scale: Number(row.vectorScale), codes: bytes }));
    table.close();
    const store = engine.store as IndexStore;
    store.vectorSearchIds = async (v: Float32Array, o: VectorOptions): Promise<VectorHitId[]> => {
      const q = queryCode(v);
      const levels = o.levels ? new Set<number>(o.levels) : null;
      return rows
        .filter((r) => !levels || levels.has(r.level))
        .map((r) => ({ id: r.id, level: r.level as Level, score: codeDot(q.rotated, r.codes, r.scale) }))
        .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
        .slice(0, o.k);
    };
    const exact = await top();
    let ids = 0;
    let changed = 0;
    let first = 0;
    for (const [i, e] of exact.entries()) {
      const got = new Set(stored[i]);
      const d = e.filter((id) => !got.has(id)).length;
      ids += d;
      if (d > 0) changed++;
      if (e[0] !== stored[i][0]) first++;
    }
    process.stdout.write(`${rows.length} rows, ${questions.length} questions: top-10 ids that differ ${ids} of ${questions.length * 10}, questions with any difference ${changed}, first hit different ${first}\n`);
  } finally {
    await engine.close();
  }
}

const [folder, ...files] = process.argv.slice(2);
if (!folder) {
  process.stderr.write('usage: node --import tsx bench/codesFidelity.ts <indexed folder> [questions.jsonl …]\n');
  process.exit(2);
}
main(folder, files.length > 0 ? files : ['queries-dev.jsonl', 'queries-crosslang-dev.jsonl'].map((f) => path.join(SHARED, 'eval/workspace', f))).catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
