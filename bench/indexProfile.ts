// What a first build costs, step by step, with no pipeline around it: each per-file step of the parser workers
// (prepareFile.ts: read, hash, parse, chunk, links, word counts, builtin vectors) timed serially on this thread over all
// files of a folder, then the store's part (LanceDB appends in the run's batches of ~2,000 rows, then the keyword and
// scalar indexes as buildKeywordIndexes builds them) as CPU time of the whole process (LanceDB's threads included).
// The sum divided by the cores is a lower bound of the time to searchable that no scheduling can beat.
//
//   node --import tsx bench/indexProfile.ts <folder> [--rounds 3]   (medians of the rounds; the store part once per round)
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chunkDocument } from '../src/rag/chunk';
import { defaultConfig } from '../src/rag/config';
import { BUILTIN_DIMENSION, BuiltinEmbedder, embedBuiltin } from '../src/rag/embed';
import { embedderInfo } from '../src/rag/types';
import { formatOf } from '../src/rag/ingest/formats';
import { parseBytes } from '../src/rag/ingest/parseBytes';
import { sha256 } from '../src/rag/index/fileHash';
import { walkFolder } from '../src/rag/index/walk';
import { extractLinks, linkSource } from '../src/rag/links';
import { openStore } from '../src/rag/store';
import type { FileUpdate } from '../src/rag/store/types';
import { fileWordCounts } from '../src/rag/store/vocabulary';
import { embeddingText } from '../src/rag/text/compounds';

const STEPS = ['read', 'hash', 'parse', 'chunk', 'links', 'counts', 'embed'] as const;
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const folder = process.argv[2];
  const at = process.argv.indexOf('--rounds');
  const rounds = at > 0 ? Number(process.argv[at + 1]) : 3;
  if (!folder) throw new Error('usage: bench/indexProfile.ts <folder> [--rounds N]');
  const config = defaultConfig();
  const entries = await walkFolder(folder, { include: config.ingest.include, exclude: config.ingest.exclude });
  const times: Record<string, number[]> = Object.fromEntries([...STEPS, 'write', 'indexes'].map((s) => [s, []]));
  let passages = 0;
  for (let round = 0; round < rounds; round++) {
    const t: Record<string, number> = Object.fromEntries(STEPS.map((s) => [s, 0]));
    const updates: FileUpdate[] = [];
    passages = 0;
    for (const e of entries) {
      let a = performance.now();
      const lap = (step: string) => {
        const b = performance.now();
        t[step] += b - a;
        a = b;
      };
      const bytes = fs.readFileSync(e.abs);
      lap('read');
      const hash = sha256(bytes);
      lap('hash');
      let doc;
      try {
        doc = await parseBytes(bytes, formatOf(e.abs)!, e.abs, { enabled: false, languages: 'deu+eng', maxPages: 0 });
      } catch {
        continue;
      }
      lap('parse');
      const ps = chunkDocument(doc, { path: e.path, fileHash: hash }, config.chunk, { embedText: embedBuiltin });
      lap('chunk');
      const links = extractLinks(ps, { path: e.path, format: doc.format, raw: linkSource(bytes, doc.format), titles: doc.title ? [doc.title] : [] });
      lap('links');
      fileWordCounts(ps);
      lap('counts');
      // German passages too (the run embeds them on its main thread, with their compound parts).
      const vectors = ps.map((p) => embedBuiltin(embeddingText(p, 'builtin'), BUILTIN_DIMENSION));
      lap('embed');
      passages += ps.length;
      updates.push({ record: { path: e.path, size: e.size, mtimeMs: e.mtimeMs, hash, status: 'indexed', reason: '', passages: ps.length, pipelineKey: 'bench', indexedAt: Date.now() }, passages: ps, vectors, links });
    }
    for (const s of STEPS) times[s].push(t[s]);
    // The store's part, as a first run does it: appends in batches of ≥ 2,000 rows (batchWriter.ts), the keyword indexes
    // after the first batch, then indexForSearch. CPU of the whole process: LanceDB works on its own threads.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-profile-'));
    const store = await openStore(dir);
    await store.useEmbedder(embedderInfo(new BuiltinEmbedder()));
    let c0 = cpu();
    let batch: FileUpdate[] = [];
    let rows = 0;
    let first = true;
    for (const u of [...updates, null]) {
      if (u) {
        batch.push(u);
        rows += u.passages.length;
      }
      if ((u && rows < 2000 && batch.length < 200) || batch.length === 0) continue;
      await store.addNewFiles(batch);
      if (first) await store.ensureIndexes({ vector: false });
      first = false;
      batch = [];
      rows = 0;
    }
    times.write.push(cpu() - c0);
    c0 = cpu();
    await store.buildKeywordIndexes();
    times.indexes.push(cpu() - c0);
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const med = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, Math.round(median(v))]));
  const perFile = STEPS.reduce((s, k) => s + med[k], 0);
  const store = med.write + med.indexes;
  const cores = os.availableParallelism();
  console.log(`${entries.length} files, ${passages} passages; median of ${rounds} rounds, ms (the store's: CPU of all threads)`);
  console.log(JSON.stringify(med));
  console.log(`per-file steps ${perFile} (of which read + parse ${med.read + med.parse}), store ${store}; ` +
    `all of it spread perfectly over ${cores} cores: ${Math.round((perFile + store) / cores)} ms`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
