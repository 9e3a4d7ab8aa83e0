// Last step of a run with a slow embedder (`Embedder.deferVectors`: local, Ollama): the passages were written with their
// text, keyword columns and placeholder vectors marked pending, so keyword search already works. Their vectors are
// computed here, one storage fragment at a time: its waiting rows are read (no lock: embedding takes long, and other
// runs and watcher updates go on meanwhile), embedded in calls of FILL_BATCH texts (progress, cancel), and written in
// one commit, a job of the engine's write queue under the writer lock, after checking that the rows still wait with the
// text that was embedded (another writer may have replaced, removed or filled them). A cancel writes what is embedded;
// a kill loses at most the fragment in flight, and the next run continues where this one stopped. Vector search only
// ever sees filled vectors.
//
// Why per fragment: a commit writes only the vector columns (a partial-schema merge), and LanceDB 0.37 rewrites those
// columns for the whole fragment each written row is in (in place: the rows stay under the keyword indexes). Commits of
// a few hundred rows wrote each fragment of a first build many times over (superseded files until the optimize after
// the fill); one commit per fragment writes it once. For the same reason the run leaves its appended fragments
// uncompacted until the fill is done (indexer.ts): on one compacted fragment every commit would rewrite the whole
// table's vector columns.
import type { Engine } from '../engine';
import { embeddingText } from '../text/compounds';
import { createHash } from 'node:crypto';
import { acquireWriterLock, WriterLockAbortedError, WriterLockBusyError } from './writerLock';

/** Texts per embedder call: the fill's progress steps and how soon a cancel is seen. */
export const FILL_BATCH = 256;
/** Rows per commit at most: one fragment's waiting rows (a run appends fragments of ~2,000 rows). */
export const FILL_COMMIT_ROWS = 4096;

export interface FillResult {
  filled: number;
  total: number;
  /** Stopped by the signal (or the index was rebound to another embedder): the next run continues. */
  stopped: boolean;
  /** Stopped because `yieldWhen` said so (another run waits): that run continues the fill. */
  yielded?: boolean;
}

/**
 * Fills the pending vectors of the engine's index until none is left. `onBatch` reports the counts after each embedder
 * call (the embedded rows of the fragment in flight counted as filled) and after each commit. Embedder and store
 * errors are thrown (what is filled stays filled).
 */
export async function fillPendingVectors(
  engine: Engine,
  o: {
    signal?: AbortSignal;
    /** Texts per embedder call (FILL_BATCH). */
    batch?: number;
    /** Asked between embedder calls: true stops the fill like a cancel (another run waits to write its files first). */
    yieldWhen?: () => boolean;
    onBatch?: (counts: { filled: number; total: number }) => void;
  } = {},
): Promise<FillResult> {
  const { store, embedder } = engine;
  const size = Math.max(1, o.batch ?? FILL_BATCH);
  let counts = await store.vectorCounts();
  o.onBatch?.(counts);
  while (counts.filled < counts.total) {
    if (o.signal?.aborted || !boundHere(engine)) return { ...counts, stopped: true };
    if (o.yieldWhen?.()) return { ...counts, stopped: true, yielded: true };
    // The ids of the waiting rows of the first fragment that has any (storage order); their texts are read per call,
    // so the fill holds one call's texts, not a fragment's.
    const waiting = await store.pendingVectorUnits(FILL_COMMIT_ROWS);
    if (waiting.length === 0) break;
    const ids = waiting.filter((w) => w.unit === waiting[0].unit).map((w) => w.id);
    const embedded: Embedded[] = [];
    let stopped = false;
    let yielded = false;
    for (let i = 0; i < ids.length; i += size) {
      if (o.signal?.aborted) {
        stopped = true;
        break;
      }
      if (i > 0 && o.yieldWhen?.()) {
        yielded = true;
        break;
      }
      const texts = (await store.pendingVectors(size, ids.slice(i, i + size))).map((p) => ({ id: p.id, text: embeddingText(p, embedder.id) }));
      if (texts.length === 0) continue;
      try {
        const vectors = await embedder.embed(texts.map((t) => t.text), o.signal);
        texts.forEach((t, k) => embedded.push({ id: t.id, digest: digest(t.text), vector: vectors[k] }));
      } catch (err) {
        // Cancelled while the embedder worked (it throws its 'cancelled' error): a stop, like one between calls.
        if (o.signal?.aborted) {
          stopped = true;
          break;
        }
        throw err;
      }
      o.onBatch?.({ filled: Math.min(counts.total, counts.filled + embedded.length), total: counts.total });
    }
    const before = counts.filled;
    const wrote = await commit(engine, embedded, size, stopped ? 'stopping' : o.signal);
    counts = await store.vectorCounts();
    o.onBatch?.(counts);
    if (stopped || wrote < 0) return { ...counts, stopped: true };
    if (yielded) return { ...counts, stopped: true, yielded: true };
    // Nothing written and nothing filled by anyone else: the same rows would come back; the next run tries again.
    if (wrote === 0 && counts.filled <= before) break;
  }
  return { ...counts, stopped: false };
}

/** An embedded row: its vector and a digest of the text it was embedded from (checked before the write). */
interface Embedded {
  id: string;
  digest: string;
  vector: Float32Array;
}

const digest = (text: string) => createHash('sha1').update(text).digest('base64');

/** Whether the index is still bound to this engine's embedder (another process may have rebound it meanwhile). */
function boundHere(engine: Engine): boolean {
  const bound = engine.store.meta()?.embedder;
  const { embedder } = engine;
  return !!bound && bound.id === embedder.id && bound.model === embedder.model && bound.dimension === embedder.dimension;
}

/**
 * Writes the vectors of the rows that still wait with the text they were embedded from: one job of the write queue,
 * one commit under the writer lock (waited for until `signal` aborts; after a cancel, 'stopping', taken only if free).
 * Returns the rows written, -1 when the lock could not be had or the index was rebound (nothing written).
 */
async function commit(engine: Engine, rows: Embedded[], chunk: number, signal: AbortSignal | 'stopping' | undefined): Promise<number> {
  const { store, embedder } = engine;
  if (rows.length === 0) return 0;
  return engine.queue.run(async () => {
    let release: () => Promise<void>;
    try {
      const purpose = 'filling vectors';
      release = await engine.acquireWriter(signal === 'stopping' ? { wait: false, purpose } : { wait: true, signal, purpose });
    } catch (err) {
      if (err instanceof WriterLockBusyError || err instanceof WriterLockAbortedError) return -1;
      throw err;
    }
    try {
      if (!boundHere(engine)) return -1;
      // Rows another writer removed, filled or gave a new text since they were read are left out.
      const items: { id: string; vector: Float32Array }[] = [];
      for (let i = 0; i < rows.length; i += chunk) {
        const part = rows.slice(i, i + chunk);
        const now = new Map((await store.pendingVectors(part.length, part.map((r) => r.id))).map((p) => [p.id, digest(embeddingText(p, embedder.id))]));
        for (const r of part) if (now.get(r.id) === r.digest) items.push({ id: r.id, vector: r.vector });
      }
      if (items.length === 0) return 0;
      // A kill inside the commit leaves the mark: the next run cleans up what the killed write left on disk.
      await store.markRun(true);
      try {
        return await store.fillVectors(items);
      } finally {
        await store.markRun(false);
      }
    } finally {
      await release();
    }
  });
}
