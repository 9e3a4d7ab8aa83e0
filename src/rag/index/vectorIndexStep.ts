// The vector-index step in a process of its own. Training the IVF index reads every vector and holds them while it
// writes the index (an IVF_FLAT index's copy was ~450 MB above the process's own size at 100k passages of 1,024
// dimensions; the IVF_RQ index of 4-bit codes peaks the same, 433–435 MB for the whole step); in the
// process that has just parsed, embedded and written the corpus it peaked ~150 MB higher than in a fresh one (BENCHMARKS.md,
// issue 15). The run ends with its passages searchable (keyword indexes current, vector search exact); then a child
// process trains the index under the writer lock. If it dies, nothing is lost: the next optimize trains it again.
import { spawn } from 'node:child_process';
import { openStore } from '../store';
import { lanceTempDir } from './lanceTemp';
import { tryAcquireWriterLock } from './writerLock';

export interface VectorIndexStepResult {
  /** The index was trained (false: not due, or another process held the writer lock: `busy`). */
  trained: boolean;
  busy?: boolean;
  /** This process compacted what the run deferred (`IndexStore.deferCompaction`); the training follows in another one. */
  compacted?: boolean;
  ms: number;
  /** Peak resident memory of the step's process, MB (diagnostics). */
  peakRssMB?: number;
}

/**
 * LanceDB's index cache in the step's process, which only trains (no search reads the partitions back; the cap kept the
 * step at 101k passages at 433 instead of 560 MB when a recall check still searched them, BENCHMARKS.md, w15m).
 */
export const VECTOR_STEP_INDEX_CACHE_BYTES = 256 * 1024 * 1024;

const peakRssMB = () => Math.round(process.resourceUsage().maxRSS / 1024);

/** In the child: trains the vector index of the store in `storeDir` if it is due, under the writer lock. */
export async function runVectorIndexStep(storeDir: string): Promise<VectorIndexStepResult> {
  const started = Date.now();
  const release = await tryAcquireWriterLock(storeDir, 'optimizing');
  if (!release) return { trained: false, busy: true, ms: Date.now() - started };
  try {
    const store = await openStore(storeDir, { indexCacheBytes: VECTOR_STEP_INDEX_CACHE_BYTES });
    try {
      // A compaction the run left to this step gets a process of its own: with the training in the same process the two
      // stacked (101k passages: 508 MB, each alone 379 and ~430 MB).
      if (store.compactionDeferred()) {
        await store.optimize({ vectorIndex: false });
        return { trained: false, compacted: true, ms: Date.now() - started, peakRssMB: peakRssMB() };
      }
      const trained = await store.buildVectorIndexIfDue();
      return { trained, ms: Date.now() - started, peakRssMB: peakRssMB() };
    } finally {
      await store.close();
    }
  } finally {
    release();
  }
}

/** The line a child prints (last line of its stdout) with its VectorIndexStepResult. */
export const VECTOR_STEP_MARK = 'docs-rag-vector-index-step:';

/**
 * In the parent: runs `node <args>` (a command that calls runVectorIndexStep and prints VECTOR_STEP_MARK + its JSON) and
 * returns its result; a child that fails or dies rejects with its stderr's last line.
 */
export async function spawnVectorIndexStep(args: string[], env: NodeJS.ProcessEnv = process.env, signal?: AbortSignal): Promise<VectorIndexStepResult> {
  let result = await spawnOnce(args, env, signal);
  // The run's deferred compaction came first: the training in a fresh process.
  if (result.compacted) {
    const next = await spawnOnce(args, env, signal);
    result = { ...next, compacted: true, ms: result.ms + next.ms, peakRssMB: Math.max(result.peakRssMB ?? 0, next.peakRssMB ?? 0) || undefined };
  }
  return result;
}

function spawnOnce(args: string[], env: NodeJS.ProcessEnv, signal?: AbortSignal): Promise<VectorIndexStepResult> {
  return new Promise((resolve, reject) => {
    // `signal` stops the child (its index commit is atomic: the next run trains the index again). The training's spill
    // files go to a temp directory of the child's own, deleted when it exits (lanceTemp.ts).
    const temp = lanceTempDir(env);
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: temp.env, signal, killSignal: 'SIGKILL' });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-4000)));
    child.on('error', (err) => {
      temp.dispose();
      reject(err);
    });
    child.on('close', (code, signal) => {
      temp.dispose();
      const line = out.split('\n').find((l) => l.startsWith(VECTOR_STEP_MARK));
      if (code === 0 && line) {
        resolve(JSON.parse(line.slice(VECTOR_STEP_MARK.length)) as VectorIndexStepResult);
        return;
      }
      const last = err.trim().split('\n').pop() ?? '';
      reject(new Error(`the vector-index step stopped (${signal ?? `exit code ${code}`})${last ? `: ${last}` : ''}`));
    });
  });
}
