// LanceDB's errors carry Rust source paths and "Caused by" chains. Users get one sentence that says what happened and
// what to do; the raw text stays available for a debug log.

const LANCE = /lance error|lancedb|\.rs:\d+:\d+|Caused by:|_versions|\.lance\b|\.manifest\b/i;

/** Whether an error message is LanceDB's raw text. */
export function isRawStoreError(message: string): boolean {
  return LANCE.test(message);
}

/** One sentence for a store error, naming the index folder and the next step; other errors pass through unchanged. */
export function explainStoreError(err: unknown, storeDir?: string): string {
  const raw = err instanceof Error ? err.message : String(err);
  if (!isRawStoreError(raw)) return raw;
  const where = storeDir ? ` (${storeDir})` : '';
  if (/commit conflict|preempted|concurrent/i.test(raw)) {
    return `Another writer changed the index${where} at the same moment and the change could not be merged; run the command again.`;
  }
  if (/not found|no such file|does not exist|could not be loaded|corrupt|incomplete/i.test(raw)) {
    return `Part of the index${where} is missing or unreadable; rebuild it with "docs-rag index <folder> --full" (or delete the index folder).`;
  }
  if (/no space|disk full|ENOSPC/i.test(raw)) return `The disk holding the index${where} is full; free some space and run again.`;
  if (/permission|EACCES|EPERM/i.test(raw)) return `The index${where} cannot be written (permission denied); check the folder's permissions.`;
  const first = raw.split(/,\s*\/|\s+Caused by:/)[0].replace(/^lance error:\s*/i, '').trim();
  return `The index store failed${where}: ${first}.`.replace(/\.\.$/, '.');
}
