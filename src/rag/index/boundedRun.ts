// Runs a job for each item with a few in flight. Cancellation stops taking new items; the first error stops the
// others from taking new items and is returned (not thrown), so the caller can first write what is finished.
export interface BoundedRunResult {
  cancelled: boolean;
  /** The first error of a job (not a cancellation), or null. */
  failure: unknown;
}

export async function runBounded<T>(
  items: readonly T[],
  inFlight: number,
  job: (item: T) => Promise<void>,
  options: { signal?: AbortSignal; onDone?: (item: T) => void } = {},
): Promise<BoundedRunResult> {
  const { signal } = options;
  let next = 0;
  let cancelled = false;
  let failure: unknown = null;
  const worker = async () => {
    while (next < items.length && !failure) {
      if (signal?.aborted) {
        cancelled = true;
        return;
      }
      const item = items[next++];
      try {
        await job(item);
      } catch (err) {
        if (signal?.aborted) {
          cancelled = true;
          return;
        }
        failure ??= err;
        return;
      }
      options.onDone?.(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, items.length) }, worker));
  if (signal?.aborted) cancelled = true;
  return { cancelled, failure };
}
