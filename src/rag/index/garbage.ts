// A full garbage collection between a run's batch writes, once enough garbage may have piled up. Each written passage
// leaves dead ArrayBuffers (its vector, the Arrow copy, LanceDB's IPC buffer), and V8 frees ArrayBuffers only in a
// full collection, which it schedules by the JS heap alone: after a large file had raised the heap's limit, a run
// carried its dead buffers and heap into its peak resident memory.
import * as v8 from 'node:v8';
import * as vm from 'node:vm';

/** Growth of JS heap + ArrayBuffers since the last collection that triggers the next one (few collections a run, each short). */
export const GARBAGE_BUDGET_BYTES = 48 * 1024 * 1024;

let collect: (() => void) | null | undefined;
let baseline = 0;

/** V8's collector: `gc` when node runs with --expose-gc, else the same function exposed at run time. */
function collector(): (() => void) | null {
  if (collect !== undefined) return collect;
  collect = (globalThis as { gc?: () => void }).gc ?? null;
  if (!collect) {
    try {
      // Exposes `gc` to contexts created from now on (the way test runners measure leaks); this process is unchanged.
      v8.setFlagsFromString('--expose-gc');
      collect = vm.runInNewContext('gc') as () => void;
    } catch {
      collect = null;
    }
  }
  return collect;
}

function heldBytes(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/** Collects when the JS heap and ArrayBuffers grew by more than the budget since the last collection; true if it did. */
export function collectGarbageIfGrown(budget = GARBAGE_BUDGET_BYTES): boolean {
  const held = heldBytes();
  // The lowest level seen since our last collection: V8's own collections lower it too.
  baseline = Math.min(baseline, held);
  if (held - baseline <= budget) return false;
  const gc = collector();
  if (!gc) return false;
  gc();
  baseline = heldBytes();
  return true;
}
