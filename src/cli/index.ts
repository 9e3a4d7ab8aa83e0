// docs-rag index <folder>: builds or updates the index of a folder (incremental, crash-safe).
import * as path from 'node:path';
import { openEngine, type EngineConfigOverrides } from '../rag/engine';
import { describeHolder } from '../rag/index/writerLock';
import { indexFolder, type IndexProgress, type IndexRunResult } from '../rag/index/indexer';
import { STEP_MARK, hostJobs, planStore, runMaintenanceJobs, runMaintenanceStep, startDetachedMaintenance, type MaintenanceReport } from '../rag/index/maintenance';
import type { JobKind } from '../rag/index/lifecycle';
import { useLanceWriterEnv } from '../rag/store/lanceEnv';
import { UsageError, parse, printJson, requireFolder, resolveStore } from './common';
import { INGEST_FLAGS, ingestOverrides } from './ingestOptions';
import { prepareLocalModel } from './localModel';
import { embedOverrides } from './searchOptions';
import { printableName, printableText } from '../rag/text/printable';
import { READ_KINDS } from '../rag/formats';

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    store: { type: 'string' },
    embedder: { type: 'string' },
    model: { type: 'string' },
    'ollama-host': { type: 'string' },
    full: { type: 'boolean' },
    ...INGEST_FLAGS,
    enrich: { type: 'string' },
    'enrich-model': { type: 'string' },
    json: { type: 'boolean' },
    wait: { type: 'boolean' },
    'no-wait': { type: 'boolean' },
    maintenance: { type: 'string' },
    // Internal: one maintenance job in a process of its own, or the background runner (rag/index/maintenance.ts).
    'maintenance-step': { type: 'string' },
  });
  if (values.wait && values['no-wait']) throw new UsageError('--wait and --no-wait exclude each other');
  if (positionals.length !== 1) throw new UsageError('index needs exactly one <folder>');
  const folder = requireFolder(positionals[0], 'index <folder>');
  // A writer: LanceDB's memory settings for index builds (store/lanceEnv.ts), inherited by the vector-index step's child.
  useLanceWriterEnv();
  const storeDir = resolveStore(folder, values.store);
  const stepCommand = (kind: JobKind | 'background') => [...process.execArgv, process.argv[1], 'index', folder, '--store', storeDir, '--maintenance-step', kind];
  const step = values['maintenance-step'];
  if (step !== undefined) {
    if (step === 'background') {
      await runBackground(storeDir, stepCommand);
      return 0;
    }
    if (!JOB_KINDS.includes(step as JobKind)) throw new UsageError(`--maintenance-step takes one of ${JOB_KINDS.join(', ')} or background`);
    const r = await runMaintenanceStep(storeDir, step as JobKind);
    process.stdout.write(`${STEP_MARK}${JSON.stringify(r)}\n`);
    return 0;
  }
  const maintenance = values.maintenance ?? 'background';
  if (!['background', 'wait', 'skip'].includes(maintenance)) throw new UsageError(`--maintenance takes background, wait or skip; got "${maintenance}"`);
  const { embed, explicit } = embedOverrides(values);
  await prepareLocalModel(embed);

  const enrich = enrichOption(values.enrich, values['enrich-model']);

  const engine = await openEngine({
    folder,
    storeDir,
    config: { embed, ...(enrich ? { enrich } : {}), ingest: ingestOverrides(values) },
    embedderOverride: explicit,
    // Flags not given keep the index's recorded settings (which files, read how, enriched how).
    settingsFromIndex: true,
    // The builder of a team's remote store writes it; every other command opens one read-only.
    readOnly: false,
  });
  const bar = process.stderr.isTTY ? new ProgressBar() : null;
  const controller = new AbortController();
  const onSigint = () => {
    process.stderr.write('\ndocs-rag: stopping after the files in progress (Ctrl+C again to quit at once)...\n');
    process.off('SIGINT', onSigint);
    controller.abort();
  };
  process.on('SIGINT', onSigint);
  let result: IndexRunResult;
  let report: MaintenanceReport | undefined;
  let backgroundPid: number | undefined;
  try {
    result = await indexFolder(engine, {
      onProgress: bar ? (p) => bar.update(p) : undefined,
      signal: controller.signal,
      full: values.full,
      wait: !values['no-wait'],
      onWait: (holder) => process.stderr.write(`docs-rag: ${describeHolder(holder)} is writing this index; waiting for it to finish (Ctrl+C to stop).\n`),
      maintenance: 'caller',
    });
    const { after, background } = hostJobs(result.maintenance);
    // A large run's compaction and vector index are part of it (they cost what the run changed); a small run's
    // whole-table work goes to the background, after its change is searchable (as `git gc --auto` does).
    const now = maintenance === 'wait' ? [...after, ...background] : maintenance === 'skip' ? [] : after;
    if (now.length > 0 && !result.cancelled) {
      bar?.update({ phase: 'optimize', filesDone: result.files, filesTotal: result.files, passagesPerSec: 0 });
      report = await runMaintenanceJobs(now, stepCommand, { signal: controller.signal });
      if (report.stopped && controller.signal.aborted) {
        result.cancelled = true;
        (result.warnings ??= []).push('Stopped during the index maintenance: search works; the next run does it again.');
      }
      else if (report.stopped) (result.warnings ??= []).push(`Index maintenance stopped (${report.stopped}); search works, the next run does it again.`);
      result.ms += report.ms;
    }
    if (maintenance === 'background' && background.length > 0 && !result.cancelled && !report?.stopped) backgroundPid = startDetachedMaintenance(stepCommand('background'));
  } finally {
    process.off('SIGINT', onSigint);
    bar?.clear();
    await engine.close();
  }
  for (const w of result.warnings ?? []) process.stderr.write(`docs-rag: ${w}\n`);
  if (values.json) {
    printJson({ files: result.files, chunks: result.chunks, unchanged: result.unchanged, errors: result.errors, ms: result.ms, ...extras(result, report, backgroundPid) });
  } else {
    process.stdout.write(summary(result, engine.storeUri, report, backgroundPid));
  }
  // Interrupted by Ctrl+C: the index is consistent, but the run did not complete.
  return result.cancelled ? 130 : 0;
}

