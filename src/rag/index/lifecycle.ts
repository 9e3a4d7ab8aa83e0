// The index lifecycle as one pure plan: facts about the store and about what a run changed go in, the ordered
// maintenance jobs come out, each with its reason and its phase. Nothing here reads or writes; the executor
// (maintenance.ts) runs the jobs, and every host (the CLI, the extension's indexing process, `docs-rag mcp --watch`)
// goes through it, so no host decides maintenance on its own.
//
// Phases:
// - 'now': inside the run, before it reports its passages searchable (only what search cannot do without: keyword
//   indexes for a table that has none, or that cover less than half of it after a run that wrote most of it);
// - 'after': right after the run, in a process of its own, as part of the run (a first build's compaction and vector
//   index: the run touched the whole corpus, so these cost in proportion to what changed);
// - 'background': whole-corpus work after a small run (folding a few new rows into the indexes rewrites the table's
//   fragments): debounced, in a process of its own, and stopped by the next run that needs the writer lock; on a large
//   table only once the rows outside the indexes reach BACKGROUND_FOLD_SHARE of it. Until it ran, the new rows are
//   searched without the indexes (keyword and vector search scan them), so a change is searchable as soon as it is
//   written.

import type { IndexFacts } from '../store/types';

export type { IndexFacts };

export interface RunFacts {
  /** Passage rows the run wrote (new and replaced files) and removed. */
  rowsWritten: number;
  rowsRemoved: number;
  /** The run was cancelled or stopped: it leaves the rest to the next run (only what search needs is done). */
  cancelled: boolean;
}

export type JobKind =
  /** Build the keyword (FTS) and scalar indexes over the table as it stands (replacing those that exist). */
  | 'build-keyword-indexes'
  /** LanceDB's optimize of every table: fold unindexed rows into the indexes, compact fragments, drop old versions. */
  | 'optimize'
  /** Train the vector index (IVF), in a process of its own (the largest memory step). */
  | 'train-vector-index'
  /** Count the reference graph's resolved links into meta.json (what `status` shows; reads every link row). */
  | 'count-links';

export type Phase = 'now' | 'after' | 'background';

export interface Job {
  kind: JobKind;
  phase: Phase;
  reason: string;
}

/** Below this share of the table under the keyword indexes, building them anew is cheaper than folding rows in. */
export const KEYWORD_REBUILD_BELOW_SHARE = 0.5;

/**
 * A run is "large" when it wrote at least this share of the table: whole-corpus maintenance then costs in proportion to
 * what it changed and runs right after it ('after'); smaller runs leave that work to the background.
 */
export const LARGE_RUN_SHARE = 0.2;

/** Up to this many rows a small run's whole-table work follows it every time: on a table this size it costs little. */
export const SMALL_TABLE_ROWS = 20_000;

/**
 * On a larger table a small run's whole-table work (the optimize that folds rows into the indexes and compacts, and the
 * link count) waits until the rows outside the keyword indexes reach this share of the table: queries scan at most that
 * share without an index, and the table is rewritten once per that much change, not once per saved file.
 */
export const BACKGROUND_FOLD_SHARE = 0.01;

/** The jobs a store needs now, in the order they run. `run` is undefined for maintenance alone (no run before it). */
export function planMaintenance(f: IndexFacts, run?: RunFacts): Job[] {
  const jobs: Job[] = [];
  if (f.rows === 0) {
    if (f.linkCountsStale) jobs.push({ kind: 'count-links', phase: run ? 'now' : 'background', reason: 'the index is empty: nothing to read' });
    return jobs;
  }
  const written = run ? run.rowsWritten + run.rowsRemoved : 0;
  const large = run !== undefined && written >= LARGE_RUN_SHARE * f.rows;
  // What is not searchable without an index is done inside the run.
  const share = f.keyword ? f.keyword.indexed / Math.max(1, f.keyword.indexed + f.keyword.unindexed) : 0;
  let rebuilt = false;
  if (!f.keyword || !f.scalarIndexes) {
    jobs.push({ kind: 'build-keyword-indexes', phase: run ? 'now' : 'background', reason: !f.keyword ? 'the table has no keyword index' : 'the scalar indexes are missing' });
    rebuilt = true;
  } else if (share < KEYWORD_REBUILD_BELOW_SHARE && run && !run.cancelled && large) {
    jobs.push({ kind: 'build-keyword-indexes', phase: 'now', reason: `the keyword indexes cover ${Math.round(share * 100)} % of the rows after a run that wrote most of them` });
    rebuilt = true;
  }
  // Whole-corpus work: after a large run as part of it, otherwise in the background, and there on a large table only
  // once enough has changed (BACKGROUND_FOLD_SHARE) or a stopped write left files to remove.
  const later: Phase = large && !run?.cancelled ? 'after' : 'background';
  const unindexed = f.keyword ? f.keyword.unindexed : 0;
  // (With nothing outside the indexes, e.g. right after the fold, nothing waits: a stale link count is counted then.)
  const waits = later === 'background' && !rebuilt && !f.unverifiedFiles && f.rows > SMALL_TABLE_ROWS && unindexed > 0 && unindexed < BACKGROUND_FOLD_SHARE * f.rows;
  if (!waits && (f.unverifiedFiles || f.compactionDue || (!rebuilt && unindexed > 0))) {
    const reasons = [
      !rebuilt && unindexed > 0 ? `${unindexed} rows outside the keyword indexes` : '',
      f.compactionDue ? 'fragments written since the last compaction' : '',
      f.unverifiedFiles ? 'files a stopped write may have left' : '',
    ].filter(Boolean);
    jobs.push({ kind: 'optimize', phase: later, reason: reasons.join('; ') });
  }
  if (f.vectorIndexWanted && f.pendingVectors === 0) {
    jobs.push({ kind: 'train-vector-index', phase: later, reason: 'the vector index is missing or the table has outgrown it' });
  }
  if (f.linkCountsStale && !waits) jobs.push({ kind: 'count-links', phase: later, reason: 'the reference graph changed since status last counted it' });
  return jobs;
}

/** The jobs of one phase, in plan order. */
export function jobsOf(jobs: Job[], phase: Phase): Job[] {
  return jobs.filter((j) => j.phase === phase);
}
