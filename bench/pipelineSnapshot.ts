// Output snapshot of the per-file pipeline (parse → chunk → links → word counts → builtin vectors → compound parts),
// one line per file with hashes, to check that a speed change leaves every output identical.
// Usage: node --import tsx bench/pipelineSnapshot.ts <out.txt> <folder>... [--limit N]; compare two outputs with cmp.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chunkDocument } from '../src/rag/chunk';
import { defaultConfig } from '../src/rag/config';
import { embedBuiltin } from '../src/rag/embed';
import { parseBytes } from '../src/rag/ingest/parseBytes';
import { formatOf } from '../src/rag/ingest/formats';
import { extractLinks, linkSource } from '../src/rag/links';
import { fileWordCounts, Vocabulary } from '../src/rag/store/vocabulary';
import { annotateCompounds, embeddingText } from '../src/rag/text/compounds';
import { walkFolder } from '../src/rag/index/walk';

async function main() {
  const [out, ...rest] = process.argv.slice(2);
  const li = rest.indexOf('--limit');
  const limit = li >= 0 ? Number(rest[li + 1]) : Infinity;
  const folders = li >= 0 ? rest.slice(0, li) : rest;
  const config = defaultConfig();
  const lines: string[] = [];
  const vocab = new Vocabulary();
  const t0 = performance.now();
  for (const folder of folders) {
    const entries = (await walkFolder(folder, { include: config.ingest.include, exclude: config.ingest.exclude })).slice(0, limit);
    for (const e of entries) {
      const bytes = fs.readFileSync(e.abs);
      const format = formatOf(e.abs);
      const h = createHash('sha256');
      try {
        const doc = await parseBytes(bytes, format!, e.abs, { enabled: false, languages: 'deu+eng', maxPages: 0 } as never);
        const passages = chunkDocument(doc, { path: e.path, fileHash: 'x' }, config.chunk, { embedText: embedBuiltin });
        const links = extractLinks(passages, { path: e.path, format: doc.format, raw: linkSource(bytes, doc.format), titles: doc.title ? [doc.title] : [] });
        const counts = fileWordCounts(passages);
        vocab.add(counts);
        annotateCompounds(passages, vocab);
        h.update(JSON.stringify(passages)).update(JSON.stringify(links)).update(JSON.stringify([...counts]));
        for (const p of passages) h.update(Buffer.from(embedBuiltin(embeddingText(p, 'builtin'), 1024).buffer));
        lines.push(`${path.basename(folder)}/${e.path} ${passages.length} ${links.length} ${h.digest('hex').slice(0, 16)}`);
      } catch (err) {
        lines.push(`${path.basename(folder)}/${e.path} ERR ${(err as Error).message.slice(0, 80)}`);
      }
    }
  }
  fs.writeFileSync(out, lines.join('\n') + '\n');
  console.log(`${lines.length} files in ${Math.round(performance.now() - t0)} ms`);
}
main();
