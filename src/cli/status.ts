// docs-rag status --folder <folder>: what the index holds, which embedder built it, the last run, and per-file problems.
import * as fs from 'node:fs';
import { describeVectorSearch, openStore } from '../rag/store';
import { META_FILE } from '../rag/store/meta';
import { DEFAULT_EXCLUDE, DEFAULT_INCLUDE, type RecordedSettings } from '../rag/config';
import { statusReport } from '../rag/status';
import { parse, printJson, indexedFolder, resolveStore } from './common';
import { looksLikeUri } from '../rag/store/remote';
import { indexCommandLine, printableName, printableText } from '../rag/text/printable';
import * as path from 'node:path';

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, { folder: { type: 'string' }, store: { type: 'string' }, json: { type: 'boolean' } });
  const folder = indexedFolder(values.folder, values.store);
  const storeDir = resolveStore(folder, values.store);
  // The repair and build hints name the same store as this command: without --store they would build a second index.
  const indexCommand = (...flags: string[]) => [indexCommandLine(folder, values.store && storeDir), ...flags].join(' ');
  // A remote store is opened to know (its small files come into their mirror), a local one is not created by asking.
  const remote = looksLikeUri(storeDir);
  const store = remote || fs.existsSync(path.join(storeDir, META_FILE)) ? await openStore(storeDir) : null;
  if (!store?.meta()) {
    await store?.close();
    const msg = `No index at ${storeDir}. Build it with: ${indexCommand()}`;
    if (values.json) printJson({ indexed: false, store: storeDir, message: msg });
    else process.stderr.write(`docs-rag: ${msg}\n`);
    return values.json ? 0 : 1;
  }
  try {
    const report = await statusReport(store, folder, store.uri);
    const { files: byStatus, passages, problems, embedder, lastRun } = report;
    if (values.json) {
      printJson(report);
      return 0;
    }
    // Counts with digit grouping (275,645): the status of a large index is read at a glance.
    const n = (x: number) => x.toLocaleString('en');
    const lines = [
      `Index: ${storeDir}`,
      `Files: ${n(byStatus.total)} (${n(byStatus.indexed)} indexed, ${n(byStatus.skipped)} skipped, ${n(byStatus.error)} errors)`,
      `Passages: ${n(passages.total)} (L0 documents ${n(passages.L0)}, L1 sections ${n(passages.L1)}, L2 passages ${n(passages.L2)})`,
      `Links: ${n(report.links)} (${Object.entries(report.linksByKind).map(([k, c]) => `${k} ${n(c)}`).join(', ')}; ${n(report.unresolvedLinks)} not resolved: target not in the index)${report.linksCounted?.pending ? ` as counted ${new Date(report.linksCounted.at).toISOString()}; the index maintenance counts them again` : ''}`,
      `Embedder: ${embedder ? `${embedder.id}:${embedder.model} (dimension ${embedder.dimension})` : 'none'}`,
      `Vector search: ${describeVectorSearch(report.vectorIndex, report.passages.total)}`,
      `Vectors: ${n(report.vectors.filled)} of ${n(report.vectors.total)}${report.vectors.filled < report.vectors.total ? ` (keyword search covers every passage; ${report.running ? 'the running index run fills the rest' : `the next run fills the rest: ${indexCommand()}`})` : ''}`,
      `Last run: ${lastRun ? `${new Date(lastRun.finishedAt).toISOString()} (${((lastRun.finishedAt - lastRun.startedAt) / 1000).toFixed(1)} s, ${n(lastRun.errors)} problems)` : 'never'}`,
    ];
    if (report.settings) lines.push(`Settings: ${describeSettings(report.settings)} (runs and docs-rag mcp without flags keep them)`);
    if (lastRun?.ignored) lines.push(`Left out by .gitignore / .ignore files at the last walk: ${lastRun.ignored} document(s) and folder(s) (${indexCommand('--no-ignore-files')} indexes them).`);
    if (report.schemaOutdated) lines.push(`Written by another version of Docs RAG: searched as empty until the next run rebuilds it: ${indexCommand()}`);
    if (report.running) lines.push(`An index run is in progress (pid ${report.running.pid}).`);
    if (report.interrupted) lines.push(`The last run did not finish (killed?). The next run repairs the index: ${indexCommand()}`);
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
