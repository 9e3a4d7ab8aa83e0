// The extension's indexing process (dist/indexWorker.js), forked by src/views/indexProcess.ts. All index writes of the
// extension happen here, so parsing, chunking, embedding, LanceDB writes and optimize() never load the extension host
// (which every extension shares) and a crash here leaves the editor running. One RunQueue per index lives in this
// process (requests that wait are merged, each keeps its own cancellation and progress), and the engine's write queue
// with it. The extension host only reads the index (LanceDB gives each read the latest committed version).
// Never imports `vscode`.
import { openEngine, type Engine } from '../rag/engine';
import { indexFolder, type IndexProgress, type IndexRunResult } from '../rag/index/indexer';
import { RunQueue } from '../rag/index/runQueue';
import { VECTOR_STEP_MARK, runVectorIndexStep, spawnVectorIndexStep } from '../rag/index/vectorIndexStep';
import { useLanceWriterEnv } from '../rag/store/lanceEnv';
import type { FolderSpec, FromChild, ToChild } from './protocol';

interface Slot {
  spec: FolderSpec;
  engine?: Promise<Engine>;
  /** The spec changed since the engine was opened: reopen before the next run. */
  stale: boolean;
  queue: RunQueue<IndexRunResult, IndexProgress>;
}

const slots = new Map<string, Slot>();
const requests = new Map<number, AbortController>();

function send(m: FromChild): void {
  if (process.connected) process.send!(m);
}

function log(level: 'info' | 'warn' | 'error', message: string): void {
  send({ type: 'log', level, message });
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

async function engineOf(slot: Slot): Promise<Engine> {
  if (slot.engine && slot.stale) {
    const old = slot.engine;
    slot.engine = undefined;
    await (await old.catch(() => null))?.close();
  }
  slot.stale = false;
  if (!slot.engine) {
    const spec = slot.spec;
    slot.engine = openEngine({ folder: spec.folder, storeDir: spec.storeDir, config: spec.config, embedderOverride: true });
    slot.engine.catch(() => (slot.engine = undefined));
    const e = await slot.engine;
    for (const w of e.warnings) log('warn', `${spec.name}: ${w}`);
  }
  return slot.engine;
}

function slotFor(spec: FolderSpec): Slot {
  const slot: Slot = {
    spec,
    stale: false,
    queue: new RunQueue<IndexRunResult, IndexProgress>(
      async (run) => {
        const what = run.full ? 'full rebuild' : run.paths ? `${run.paths.length} changed path(s)` : 'scan';
        send({ type: 'started', key: slot.spec.key, what });
        const engine = await engineOf(slot);
        // A long vector fill gives way to runs that wait (changed files are written first; the next run fills on).
        const result = await indexFolder(engine, { full: run.full, paths: run.paths, signal: run.signal, onProgress: run.onProgress, vectorIndex: 'caller', yieldFill: run.othersWaiting });
        if (result.vectorIndex === 'due') await vectorIndexStep(slot, result, run.signal, run.onProgress);
        return result;
      },
      (result) => result.cancelled === true,
    ),
  };
  return slot;
}

/**
 * The vector index is trained after the run (its passages are searchable by then), in a child process of this worker
 * (a fresh process peaks lower; rag/index/vectorIndexStep.ts), still inside the run so the queue keeps one writer. A
 * cancelled or failed step leaves the index answering (vector search exact); the next run trains it.
 */
async function vectorIndexStep(slot: Slot, result: IndexRunResult, signal: AbortSignal, onProgress: (p: IndexProgress) => void): Promise<void> {
  onProgress({ phase: 'vector-index', filesDone: result.files, filesTotal: result.files, passagesPerSec: 0 });
  const started = Date.now();
  try {
    const step = await spawnVectorIndexStep([...process.execArgv, process.argv[1], '--vector-index-step', slot.spec.storeDir], process.env, signal);
    result.vectorIndex = step.busy ? 'busy' : step.trained ? 'built' : 'current';
  } catch (err) {
    if (!signal.aborted) log('warn', `${slot.spec.name}: ${errorText(err)}; vector search stays exact until the next run trains the vector index.`);
  }
  result.vectorIndexMs = Date.now() - started;
  result.ms += result.vectorIndexMs;
}

function configure(folders: FolderSpec[]): void {
  for (const spec of folders) {
    const slot = slots.get(spec.key);
    if (!slot) slots.set(spec.key, slotFor(spec));
    else if (JSON.stringify(slot.spec) !== JSON.stringify(spec)) {
      slot.spec = spec;
      slot.stale = true;
    }
  }
  // A folder that left the workspace: its engine closes once its runs are over.
  for (const [key, slot] of slots) {
    if (folders.some((f) => f.key === key)) continue;
    slots.delete(key);
    void slot.queue.idle().then(async () => (await slot.engine?.catch(() => null))?.close());
  }
}

function run(m: Extract<ToChild, { type: 'run' }>): void {
  const slot = slots.get(m.key);
  if (!slot) {
    send({ type: 'error', id: m.id, name: 'Error', message: `unknown folder ${m.key}` });
    return;
  }
  const abort = new AbortController();
  requests.set(m.id, abort);
  slot.queue
    .request({ full: m.full, paths: m.paths, signal: abort.signal, onProgress: (progress) => send({ type: 'progress', id: m.id, progress }) })
    .then(
      (result) => send({ type: 'result', id: m.id, result }),
      (err: unknown) => send({ type: 'error', id: m.id, name: err instanceof Error ? err.name : 'Error', message: errorText(err) }),
    )
    .finally(() => requests.delete(m.id));
}

async function shutdown(): Promise<void> {
  for (const a of requests.values()) a.abort();
  await Promise.all(
    [...slots.values()].map(async (s) => {
      await s.queue.idle().catch(() => undefined);
      await (await s.engine?.catch(() => null))?.close();
    }),
  );
  process.exit(0);
}

function serve(): void {
  process.on('message', (m: ToChild) => {
    switch (m.type) {
      case 'configure':
        configure(m.folders);
        break;
      case 'run':
        run(m);
        break;
      case 'cancel':
        requests.get(m.id)?.abort();
        break;
      case 'shutdown':
        void shutdown();
        break;
    }
  });
  // The extension host went away (closed window, crash): nothing may keep writing for it.
  process.on('disconnect', () => void shutdown());
  process.on('unhandledRejection', (err) => log('error', `indexing process: ${errorText(err)}`));
  send({ type: 'ready', pid: process.pid });
}

// This process writes indexes: LanceDB's memory settings for index builds (store/lanceEnv.ts), before its first use.
useLanceWriterEnv();
// Started as the vector-index step of a run (vectorIndexStep above): train, print the result, exit.
const stepAt = process.argv.indexOf('--vector-index-step');
if (stepAt >= 0) {
  runVectorIndexStep(process.argv[stepAt + 1]).then(
    (r) => {
      process.stdout.write(`${VECTOR_STEP_MARK}${JSON.stringify(r)}\n`);
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`${errorText(err)}\n`);
      process.exit(1);
    },
  );
} else serve();
