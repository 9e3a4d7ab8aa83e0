// Chunking throughput on the shared eval workspace (Markdown, PDF, DOCX), against the time the loaders took.
// Run: node --import tsx bench/chunk.ts [rounds] [structural|semantic]
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chunkDocument } from '../src/rag/chunk';
import { defaultConfig } from '../src/rag/config';
import { embedBuiltin } from '../src/rag/embed';
import { formatOf } from '../src/rag/ingest';
import { parseBytes } from '../src/rag/ingest/parseBytes';
import type { ParsedDocument } from '../src/rag/types';

const SHARED = process.env.DOCS_RAG_SHARED ?? path.resolve(__dirname, '../../shared');
const ROOT = path.join(SHARED, 'eval/workspace');

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : [p];
  });
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 5);
  const strategy = (process.argv[3] ?? 'structural') as 'structural' | 'semantic';
  const docs: { rel: string; doc: ParsedDocument }[] = [];
  const t0 = process.hrtime.bigint();
  for (const f of files(ROOT).sort()) {
    const format = formatOf(f);
    if (!format || /\.(jsonl)$|FORMAT\.md$|SOURCES\.md$/.test(f)) continue;
    docs.push({ rel: path.relative(ROOT, f), doc: await parseBytes(fs.readFileSync(f), format, path.basename(f)) });
  }
  const parseMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const chars = docs.reduce((n, d) => n + d.doc.blocks.reduce((m, b) => m + b.text.length, 0), 0);
  const config = { ...defaultConfig().chunk, strategy };
  const times: number[] = [];
  let passages = 0;
  for (let r = 0; r < rounds; r++) {
    const t = process.hrtime.bigint();
    passages = 0;
    for (const { rel, doc } of docs) passages += chunkDocument(doc, { path: rel, fileHash: 'x' }, config, { embedText: embedBuiltin }).length;
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    console.log(`round ${r + 1}: ${times[r].toFixed(0)} ms`);
  }
  times.sort((a, b) => a - b);
  const med = times[Math.floor(times.length / 2)];
  console.log(
    `${strategy}: ${docs.length} documents, ${(chars / 1e6).toFixed(2)} M chars, ${passages} passages; ` +
      `chunking median ${med.toFixed(0)} ms (${(chars / 1e3 / med).toFixed(2)} M chars/s); parsing (in-process, once) ${parseMs.toFixed(0)} ms`,
  );
}

void main();
