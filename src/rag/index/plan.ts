// The incremental plan (Continue's contract): compare the walk's (path, size, mtime) with the files table. Files whose size or
// mtime changed (or that are new) are candidates; they are hashed, and a same hash only touches the record.
import { createHash } from 'node:crypto';
import type { ChunkConfig } from '../config';
import type { FileRecord } from '../store/types';
import { inScope, type WalkEntry } from './walk';

export interface Candidate {
  entry: WalkEntry;
  /** The file's record, when the index knows it. */
  previous?: FileRecord;
}

export interface IndexPlan {
  /** New files (no record). */
  add: Candidate[];
  /** Known files whose size/mtime changed, or all of them on a full run / another embedder. */
  update: Candidate[];
  /** Records whose file is gone (deleted, renamed, now excluded). */
  remove: string[];
  /** Records whose file has the same size and mtime. */
  unchanged: FileRecord[];
}

export interface PlanOptions {
  /** Re-process every file. */
  full?: boolean;
  /** The pipeline key of this run (index/keys.ts): records built another way are redone. */
  pipelineKey: string;
  /** Only records in this scope can be removed (incremental hint); undefined = the whole folder was walked. */
  scope?: Set<string>;
  /** The current limits: a file refused under another limit (too large, timed out) is retried. */
  limits?: IngestLimits;
}

/** The settings that can refuse a file: its size limit and its parse deadline. */
export interface IngestLimits {
  maxFileSizeMB: number;
  parseTimeoutMs: number;
}

/** What refused a file: the size limit, the parse deadline, or nothing a setting could change. */
export type LimitKind = 'size' | 'deadline';

/**
 * The key of a file record. A file refused by a limit (too large for maxFileSizeMB, over the parseTimeoutMs deadline)
 * carries that limit in its key, so changing the setting that refused it retries the file, while other records (and
 * refused files whose limit is unchanged) stay as they are.
 */
export function recordKey(pipelineKey: string, kind?: LimitKind, limits?: IngestLimits): string {
  if (!kind || !limits) return pipelineKey;
  return kind === 'size' ? `${pipelineKey}+max(${limits.maxFileSizeMB}MB)` : `${pipelineKey}+deadline(${limits.parseTimeoutMs}ms)`;
}

/** The key `record` would get now: the same limit kind it was refused by, with today's value of that limit. */
export function expectedKey(record: FileRecord, pipelineKey: string, limits?: IngestLimits): string {
  const refused = /\+(max|deadline)\([^()]*\)$/.exec(record.pipelineKey);
  if (!refused || record.pipelineKey.slice(0, refused.index) !== pipelineKey) return pipelineKey;
  return recordKey(pipelineKey, refused[1] === 'max' ? 'size' : 'deadline', limits);
}

export function planChanges(walked: WalkEntry[], records: FileRecord[], o: PlanOptions): IndexPlan {
  const byPath = new Map(records.map((r) => [r.path, r]));
  const plan: IndexPlan = { add: [], update: [], remove: [], unchanged: [] };
  const seen = new Set<string>();
  for (const entry of walked) {
    seen.add(entry.path);
    const previous = byPath.get(entry.path);
    if (!previous) plan.add.push({ entry });
    else if (o.full || previous.pipelineKey !== expectedKey(previous, o.pipelineKey, o.limits) || previous.size !== entry.size || previous.mtimeMs !== entry.mtimeMs) {
      plan.update.push({ entry, previous });
    } else plan.unchanged.push(previous);
  }
  for (const r of records) {
    if (seen.has(r.path)) continue;
    if (!o.scope || inScope(o.scope, r.path)) plan.remove.push(r.path);
  }
  return plan;
}

/**
 * Version of what loaders + chunker make of a file. Bump it when their output changes (new block rules, sizes, ids), so
 * unchanged files are re-chunked by the next run instead of keeping passages of the old pipeline.
 */
export const PIPELINE_VERSION = 5; // 2: German compound parts in the keyword column and the builtin embedding; 3: OCR of scanned pages and images; 4: the links table (reference graph); 5: HTML without an <html> tag is parsed (was 'no extractable text'), pages over 1 MB without Readability, list items with headings/code/tables as sections

/** Short fingerprint of the pipeline version and the chunking settings, part of every file record's key. */
export function pipelineFingerprint(chunk: ChunkConfig): string {
  return `p${PIPELINE_VERSION}.${createHash('sha256').update(JSON.stringify(chunk)).digest('hex').slice(0, 8)}`;
}