const JOB_KINDS: JobKind[] = ['build-keyword-indexes', 'optimize', 'train-vector-index', 'count-links'];

/** The background runner (started detached by a run): plans and runs the store's background jobs, each in a step. */
async function runBackground(storeDir: string, command: (kind: JobKind) => string[]): Promise<void> {
  await runMaintenanceJobs(await planStore(storeDir), command);
}

function extras(r: IndexRunResult, report?: MaintenanceReport, backgroundPid?: number): Record<string, unknown> {
  const out: Record<string, unknown> = { added: r.added ?? 0, updated: r.updated ?? 0, removed: r.removed ?? 0 };
  if (r.reembedded) out.reembedded = true;
  if (r.cancelled) out.cancelled = true;
  if (r.recovered) out.recovered = true;
  if (r.repairedPassages) out.repairedPassages = r.repairedPassages;
  if (r.vectors) out.vectors = r.vectors;
  if (r.keywordReadyMs !== undefined) out.keywordReadyMs = r.keywordReadyMs;
  if (r.searchableMs !== undefined) out.searchableMs = r.searchableMs;
  // Milliseconds per step of the run (open, files, vectors, vocabulary…): where a slow run spends its time.
  if (r.timings) out.timings = r.timings;
  // What ran after the run (each job in a process of its own, with its peak memory) and what goes on in the background.
  if (report) out.maintenance = report.ran;
  if (report?.busy) out.maintenanceBusy = true;
  if (backgroundPid !== undefined) out.backgroundMaintenance = { pid: backgroundPid, jobs: hostJobs(r.maintenance).background.map((j) => j.kind) };
  // This process's own peak (the run), next to the maintenance steps' (their own processes).
  out.runRssMB = Math.round(process.resourceUsage().maxRSS / 1024);
  return out;
}

