// The one executor of the lifecycle plan (lifecycle.ts), shared by every host: the indexer runs the 'now' jobs inside
// the run; the CLI, the extension's indexing process and `docs-rag mcp --watch` hand the 'after' and 'background' jobs
// to runMaintenanceJobs, which runs each in a child process of its own (`--maintenance-step <job>`): a fresh process
// peaks lower than the one that has just parsed and written the corpus, and the compaction and the vector-index
// training stacked in one process. Background maintenance holds the writer lock as 'maintenance': the next run that
// needs the lock stops it (writerLock.ts), and since every LanceDB commit is atomic the index stays whole; the files a
// stopped step may leave are removed by the next optimize.
import { spawn } from 'node:child_process';
import type { IndexStore } from '../store/types';
import { openStore } from '../store';
import { storeLocation } from '../store/remote';
import { RemoteLeaseBusyError } from '../store/remoteLease';
import { lanceTempDir, outsideLanceTemp } from './lanceTemp';
import { jobsOf, planMaintenance, type Job, type JobKind, type Phase, type RunFacts } from './lifecycle';
import { MAINTENANCE_PURPOSE, isAlive, tryAcquireWriterLock } from './writerLock';

/** The facts of the plan, with a maintenance process that died holding the index marked as leaving unverified files. */
export async function readFacts(store: IndexStore): Promise<Awaited<ReturnType<IndexStore['maintenanceFacts']>>> {
  const running = store.meta()?.maintenance?.running;
  if (running && running.pid !== process.pid && !isAlive(running.pid)) await store.noteMaintenance({ running: undefined, unverified: true });
  return store.maintenanceFacts();
}

/** The jobs the store needs now (after a run: `run` says what it changed). */
export async function planFor(store: IndexStore, run?: RunFacts): Promise<Job[]> {
  return planMaintenance(await readFacts(store), run);
}

/** The jobs of the store in `storeDir` now, planned without a run (every one a background job). */
export async function planStore(storeDir: string): Promise<Job[]> {
  const store = await openStore(storeDir);
  try {
    return await planFor(store);
  } finally {
    await store.close();
  }
}

/** Runs one job in this process (the caller holds the writer lock). */
export async function runJob(store: IndexStore, job: Job): Promise<void> {
  switch (job.kind) {
    case 'build-keyword-indexes':
      return store.buildKeywordIndexes();
    case 'optimize':
      // Removing files no version references is safe here: the caller holds the writer lock, so no write is in flight.
      return store.optimize({ deleteUnverified: (await store.maintenanceFacts()).unverifiedFiles, vectorIndex: false });
    case 'train-vector-index':
      await store.buildVectorIndexIfDue();
      return;
    case 'count-links':
      return store.recordLinkCounts();
  }
}

/** Runs the jobs of `phases` in this process, in plan order, re-planning after each (what a job did changes the facts). */
export async function runJobsInProcess(store: IndexStore, phases: Phase[], run?: RunFacts): Promise<JobKind[]> {
  const done: JobKind[] = [];
  for (;;) {
    const next = (await planFor(store, run)).find((j) => phases.includes(j.phase) && !done.includes(j.kind));
    if (!next) return done;
    await runJob(store, next);
    done.push(next.kind);
  }
}

export interface StepResult {
  /** The job ran (false: no longer due, or another process held the writer lock: `busy`). */
  ran: boolean;
  busy?: boolean;
  ms: number;
  /** Peak resident memory of the step's process, MB. */
  peakRssMB?: number;
}

/**
 * LanceDB's index cache in a step's process, which only trains and compacts (no search reads the partitions back).
 */
export const STEP_INDEX_CACHE_BYTES = 256 * 1024 * 1024;

const peakRssMB = () => Math.round(process.resourceUsage().maxRSS / 1024);

/** In the child: runs `kind` on the store if the plan still holds it, under the writer lock (as preemptible maintenance). */
export async function runMaintenanceStep(storeDir: string, kind: JobKind): Promise<StepResult> {
  const started = Date.now();
  const release = await tryAcquireWriterLock(storeLocation(storeDir).dir, MAINTENANCE_PURPOSE);
  if (!release) return { ran: false, busy: true, ms: Date.now() - started };
  try {
    const store = await openStore(storeDir, { indexCacheBytes: STEP_INDEX_CACHE_BYTES });
    // A remote store: the writer of another machine holding the store's lease counts as busy too.
    const lease = await store.takeWriterLease({ purpose: MAINTENANCE_PURPOSE, wait: false }).catch((err: unknown) => {
      if (err instanceof RemoteLeaseBusyError) return null;
      throw err;
    });
    try {
      if (!lease) return { ran: false, busy: true, ms: Date.now() - started };
      const job = (await planFor(store)).find((j) => j.kind === kind);
      if (!job) return { ran: false, ms: Date.now() - started, peakRssMB: peakRssMB() };
      await store.noteMaintenance({ running: { pid: process.pid, startedAt: started }, lastStep: { kind, startedAt: started } });
      await runJob(store, job);
      await store.noteMaintenance({ running: undefined });
      return { ran: true, ms: Date.now() - started, peakRssMB: peakRssMB() };
    } finally {
      await lease?.();
      await store.close();
    }
  } finally {
    release();
  }
}

/** The line a step prints (last line of its stdout) with its StepResult. */
export const STEP_MARK = 'docs-rag-maintenance-step:';

