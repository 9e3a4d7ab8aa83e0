// docs-rag index <folder>: builds or updates the index of a folder (incremental, crash-safe).
import * as path from 'node:path';
import { openEngine, type EngineConfigOverrides } from '../rag/engine';
import { describeHolder } from '../rag/index/writerLock';
import { indexFolder, type IndexProgress, type IndexRunResult } from '../rag/index/indexer';
import { VECTOR_STEP_MARK, runVectorIndexStep, spawnVectorIndexStep } from '../rag/index/vectorIndexStep';
import { useLanceWriterEnv } from '../rag/store/lanceEnv';
import { UsageError, parse, printJson, requireFolder, resolveStore } from './common';
import { INGEST_FLAGS, ingestOverrides } from './ingestOptions';
import { prepareLocalModel } from './localModel';
import { embedOverrides } from './searchOptions';
import { printableName, printableText } from '../rag/text/printable';

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
    // Internal: the vector-index step after a run, in a process of its own (rag/index/vectorIndexStep.ts).
    'vector-index-step': { type: 'boolean' },
  });
  if (values.wait && values['no-wait']) throw new UsageError('--wait and --no-wait exclude each other');
  if (positionals.length !== 1) throw new UsageError('index needs exactly one <folder>');
  const folder = requireFolder(positionals[0]);
  // A writer: LanceDB's memory settings for index builds (store/lanceEnv.ts), inherited by the vector-index step's child.
  useLanceWriterEnv();
  if (values['vector-index-step']) {
    const step = await runVectorIndexStep(resolveStore(folder, values.store));
    process.stdout.write(`${VECTOR_STEP_MARK}${JSON.stringify(step)}\n`);
    return 0;
  }
  const { embed, explicit } = embedOverrides(values);
  await prepareLocalModel(embed);

  const enrich = enrichOption(values.enrich, values['enrich-model']);

  const engine = await openEngine({
    folder,
    storeDir: resolveStore(folder, values.store),
    config: { embed, ...(enrich ? { enrich } : {}), ingest: ingestOverrides(values) },
    embedderOverride: explicit,
    // Flags not given keep the index's recorded settings (which files, read how, enriched how).
    settingsFromIndex: true,
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
  try {
    result = await indexFolder(engine, {
      onProgress: bar ? (p) => bar.update(p) : undefined,
      signal: controller.signal,
      full: values.full,
      wait: !values['no-wait'],
      onWait: (holder) => process.stderr.write(`docs-rag: ${describeHolder(holder)} is writing this index; waiting for it to finish (Ctrl+C to stop).\n`),
      vectorIndex: 'caller',
    });
    if (result.vectorIndex === 'due') await vectorIndexStep(result, folder, engine.storeDir, bar, controller.signal);
  } finally {
    process.off('SIGINT', onSigint);
    bar?.clear();
    await engine.close();
  }
  for (const w of result.warnings ?? []) process.stderr.write(`docs-rag: ${w}\n`);
  if (values.json) {
    printJson({ files: result.files, chunks: result.chunks, unchanged: result.unchanged, errors: result.errors, ms: result.ms, ...extras(result) });
  } else {
    process.stdout.write(summary(result, engine.storeDir));
  }
  // Interrupted by Ctrl+C: the index is consistent, but the run did not complete.
  return result.cancelled ? 130 : 0;
}

/**
 * The vector index is trained after the run, in a child process (a fresh one peaks lower: vectorIndexStep.ts). If it
 * fails, the index still answers (vector search exact) and the next run trains it: a warning, not an error.
 */
async function vectorIndexStep(result: IndexRunResult, folder: string, storeDir: string, bar: ProgressBar | null, signal: AbortSignal): Promise<void> {
  bar?.update({ phase: 'vector-index', filesDone: result.files, filesTotal: result.files, passagesPerSec: 0 });
  const started = Date.now();
  const args = [...process.execArgv, process.argv[1], 'index', folder, '--store', storeDir, '--vector-index-step'];
  try {
    // Ctrl+C stops the step (its commit is atomic; the next run trains the index).
    const step = await spawnVectorIndexStep(args, process.env, signal);
    result.vectorIndex = step.busy ? 'busy' : step.trained ? 'built' : 'current';
    if (step.peakRssMB) result.vectorIndexRssMB = step.peakRssMB;
  } catch (err) {
    result.vectorIndex = 'due';
    if (signal.aborted) {
      result.cancelled = true;
      (result.warnings ??= []).push('Stopped while training the vector index: search works (vector search is exact); the next run trains it.');
    } else {
      const why = err instanceof Error ? err.message : String(err);
      (result.warnings ??= []).push(`${why}. Search works (vector search is exact); the next run trains the vector index.`);
    }
  }
  result.vectorIndexMs = Date.now() - started;
  result.ms += result.vectorIndexMs;
}

function extras(r: IndexRunResult): Record<string, unknown> {
  const out: Record<string, unknown> = { added: r.added ?? 0, updated: r.updated ?? 0, removed: r.removed ?? 0 };
  if (r.reembedded) out.reembedded = true;
  if (r.cancelled) out.cancelled = true;
  if (r.recovered) out.recovered = true;
  if (r.repairedPassages) out.repairedPassages = r.repairedPassages;
  if (r.vectors) out.vectors = r.vectors;
  if (r.keywordReadyMs !== undefined) out.keywordReadyMs = r.keywordReadyMs;
  if (r.searchableMs !== undefined) out.searchableMs = r.searchableMs;
  if (r.vectorIndex) out.vectorIndex = r.vectorIndex;
  if (r.vectorIndexMs !== undefined) out.vectorIndexMs = r.vectorIndexMs;
  if (r.vectorIndexRssMB !== undefined) out.vectorIndexRssMB = r.vectorIndexRssMB;
  // This process's own peak (the run), next to the vector-index step's (its own process).
  if (r.vectorIndex) out.runRssMB = Math.round(process.resourceUsage().maxRSS / 1024);
  return out;
}

function summary(r: IndexRunResult, storeDir: string): string {
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
    lines.push('Nothing to index: no file of a kind docs-rag reads (Markdown, text, HTML, PDF, DOCX, PPTX, XLSX, images) was found in this folder.');
  }
  if (r.keywordReadyMs !== undefined && r.files > 0) lines.push(`Keyword search was ready after ${(r.keywordReadyMs / 1000).toFixed(1)} s.`);
  if (r.vectorIndex === 'built' && r.searchableMs !== undefined && r.vectorIndexMs !== undefined) {
    lines.push(
      `Searchable after ${(r.searchableMs / 1000).toFixed(1)} s; then the vector index was trained in ${(r.vectorIndexMs / 1000).toFixed(1)} s (a separate step, after the table's compaction when the run left it).`,
    );
  } else if (r.vectorIndex === 'due' || r.vectorIndex === 'busy') {
    lines.push(`The vector index was not trained${r.vectorIndex === 'busy' ? ' (another process writes this index)' : ''}: vector search is exact until the next run trains it.`);
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
    process.stderr.write(`\r${line.padEnd(process.stderr.columns ? process.stderr.columns - 1 : 100).slice(0, (process.stderr.columns ?? 101) - 1)}`);
  }
  clear(): void {
    process.stderr.write(`\r${' '.repeat((process.stderr.columns ?? 101) - 1)}\r`);
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
