// Loaders for evaluation inputs: the workspace question format (JSON Lines) and the BEIR layout.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Evidence } from './match';

export interface WorkspaceQuery {
  id: string;
  query: string;
  lang: string;
  category: string;
  style: string;
  relevant: Evidence[];
  answer?: string;
  keyFacts?: string[];
}

/** Reads a workspace question file; a malformed line is an error naming the line. */
export function loadWorkspaceQueries(file: string): WorkspaceQuery[] {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const out: WorkspaceQuery[] = [];
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    let q: WorkspaceQuery;
    try {
      q = JSON.parse(line) as WorkspaceQuery;
    } catch (err) {
      throw new Error(`${file}:${i + 1}: not valid JSON (${err instanceof Error ? err.message : String(err)})`);
    }
    if (typeof q.query !== 'string' || !Array.isArray(q.relevant) || q.relevant.length === 0) {
      throw new Error(`${file}:${i + 1}: a question needs "query" and a non-empty "relevant" list (see FORMAT.md)`);
    }
    out.push({ ...q, id: q.id ?? `q${i + 1}`, lang: q.lang ?? 'other', category: q.category ?? 'unknown', style: q.style ?? 'unknown' });
  });
  return out;
}

export interface BeirDoc {
  id: string;
  title: string;
  text: string;
}
export interface BeirSet {
  name: string;
  corpus: BeirDoc[];
  queries: { id: string; text: string }[];
  /** query id → doc id → grade (> 0 only). */
  qrels: Map<string, Map<string, number>>;
}

/** Reads corpus.jsonl, queries.jsonl and qrels/test.tsv; only queries with judgments are kept. */
export function loadBeir(dir: string, qrelsFile = 'qrels/test.tsv'): BeirSet {
  const readJsonl = (f: string) =>
    fs
      .readFileSync(path.join(dir, f), 'utf8')
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const corpus = readJsonl('corpus.jsonl').map((d) => ({ id: String(d._id), title: String(d.title ?? ''), text: String(d.text ?? '') }));
  const qrels = new Map<string, Map<string, number>>();
  const tsv = fs.readFileSync(path.join(dir, qrelsFile), 'utf8').split('\n');
  for (const [i, line] of tsv.entries()) {
    if (!line.trim() || (i === 0 && /query-id/i.test(line))) continue;
    const [q, d, s] = line.split('\t');
    const grade = Number(s);
    if (!(grade > 0)) continue;
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q)!.set(d, grade);
  }
  const queries = readJsonl('queries.jsonl')
    .map((q) => ({ id: String(q._id), text: String(q.text ?? '') }))
    .filter((q) => qrels.has(q.id));
  return { name: path.basename(path.resolve(dir)), corpus, queries, qrels };
}
