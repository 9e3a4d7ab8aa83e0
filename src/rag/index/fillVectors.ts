// Last step of a run with a slow embedder (`Embedder.deferVectors`: local, Ollama): the passages were written with their
// text, keyword columns and placeholder vectors marked pending, so keyword search already works. Their vectors are
// computed here, in batches; each batch is one job of the engine's write queue under the writer lock (other runs and
// watcher updates interleave between batches) and one commit, so a kill loses at most the batch in flight and the next
// run continues where this one stopped. Vector search only ever sees filled vectors.
//
// A batch's commit writes only the vector columns (a partial-schema merge): LanceDB rewrites those columns for the whole
// fragment each filled row is in, and the rows mostly keep their place under the keyword indexes (one fragment of 1,010
// rows in a test of 11,250 left them; keyword search scans such rows until the next optimize). The cost of a
// batch is therefore its fragments' size: the run leaves its appended fragments (2,048 rows each) uncompacted until the
// fill is done (indexer.ts). On one compacted fragment of 75k rows every batch of 256 wrote 117 MB and took ~140 MB more
// memory (BENCHMARKS.md, "An in-process model's memory").
import type { Engine } from '../engine';
import { embeddingText } from '../text/compounds';
import { acquireWriterLock, WriterLockAbortedError } from './writerLock';

/** Passages embedded and written per batch (one queue job, one commit). */
export const FILL_BATCH = 256;
export interface FillResult {
  filled: number;
  total: number;
  /** Stopped by the signal (or the index was rebound to another embedder): the next run continues. */
  stopped: boolean;
}

/**
 * Fills the pending vectors of the engine's index until none is left. `onBatch` reports the counts after each batch.
 * Embedder and store errors are thrown (what is filled stays filled).
 */
export async function fillPendingVectors(
  engine: Engine,
  o: {
    signal?: AbortSignal;
    batch?: number;
    onBatch?: (counts: { filled: number; total: number }) => void;
  } = {},
): Promise<FillResult> {
  const { store, embedder } = engine;
  if (!store.pendingVectors || !store.fillVectors || !store.vectorCounts) return { filled: 0, total: 0, stopped: false };
  const size = Math.max(1, o.batch ?? FILL_BATCH);
  let counts = await store.vectorCounts();
  o.onBatch?.(counts);
  while (counts.filled < counts.total) {
    if (o.signal?.aborted) return { ...counts, stopped: true };
    const done = await engine.queue.run(async () => {
      let release: () => void;
      try {
        release = await acquireWriterLock(engine.storeDir, { wait: true, signal: o.signal, purpose: 'filling vectors' });
      } catch (err) {
        if (err instanceof WriterLockAbortedError) return -1;
        throw err;
      }
      try {
        // Another process may have rebound the index to another embedder meanwhile: never write this one's vectors there.
        const bound = store.meta()?.embedder;
        if (!bound || bound.id !== embedder.id || bound.model !== embedder.model || bound.dimension !== embedder.dimension) return -1;
        const pending = await store.pendingVectors!(size);
        if (pending.length === 0) return 0;
        // A kill inside the commit leaves the mark: the next run cleans up what the killed write left on disk.
        await store.markRun(true);
        try {
          let vectors: Float32Array[];
          try {
            vectors = await embedder.embed(pending.map((p) => embeddingText(p, embedder.id)), o.signal);
          } catch (err) {
            // Cancelled while the embedder worked (it throws its 'cancelled' error): a stop, like one between batches.
            if (o.signal?.aborted) return -1;
            throw err;
          }
          if (o.signal?.aborted) return -1;
          // 0 (nothing matched) ends the loop rather than reading the same rows again.
          return await store.fillVectors!(pending.map((p, i) => ({ id: p.id, vector: vectors[i] })));
        } finally {
          await store.markRun(false);
        }
      } finally {
        release();
      }
    });
    counts = await store.vectorCounts();
    o.onBatch?.(counts);
    if (done < 0) return { ...counts, stopped: true };
    if (done === 0) break;
  }
  return { ...counts, stopped: false };
}
