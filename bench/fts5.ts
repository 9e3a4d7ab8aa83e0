// Plain SQLite FTS5 as a competitor would ship it, measured beside the engine in the same run (benchmarks and evaluation
// only: better-sqlite3 is a dev dependency, loaded lazily here and never from src/). One FTS5 table over the passages
// the engine ranks at its finest level (L2; a BEIR document is one such passage), tokenizer `unicode61
// remove_diacritics 2`, no stemming; a question becomes its words, each quoted, OR-ed, ranked by bm25().
//
//   npm run bench -- fts5 [--sets dev,scifact,...]   nDCG@10 of FTS5, bm25 and default per evaluation set, one run
import * as lancedb from '@lancedb/lancedb';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { GATE_SETS, measureGate } from '../src/rag/eval/gate';
import type { Retriever, RetrievalResult } from '../src/rag/search/types';
import { PASSAGE_COLUMNS, PASSAGES_TABLE, rowToPassage } from '../src/rag/store/schema';
import type { Passage } from '../src/rag/types';

/** The few better-sqlite3 calls used here (the package ships no types). */
interface Statement {
  run(...args: unknown[]): unknown;
  all(...args: unknown[]): Record<string, unknown>[];
}
interface Database {
  exec(sql: string): void;
  prepare(sql: string): Statement;
  transaction<T extends unknown[]>(fn: (...args: T) => void): (...args: T) => void;
  close(): void;
}

/** A question as an FTS5 query: every word (letters and digits) as a quoted string, OR-ed; '' when it has none. */
export function fts5Query(question: string): string {
  const words = question.normalize('NFC').match(/[\p{L}\p{M}\p{N}]+/gu) ?? [];
  return [...new Set(words.map((w) => w.toLowerCase()))].map((w) => `"${w.replace(/"/g, '""')}"`).join(' OR ');
}

export class Fts5Index {
  private readonly db: Database;
  private readonly insert: Statement;
  private readonly select: Statement;
  private readonly addMany: (passages: Passage[]) => void;
  count = 0;

  /** file: a SQLite file (a large corpus), else in memory. */
  constructor(file = ':memory:') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const Sqlite = require('better-sqlite3') as new (file: string) => Database;
    this.db = new Sqlite(file);
    this.db.exec(`CREATE VIRTUAL TABLE p USING fts5(title, text, id UNINDEXED, path UNINDEXED, loc UNINDEXED, tokenize = 'unicode61 remove_diacritics 2')`);
    this.insert = this.db.prepare('INSERT INTO p (title, text, id, path, loc) VALUES (?, ?, ?, ?, ?)');
    this.select = this.db.prepare('SELECT id, path, loc, title, text FROM p WHERE p MATCH ? ORDER BY bm25(p) LIMIT ?');
    this.addMany = this.db.transaction((passages: Passage[]) => {
      for (const x of passages) this.insert.run(x.title, x.text, x.id, x.path, JSON.stringify(x.loc));
    });
  }

  add(passages: Passage[]): void {
    this.addMany(passages);
    this.count += passages.length;
  }

  /** The best k passages for a question (id, path, location, title and text; the rest of a Passage left empty). */
  search(question: string, k: number): Passage[] {
    const q = fts5Query(question);
    if (!q) return [];
    return this.select.all(q, k).map((r) => ({
      id: r.id as string, path: r.path as string, loc: JSON.parse(r.loc as string) as Passage['loc'], title: r.title as string,
      text: r.text as string, fileHash: '', format: 'txt', level: 2, chunkPath: '', parentId: null, order: 0, headingPath: [],
      overlap: '', lang: 'other',
    }));
  }

  /** The index as a Retriever, so the evaluation runner judges it exactly as it judges the engine. */
  retriever(): Retriever {
    return {
      retrieve: async (query, o = {}): Promise<RetrievalResult> => {
        const t0 = performance.now();
        const hits = this.search(query, o.k ?? 10).map((passage, i) => ({ passage, score: -i }));
        const analysis = { query, lang: 'other' as const, type: 'factual' as const, multiHop: false, exactTokens: [], levels: [2 as const], flow: 'chunk' as const, alpha: 0 };
        return { hits, analysis, trace: [{ name: 'full-text', ms: performance.now() - t0 }], warnings: [] };
      },
    };
  }

  close(): void {
    this.db.close();
  }
}

/**
 * An FTS5 index over the L2 passages of the store in `storeDir`, read in batches straight from its LanceDB table (no
 * vectors read), so memory stays bounded on a large corpus. `file`: where SQLite keeps the table (default: memory).
 */
export async function fts5FromStore(storeDir: string, o: { file?: string; onProgress?: (n: number) => void } = {}): Promise<{ index: Fts5Index; ms: number }> {
  const t0 = performance.now();
  const index = new Fts5Index(o.file);
  const db = await lancedb.connect(path.resolve(storeDir));
  const table = await db.openTable(PASSAGES_TABLE);
  try {
    for await (const batch of table.query().where('level = 2').select(PASSAGE_COLUMNS)) {
      const cols = PASSAGE_COLUMNS.map((c) => [c, batch.getChild(c)] as const);
      const rows: Passage[] = [];
      for (let i = 0; i < batch.numRows; i++) rows.push(rowToPassage(Object.fromEntries(cols.map(([c, v]) => [c, v?.get(i) ?? null]))));
      index.add(rows);
      o.onProgress?.(index.count);
    }
  } finally {
    table.close();
    db.close();
  }
  return { index, ms: performance.now() - t0 };
}

/** The sets of the comparison: every gate set but the workspace-with-distractors copy (its FTS5 figure adds little). */
const EVAL_SETS = GATE_SETS.map((s) => s.name).filter((n) => n !== 'dev-scale');

export async function run(argv: string[]): Promise<void> {
  const { values } = parseArgs({ args: argv, options: { sets: { type: 'string' } }, allowPositionals: true });
  const sets = values.sets ? values.sets.split(',').map((s) => s.trim()) : EVAL_SETS;
  const shared = path.resolve(process.env.DOCS_RAG_SHARED ?? path.join(__dirname, '../../shared'));
  const open: Fts5Index[] = [];
  const m = await measureGate({
    shared,
    sets,
    extra: {
      fts5: async (engine) => {
        const { index } = await fts5FromStore(engine.store.dir);
        open.push(index);
        return index.retriever();
      },
    },
    onProgress: (l) => process.stderr.write(`${l}\n`),
  });
  for (const i of open) i.close();
  process.stdout.write(`\n## FTS5 beside the engine (nDCG@10, same run; command: npm run bench -- fts5 ${argv.join(' ')})\n\n`);
  process.stdout.write('| set | questions | SQLite FTS5 | bm25 | default | default - FTS5 |\n|---|---|---|---|---|---|\n');
  for (const [name, f] of Object.entries(m.sets)) {
    const fts = f.extra?.fts5 ?? 0;
    const d = f.default - fts;
    process.stdout.write(`| ${name} | ${f.queries} | ${fts.toFixed(3)} | ${f.bm25.toFixed(3)} | ${f.default.toFixed(3)} | ${d >= 0 ? '+' : ''}${d.toFixed(3)} |\n`);
  }
  process.stdout.write(`\n(${(m.ms / 1000).toFixed(0)} s)\n`);
}