function summary(r: IndexRunResult, storeDir: string, report?: MaintenanceReport, backgroundPid?: number): string {
  const lines = [
    `${r.cancelled ? 'Cancelled' : 'Indexed'}: ${r.files} documents, ${r.chunks} passages in ${(r.ms / 1000).toFixed(1)} s ` +
      `(${r.added ?? 0} added, ${r.updated ?? 0} updated, ${r.removed ?? 0} removed, ${r.unchanged} unchanged).`,
  ];
  if (r.ignored) {
    lines.push(
      `${r.ignored} ${r.ignored === 1 ? 'document or folder was' : 'documents and folders were'} left out by .gitignore / .ignore files${r.files === 0 ? ' — nothing else was found to index' : ''} (--no-ignore-files indexes them too).`,
    );
  }
  if (r.files === 0 && !r.ignored && r.errors.length === 0) {
    lines.push(`Nothing to index: no file of a kind docs-rag reads (${READ_KINDS}) was found in this folder.`);
  }
  if (r.keywordReadyMs !== undefined && r.files > 0) lines.push(`Keyword search was ready after ${(r.keywordReadyMs / 1000).toFixed(1)} s.`);
  if (r.searchableMs !== undefined && report && report.ran.length > 0) {
    const ran = report.ran.map((j) => `${j.kind} ${(j.ms / 1000).toFixed(1)} s`).join(', ');
    lines.push(`Searchable after ${(r.searchableMs / 1000).toFixed(1)} s; then, each in a process of its own: ${ran}.`);
  }
  if (report?.busy) lines.push('Another process writes this index: its run does the index maintenance.');
  if (backgroundPid !== undefined) {
    lines.push(`The change is searchable; index maintenance continues in the background (pid ${backgroundPid}; the next run stops it if it needs the index).`);
  }
  if (r.vectors && r.vectors.total > 0) {
    const rest = r.vectors.total - r.vectors.filled;
    lines.push(`Vectors: ${r.vectors.filled} of ${r.vectors.total}${rest > 0 ? ` (${rest} still pending; the next run fills them)` : ''}.`);
  }
  if (r.recovered) {
    lines.push(
      `The index needed repair (an interrupted run, or passages its records did not account for)${r.repairedPassages ? `: ${r.repairedPassages} passages removed and their files indexed again` : ''}.`,
    );
  }
  if (r.errors.length > 0) {
    lines.push(`${r.errors.length} file(s) not indexed:`);
    for (const e of r.errors) lines.push(`  ${printableName(e.path)}: ${printableText(e.reason)}`);
  }
  lines.push(`Index: ${storeDir}`);
  return `${lines.join('\n')}\n`;
}

/**
 * The progress line's width: the terminal's, less one column; a terminal that reports no width or 0 columns (as under
 * `script`) gets 100.
 */
export function lineWidth(columns: number | undefined = process.stderr.columns): number {
  return columns && columns > 1 ? columns - 1 : 100;
}

/** One-line progress bar on stderr (TTY only). */
class ProgressBar {
  private last = 0;
  update(p: IndexProgress): void {
    const now = Date.now();
    if (now - this.last < 100 && p.phase !== 'done') return;
    this.last = now;
    const width = 24;
    const frac = p.filesTotal > 0 ? Math.min(1, p.filesDone / p.filesTotal) : 0;
    const filled = Math.round(frac * width);
    const file = p.currentFile ? ` ${printableName(p.currentFile)}`.slice(0, 40) : '';
    const rate = p.phase === 'vectors' && p.vectors
      ? ` ${p.vectors.filled} of ${p.vectors.total} (keyword search ready)`
      : p.passagesPerSec > 0 ? ` ${p.passagesPerSec} passages/s` : '';
    const line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${p.filesDone}/${p.filesTotal} ${p.phase}${rate}${file}`;
    process.stderr.write(`\r${line.padEnd(lineWidth()).slice(0, lineWidth())}`);
  }
  clear(): void {
    process.stderr.write(`\r${' '.repeat(lineWidth())}\r`);
  }
}

/**
 * `--enrich contextual,summaries [--enrich-model NAME]`: opt-in LLM enrichments through Ollama (at --ollama-host), cached by
 * content in the store. Off unless asked for.
 */
function enrichOption(list: string | undefined, model: string | undefined): EngineConfigOverrides['enrich'] {
  if (list === undefined || list.trim() === 'off') {
    if (model) throw new UsageError('--enrich-model goes with --enrich contextual,summaries');
    return list === undefined ? undefined : { contextual: false, summaries: false };
  }
  const kinds = list.split(',').map((k) => k.trim()).filter(Boolean);
  const unknown = kinds.filter((k) => k !== 'contextual' && k !== 'summaries');
  if (kinds.length === 0 || unknown.length) throw new UsageError(`--enrich takes contextual, summaries or both (comma-separated), or off; got "${list}"`);
  return { contextual: kinds.includes('contextual'), summaries: kinds.includes('summaries'), ...(model ? { model } : {}) };
}
