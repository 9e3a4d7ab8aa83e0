// The extension's indexing process (dist/indexWorker.js), forked by src/views/indexProcess.ts. All index writes of the
// extension happen here, so parsing, chunking, embedding, LanceDB writes and optimize() never load the extension host
// (which every extension shares) and a crash here leaves the editor running. One RunQueue per index lives in this
// process (requests that wait are merged, each keeps its own cancellation and progress), and the engine's write queue
// with it. The extension host only reads the index (LanceDB gives each read the latest committed version).
// Never imports `vscode`.
import { openEngine, type Engine } from '../rag/engine';
import { indexFolder, type IndexProgress, type IndexRunResult } from '../rag/index/indexer';
import { RunQueue } from '../rag/index/runQueue';
import { BackgroundMaintenance, STEP_MARK, hostJobs, runMaintenanceJobs, runMaintenanceStep } from '../rag/index/maintenance';
import type { JobKind } from '../rag/index/lifecycle';
import { useLanceWriterEnv } from '../rag/store/lanceEnv';
import type { FolderSpec, FromChild, ToChild } from './protocol';

interface Slot {
  spec: FolderSpec;
  engine?: Promise<Engine>;
  /** The spec changed since the engine was opened: reopen before the next run. */
  stale: boolean;
  queue: RunQueue<IndexRunResult, IndexProgress>;
  /** Whole-table maintenance after small runs, in steps of its own, after a quiet period. */
  background?: BackgroundMaintenance;
}

/** A maintenance job of `storeDir` in a child of this process (this file started with --maintenance-step). */
function stepCommand(storeDir: string): (kind: JobKind) => string[] {
  return (kind) => [...process.execArgv, process.argv[1], '--maintenance-step', storeDir, kind];
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
        const result = await indexFolder(engine, { full: run.full, paths: run.paths, signal: run.signal, onProgress: run.onProgress, maintenance: 'caller', yieldFill: run.othersWaiting });
        await maintain(slot, result, run.signal, run.onProgress);
        return result;
      },
      (result) => result.cancelled === true,
    ),
  };
  return slot;
}

/**
 * The run's maintenance (index/lifecycle.ts): a large run's 'after' jobs (compaction, vector index) as part of it, each
 * in a child process of this worker, still inside the run so the queue keeps one writer; background jobs after a quiet
 * period, outside the queue (a run that needs the writer lock stops them). A failed or stopped step leaves the index
 * answering; the next maintenance does the job again.
 */
async function maintain(slot: Slot, result: IndexRunResult, signal: AbortSignal, onProgress: (p: IndexProgress) => void): Promise<void> {
  const { after, background } = hostJobs(result.maintenance);
  if (after.length > 0 && !result.cancelled) {
    onProgress({ phase: 'optimize', filesDone: result.files, filesTotal: result.files, passagesPerSec: 0 });
    const report = await runMaintenanceJobs(after, stepCommand(slot.spec.storeDir), { signal });
    if (report.stopped && !signal.aborted) log('warn', `${slot.spec.name}: index maintenance stopped (${report.stopped}); search works, the next run does it again.`);
    result.maintained = report.ran.map((j) => j.kind);
    result.ms += report.ms;
  }
  if (background.length > 0 && !result.cancelled) {
    slot.background ??= new BackgroundMaintenance(slot.spec.storeDir, stepCommand(slot.spec.storeDir));
    slot.background.schedule();
  }
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
    slot.background?.stop();
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
  for (const s of slots.values()) s.background?.stop();
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
// Started as a maintenance step of a run (maintain above): run the job, print the result, exit.
const stepAt = process.argv.indexOf('--maintenance-step');
if (stepAt >= 0) {
  runMaintenanceStep(process.argv[stepAt + 1], process.argv[stepAt + 2] as JobKind).then(
    (r) => {
      process.stdout.write(`${STEP_MARK}${JSON.stringify(r)}\n`);
      process.exit(0);
    },
    (err: unknown) => {
      process.stderr.write(`${errorText(err)}\n`);
      process.exit(1);
    },
  );
} else serve();
