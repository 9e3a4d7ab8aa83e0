// What each part of optimize() costs in memory on an existing index: run ONE step per process on a copy of a store and
// read the process's peak resident memory (VmHWM). Steps: fts_en, fts_de (full-text index rebuild), vector (IVF_FLAT
// training, sqrt(n)/4 partitions as the store does), optimize (compaction + index update + cleanup), none (open only).
// Usage: node --import tsx bench/optimizeSteps.ts <copy of a store> <step>
import * as fs from 'node:fs';
import * as lancedb from '@lancedb/lancedb';
import { ftsConfig } from '../src/rag/store/lanceStore';

async function main(): Promise<void> {
  const [store, step = 'none'] = process.argv.slice(2);
  if (!store) throw new Error('usage: bench/optimizeSteps.ts <store copy> <fts_en|fts_de|vector|optimize|none>');
  const db = await lancedb.connect(store);
  const table = await db.openTable('passages');
  const rows = await table.countRows();
  const rssAfterOpen = process.memoryUsage().rss >> 20;
  const t0 = Date.now();
  if (step === 'fts_en') await table.createIndex('fts_en', { config: ftsConfig('en'), replace: true });
  else if (step === 'fts_de') await table.createIndex('fts_de', { config: ftsConfig('de'), replace: true });
  else if (step === 'vector') {
    await table.createIndex('vector', { config: lancedb.Index.ivfFlat({ distanceType: 'cosine', numPartitions: Math.max(2, Math.round(Math.sqrt(rows) / 4)) }), replace: true });
  } else if (step === 'optimize') await table.optimize({ cleanupOlderThan: new Date() });
  else if (step !== 'none') throw new Error(`unknown step ${step}`);
  const peak = Math.round(Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) / 1024);
  console.log(JSON.stringify({ step, rows, 'rss after open MB': rssAfterOpen, 'peak MB': peak, ms: Date.now() - t0 }));
  table.close();
  db.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
