// First step of a run (under the writer lock): bind the index to the embedder and repair what a killed run left.
import type { RecordedSettings } from '../config';
import type { IndexStore } from '../store/types';

export interface RecoveryResult {
  /** The index was built by another embedder, or somewhere else, and was emptied: everything is re-embedded. */
  reembedded: boolean;
  /**
   * The index was not created in this store folder (copied, cloned, unpacked, or older than the mark): its passages
   * were not made from these files here, so it was emptied and every file is read again.
   */
  untrusted: boolean;
  /** The previous run was killed, or the store held passages its records do not account for; the index was repaired. */
  recovered: boolean;
  /** Passages the repair removed. */
  repairedPassages: number;
}

/**
 * Binds the store to the embedder, detects a killed run (its mark is still in meta.json: we hold the writer lock, so
 * whatever its pid is now, that run is gone) or unaccounted passages, marks this run as started (recording its
 * settings) and repairs.
 */
export async function bindAndRecover(
  store: IndexStore,
  info: Parameters<IndexStore['useEmbedder']>[0],
  warnings: string[],
  key: string,
  settings: RecordedSettings,
): Promise<RecoveryResult> {
  const before = store.meta();
  const untrusted = !!before && before.home !== store.home();
  const reembedded = await store.useEmbedder(info);
  if (untrusted) {
    warnings.push('The index was not built in this place (copied or cloned with the folder, or made by an older version): none of its passages is trusted; it was emptied and every file is read and indexed again.');
  } else if (reembedded) warnings.push(`The index was built by another embedder; every document is re-embedded with ${key}.`);
  let recovered = !!store.meta()?.runInProgress;
  // A store that holds more passages than its file records count (duplicates written by two unlocked writers of an
  // older version, or any other damage) is repaired like a killed run: the affected files are removed and redone.
  if (!recovered && (await passageCountMismatch(store))) {
    recovered = true;
    warnings.push('The index held passages its file records do not account for (for example duplicates); the affected files are indexed again.');
  }
  await store.markRun(true, settings);
  const repairedPassages = recovered ? await store.repair() : 0;
  return { reembedded, untrusted, recovered, repairedPassages };
}

/** Whether the passages table holds another number of rows than the indexed file records say. */
async function passageCountMismatch(store: IndexStore): Promise<boolean> {
  const records = await store.listFiles();
  const expected = records.reduce((n, r) => n + (r.status === 'indexed' ? r.passages : 0), 0);
  return (await store.countPassages()) !== expected;
}
