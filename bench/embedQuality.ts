// Dense-only retrieval quality of the builtin embedder on the BEIR-format sets in shared/eval
// (brute-force cosine over all documents; no BM25, no reranking), to tune and to document what it adds.
// Run: node --import tsx bench/embedQuality.ts [set ...]   (default: xquad-de scifact cisi)
import * as fs from 'node:fs';
import * as path from 'node:path';
import { embedBuiltin } from '../src/rag/embed/builtin';

const SHARED = process.env.DOCS_RAG_SHARED ?? path.resolve(__dirname, '../../shared');

function jsonl(file: string): any[] {
  return fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

function evaluate(set: string): { ndcg: number; recall: number; queries: number; docs: number; ms: number } {
  const dir = path.join(SHARED, 'eval', set);
  const corpus = jsonl(path.join(dir, 'corpus.jsonl'));
  const qrels = new Map<string, Map<string, number>>();
  for (const line of fs.readFileSync(path.join(dir, 'qrels/test.tsv'), 'utf8').trim().split('\n').slice(1)) {
    const [q, d, s] = line.split('\t');
    if (Number(s) <= 0) continue;
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q)!.set(d, Number(s));
  }
  const queries = jsonl(path.join(dir, 'queries.jsonl')).filter((q) => qrels.has(q._id));
  const t0 = Date.now();
  const docVecs = corpus.map((d) => embedBuiltin(`${d.title ?? ''}\n${d.text}`));
  const ms = Date.now() - t0;
  let ndcgSum = 0;
  let recallSum = 0;
  for (const q of queries) {
    const qv = embedBuiltin(q.text);
    const scores = docVecs.map((v, i) => {
      let s = 0;
      for (let k = 0; k < v.length; k++) s += v[k] * qv[k];
      return [s, i] as const;
    });
    scores.sort((a, b) => b[0] - a[0]);
    const rel = qrels.get(q._id)!;
    let dcg = 0;
    let found = 0;
    scores.slice(0, 10).forEach(([, i], rank) => {
      const g = rel.get(corpus[i]._id) ?? 0;
      if (g > 0) {
        dcg += (2 ** g - 1) / Math.log2(rank + 2);
        found++;
      }
    });
    const ideal = [...rel.values()].sort((a, b) => b - a).slice(0, 10).reduce((s, g, r) => s + (2 ** g - 1) / Math.log2(r + 2), 0);
    ndcgSum += ideal > 0 ? dcg / ideal : 0;
    recallSum += found / Math.min(10, rel.size);
  }
  return { ndcg: ndcgSum / queries.length, recall: recallSum / queries.length, queries: queries.length, docs: corpus.length, ms };
}

for (const set of process.argv.slice(2).length ? process.argv.slice(2) : ['xquad-de', 'scifact', 'cisi']) {
  const r = evaluate(set);
  console.log(`${set}: nDCG@10 ${r.ndcg.toFixed(3)}  Recall@10 ${r.recall.toFixed(3)}  (${r.queries} queries, ${r.docs} docs embedded in ${r.ms} ms)`);
}
