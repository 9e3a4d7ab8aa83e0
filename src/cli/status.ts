// docs-rag status --folder <folder>: what the index holds, which embedder built it, the last run, and per-file problems.
import * as fs from 'node:fs';
import { isAlive } from '../rag/index/writerLock';
import { describeVectorSearch, openStore, readVectorIndexInfo, type VectorIndexInfo } from '../rag/store';
import { META_FILE } from '../rag/store/meta';
import type { IndexMeta, IndexStore } from '../rag/store/types';
import type { LinkKind } from '../rag/types';
import { DEFAULT_EXCLUDE, DEFAULT_INCLUDE, readRecordedSettings, recordedSettings, type RecordedSettings } from '../rag/config';
import { mergeConfig } from '../rag/engine';
import { parse, printJson, requireFolder, resolveStore } from './common';
import { printableName, printableText } from '../rag/text/printable';
import * as path from 'node:path';

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, { folder: { type: 'string' }, store: { type: 'string' }, json: { type: 'boolean' } });
  const folder = requireFolder(values.folder);
  const storeDir = resolveStore(folder, values.store);
  if (!fs.existsSync(path.join(storeDir, META_FILE))) {
    const msg = `No index at ${storeDir}. Build it with: docs-rag index ${folder}`;
    if (values.json) printJson({ indexed: false, store: storeDir, message: msg });
    else process.stderr.write(`docs-rag: ${msg}\n`);
    return values.json ? 0 : 1;
  }
  const store = await openStore(storeDir);
  try {
    const report = await statusReport(store, folder, storeDir);
    const { files: byStatus, passages, problems, embedder, lastRun } = report;
    if (values.json) {
      printJson(report);
      return 0;
    }
    const lines = [
      `Index: ${storeDir}`,
      `Files: ${byStatus.total} (${byStatus.indexed} indexed, ${byStatus.skipped} skipped, ${byStatus.error} errors)`,
      `Passages: ${passages.total} (L0 documents ${passages.L0}, L1 sections ${passages.L1}, L2 passages ${passages.L2})`,
      `Links: ${report.links} (${Object.entries(report.linksByKind).map(([k, n]) => `${k} ${n}`).join(', ')}; ${report.unresolvedLinks} not resolved: target not in the index)`,
      `Embedder: ${embedder ? `${embedder.id}:${embedder.model} (dimension ${embedder.dimension})` : 'none'}`,
      `Vector search: ${describeVectorSearch(report.vectorIndex, report.passages.total)}`,
      `Vectors: ${report.vectors.filled} of ${report.vectors.total}${report.vectors.filled < report.vectors.total ? ` (keyword search covers every passage; ${report.running ? 'the running index run fills the rest' : `the next run fills the rest: docs-rag index ${folder}`})` : ''}`,
      `Last run: ${lastRun ? `${new Date(lastRun.finishedAt).toISOString()} (${((lastRun.finishedAt - lastRun.startedAt) / 1000).toFixed(1)} s, ${lastRun.errors} problems)` : 'never'}`,
    ];
    if (report.settings) lines.push(`Settings: ${describeSettings(report.settings)} (runs and docs-rag mcp without flags keep them)`);
    if (lastRun?.ignored) lines.push(`Left out by .gitignore / .ignore files at the last walk: ${lastRun.ignored} document(s) and folder(s) (docs-rag index --no-ignore-files indexes them).`);
    if (report.running) lines.push(`An index run is in progress (pid ${report.running.pid}).`);
    if (report.interrupted) lines.push(`The last run did not finish (killed?). The next run repairs the index: docs-rag index ${folder}`);
    if (problems.length > 0) {
      lines.push('Not indexed:');
      for (const p of problems) lines.push(`  ${printableName(p.path)}: ${printableText(p.reason)}`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    await store.close();
  }
}

/** One line of what the last run's settings were. */
export function describeSettings(s: RecordedSettings): string {
  const { ingest, enrich } = s;
  const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
  const parts = [
    ingest.useIgnoreFiles ? 'ignore files honoured' : 'ignore files not honoured (--no-ignore-files)',
    ingest.followExternalSymlinks ? 'links out of the folder followed' : 'links out of the folder skipped',
    ingest.ocr?.enabled === false ? 'OCR off' : `OCR on (${ingest.ocr?.languages}, at most ${ingest.ocr?.maxPages} pages a file)`,
    `parse timeout ${Math.round(ingest.parseTimeoutMs / 1000)} s`,
    enrich ? `enrichment ${[enrich.contextual && 'contextual', enrich.summaries && 'summaries'].filter(Boolean).join(' + ')}${enrich.model ? ` (${enrich.model})` : ''}` : 'no enrichment',
  ];
  if (!same(ingest.include, DEFAULT_INCLUDE) || !same(ingest.exclude, DEFAULT_EXCLUDE)) parts.push('own include / exclude patterns');
  return parts.join(', ');
}

export interface StatusReport {
  indexed: true;
  folder: string;
  store: string;
  files: { total: number; indexed: number; skipped: number; error: number };
  passages: { total: number; L0: number; L1: number; L2: number };
  /** Passages with their vector, of all (a slow embedder's vectors are filled after the text is written). */
  vectors: { filled: number; total: number };
  /** The last vector-index build (its partitions, all searched; mode 'exact' only from versions before 2026-11-27); null when none was trained. */
  vectorIndex: VectorIndexInfo | null;
  /** Edges of the reference graph that resolve now (both ends in the index), by kind; 0 for a store built before links. */
  links: number;
  linksByKind: Record<LinkKind, number>;
  /** Stored references whose target is not in the index (a § of a law not indexed, a link to a missing file). */
  unresolvedLinks: number;
  embedder: IndexMeta['embedder'] | null;
  schemaVersion: number | null;
  lastRun: IndexMeta['lastRun'] | null;
  /** The settings the last run recorded (null: built by a version before they were recorded). */
  settings: RecordedSettings | null;
  running: IndexMeta['runInProgress'] | null;
  interrupted: boolean;
  problems: { path: string; status: string; reason: string }[];
}

/** What `docs-rag status --json` prints for an existing index (also the MCP `status` tool). */
export async function statusReport(store: IndexStore, folder: string, storeDir: string): Promise<StatusReport> {
  const meta = store.meta();
  const records = await store.listFiles();
  const byStatus = { indexed: 0, skipped: 0, error: 0 };
  for (const r of records) byStatus[r.status]++;
  const passages = {
    total: await store.countPassages(),
    L0: await store.countPassages({ levels: [0] }),
    L1: await store.countPassages({ levels: [1] }),
    L2: await store.countPassages({ levels: [2] }),
  };
  const vectors = store.vectorCounts ? await store.vectorCounts() : { filled: passages.total, total: passages.total };
  const graph = (await store.linkCounts?.()) ?? null;
  const problems = records.filter((r) => r.status !== 'indexed').map((r) => ({ path: r.path, status: r.status, reason: r.reason }));
  return {
    indexed: true,
    folder,
    store: storeDir,
    files: { total: records.length, ...byStatus },
    passages,
    vectors,
    vectorIndex: readVectorIndexInfo(storeDir),
    links: graph?.links ?? 0,
    linksByKind: graph?.byKind ?? { link: 0, reference: 0, name: 0, definition: 0 },
    unresolvedLinks: graph?.unresolved ?? 0,
    embedder: meta?.embedder ?? null,
    schemaVersion: meta?.schemaVersion ?? null,
    lastRun: meta?.lastRun ?? null,
    // What a run without flags uses: the recorded settings (their well-formed part), the defaults for the rest.
    settings: meta?.settings ? recordedSettings(mergeConfig({}, readRecordedSettings(meta.settings))) : null,
    running: meta?.runInProgress && isAlive(meta.runInProgress.pid) ? meta.runInProgress : null,
    interrupted: !!meta?.runInProgress && !isAlive(meta.runInProgress.pid),
    problems,
  };
}