export interface MaintenanceReport {
  /** Jobs that ran, in order, with their time and the step process's peak memory. */
  ran: { kind: JobKind; ms: number; peakRssMB?: number }[];
  /** Another process held the writer lock (its own run or maintenance does the rest). */
  busy?: boolean;
  /** A step failed or was stopped: the rest is left to the next maintenance (the index answers as it is). */
  stopped?: string;
  ms: number;
}

/**
 * In the host: runs the given jobs, each in a child process (`command(kind)` gives its node arguments: a command that
 * calls runMaintenanceStep and prints STEP_MARK + its JSON), one after the other. A step that fails, is stopped by
 * `signal` or by a run that needs the writer lock ends the sequence: nothing is lost, the next maintenance plans again.
 */
export async function runMaintenanceJobs(
  jobs: Job[],
  command: (kind: JobKind) => string[],
  o: { signal?: AbortSignal; env?: NodeJS.ProcessEnv } = {},
): Promise<MaintenanceReport> {
  const started = Date.now();
  const report: MaintenanceReport = { ran: [], ms: 0 };
  for (const job of jobs) {
    if (o.signal?.aborted) {
      report.stopped = 'cancelled';
      break;
    }
    try {
      const r = await spawnStep(command(job.kind), o.env ?? process.env, o.signal);
      if (r.busy) {
        report.busy = true;
        break;
      }
      if (r.ran) report.ran.push({ kind: job.kind, ms: r.ms, ...(r.peakRssMB ? { peakRssMB: r.peakRssMB } : {}) });
    } catch (err) {
      report.stopped = err instanceof Error ? err.message : String(err);
      break;
    }
  }
  report.ms = Date.now() - started;
  return report;
}

/** The jobs of a run's plan that its host runs after it: 'after' ones at once, 'background' ones later. */
export function hostJobs(jobs: Job[] | undefined): { after: Job[]; background: Job[] } {
  return { after: jobsOf(jobs ?? [], 'after'), background: jobsOf(jobs ?? [], 'background') };
}

function spawnStep(args: string[], env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<StepResult> {
  return new Promise((resolve, reject) => {
    // `signal` stops the child (LanceDB's commits are atomic: the next maintenance does the job again). LanceDB's spill
    // files go to a temp directory of the child's own, deleted when it exits (lanceTemp.ts).
    const temp = lanceTempDir(env);
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: temp.env, signal, killSignal: 'SIGKILL' });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-4000)));
    child.on('error', (e) => {
      temp.dispose();
      reject(e);
    });
    child.on('close', (code, sig) => {
      temp.dispose();
      const line = out.split('\n').find((l) => l.startsWith(STEP_MARK));
      if (code === 0 && line) {
        resolve(JSON.parse(line.slice(STEP_MARK.length)) as StepResult);
        return;
      }
      const last = err.trim().split('\n').pop() ?? '';
      reject(new Error(`the maintenance step stopped (${sig ?? `exit code ${code}`})${last ? `: ${last}` : ''}`));
    });
  });
}

/**
 * Starts the background runner (`args`: a command that plans the store's background jobs and runs them with
 * runMaintenanceJobs) detached from this process, which may exit at once; returns its pid. Used by a one-shot host
 * (the CLI): the run reports its change searchable and the whole-table work goes on without it. The runner outlives
 * this process's private temp directory (deleted when it exits: lanceTemp.ts), so it gets the directory that one was
 * made in; each of its steps gets a private one of its own.
 */
export function startDetachedMaintenance(args: string[], env: NodeJS.ProcessEnv = process.env): number | undefined {
  const child = spawn(process.execPath, args, { detached: true, stdio: 'ignore', env: outsideLanceTemp(env) });
  child.on('error', () => undefined);
  child.unref();
  return child.pid;
}

/**
 * Background maintenance for a long-lived host (the extension's indexing process, `docs-rag mcp --watch`): after a run
 * that left background jobs, `schedule()` plans again after a quiet period (a burst of saves gives one maintenance) and
 * runs the jobs as steps; `stop()` ends it (a run of this host that needs the lock stops a running step anyway).
 */
export class BackgroundMaintenance {
  private timer: NodeJS.Timeout | null = null;
  private controller: AbortController | null = null;
  private running: Promise<MaintenanceReport | null> = Promise.resolve(null);
  /** The last background maintenance's report (diagnostics, tests). */
  last: MaintenanceReport | null = null;

  constructor(
    private readonly storeDir: string,
    private readonly command: (kind: JobKind) => string[],
    private readonly quietMs = 5_000,
  ) {}

  schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.running.then(() => this.runNow());
    }, this.quietMs);
    this.timer.unref();
  }

  /** Plans and runs the background jobs now (after one in progress). */
  async runNow(): Promise<MaintenanceReport | null> {
    const controller = new AbortController();
    this.controller = controller;
    const jobs = await planStore(this.storeDir);
    if (jobs.length === 0 || controller.signal.aborted) return null;
    this.last = await runMaintenanceJobs(jobs, this.command, { signal: controller.signal });
    return this.last;
  }

  /** Waits for the scheduled or running maintenance (tests, a host that closes cleanly). */
  async settle(): Promise<MaintenanceReport | null> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
      this.running = this.running.then(() => this.runNow());
    }
    return this.running;
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.controller?.abort();
  }
}
