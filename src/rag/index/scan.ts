// Second step of a run: walk the folder (or only the hinted paths) and plan what to add, update, remove and keep.
import type { Engine } from '../engine';
import { planChanges, type IndexPlan, type IngestLimits } from './plan';
import type { RunProgress } from './progress';
import { statPaths, walkFolder, type WalkEntry } from './walk';

export interface ScanOptions {
  /** Incremental hint: only these files/folders are looked at. */
  paths?: string[];
  full?: boolean;
  signal?: AbortSignal;
}

export async function scanChanges(
  engine: Engine,
  o: ScanOptions,
  pipelineKey: string,
  limits: IngestLimits,
  progress: RunProgress,
): Promise<{ walked: number; plan: IndexPlan; ignored?: number }> {
  const { config } = engine;
  const walkOptions = {
    include: config.ingest.include,
    exclude: config.ingest.exclude,
    storeDir: engine.storeDir,
    signal: o.signal,
    followExternalSymlinks: config.ingest.followExternalSymlinks === true,
    useIgnoreFiles: config.ingest.useIgnoreFiles !== false,
    counts: { ignored: 0 },
    special: [] as WalkEntry[],
  };
  let walked: WalkEntry[];
  let scope: Set<string> | undefined;
  // The file records are read while the walk runs (it yields between folders), and a parser worker starts loading its
  // code on another core meanwhile: a run is mostly started because something changed (a save, a checkout), and then
  // the first parse does not wait for it. A run that finds nothing to parse stops it unused.
  const listed = engine.store.listFiles();
  // Awaited only after the walk, and not at all after a cancel: a failed read must not be an unhandled rejection.
  listed.catch(() => undefined);
  if (!o.paths) engine.parsers().warm();
  if (o.paths) ({ entries: walked, scope } = await statPaths(engine.folder, o.paths, walkOptions));
  else walked = await walkFolder(engine.folder, walkOptions);
  // Named pipes, link loops and the like are planned like files: their record says why they are skipped.
  if (walkOptions.special.length > 0) walked = [...walked, ...walkOptions.special].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  progress.lap('walk');
  // A walk cut short by a cancel lists only part of the folder: planning from it would remove every file it missed.
  const plan: IndexPlan = o.signal?.aborted
    ? { add: [], update: [], remove: [], unchanged: [] }
    : planChanges(walked, await listed, { full: o.full, pipelineKey, scope, limits });
  progress.lap('plan');
  // Said only for a walk of the whole folder (a hint looks at a few paths).
  return { walked: walked.length, plan, ...(o.paths ? {} : { ignored: walkOptions.counts.ignored }) };
}
