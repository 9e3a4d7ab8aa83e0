// Runs a job for each item with a few in flight, in order. Cancellation stops taking new items; the first error stops
// the others from taking new items and is returned (not thrown), so the caller can first write what is finished.
// With a weight and a budget, the items in flight also weigh at most `budget` together (an item heavier than the budget
// runs alone); items start in order, so a heavy one is never passed by the light ones behind it.
export interface BoundedRunResult {
  cancelled: boolean;
  /** The first error of a job (not a cancellation), or null. */
  failure: unknown;
}

export interface BoundedRunOptions<T> {
  signal?: AbortSignal;
  onDone?: (item: T) => void;
  /** The item's weight (e.g. a file's size in bytes) and the most the items in flight may weigh together. */
  weight?: (item: T) => number;
  budget?: number;
}

export async function runBounded<T>(items: readonly T[], inFlight: number, job: (item: T) => Promise<void>, options: BoundedRunOptions<T> = {}): Promise<BoundedRunResult> {
  const { signal, weight, budget = Infinity } = options;
  let next = 0;
  let cancelled = false;
  let failure: unknown = null;
  let used = 0;
  let waiting: (() => void)[] = [];
  const release = (w: number) => {
    used -= w;
    const wake = waiting;
    waiting = [];
    for (const r of wake) r();
  };
  // Items are taken one after the other: the next take waits until the previous item fits the budget.
  let turn: Promise<unknown> = Promise.resolve();
  const take = (): Promise<{ item: T; w: number } | null> => {
    const taken = turn.then(async () => {
      if (next >= items.length || failure || signal?.aborted) return null;
      const item = items[next++];
      const w = weight ? Math.max(0, weight(item)) : 0;
      while (used > 0 && used + w > budget) await new Promise<void>((r) => waiting.push(r));
      if (failure || signal?.aborted) return null;
      used += w;
      return { item, w };
    });
    turn = taken.catch(() => undefined);
    return taken;
  };
  const worker = async () => {
    for (;;) {
      const got = await take();
      if (!got) {
        if (signal?.aborted) cancelled = true;
        return;
      }
      try {
        await job(got.item);
      } catch (err) {
        if (signal?.aborted) cancelled = true;
        else failure ??= err;
        return;
      } finally {
        release(got.w);
      }
      options.onDone?.(got.item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, items.length) }, worker));
  if (signal?.aborted) cancelled = true;
  return { cancelled, failure };
}
