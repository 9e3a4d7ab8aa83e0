// The only writer of an index run's files: the file workers hand it their results; it writes them in batches
// (bounded memory, few commits), one batch after the other. New files are appended, changed files replaced
// (mergeInsert), statuses upserted, removed files deleted.
import type { FileRecord, FileUpdate, IndexStore } from '../store/types';
import { collectGarbageIfGrown } from './garbage';

/** Passages or files buffered before one write. */
const FLUSH_ROWS = 2000;
const FLUSH_FILES = 200;

export class BatchWriter {
  private fresh: FileUpdate[] = [];
  private changed: FileUpdate[] = [];
  private statuses: FileRecord[] = [];
  private rows = 0;
  private writing: Promise<void> = Promise.resolve();
  private indexesChecked = false;
  /** Passage rows written so far (new and replaced files). */
  rowsWritten = 0;

  /**
   * @param append new files may be appended without a merge (`IndexStore.addNewFiles`); false after a killed run,
   *   when a new file may have leftover rows
   * @param onWrite called when a batch is written (progress)
   */
  constructor(
    private readonly store: IndexStore,
    private readonly append: boolean,
    private readonly onWrite: () => void,
  ) {}

  /** Removes files (their passages and records), after every write queued before. */
  remove(paths: string[]): Promise<void> {
    if (paths.length === 0) return this.writing;
    this.writing = this.writing.then(() => this.store.removeFiles(paths));
    return this.writing;
  }

  /** A new file's passages (`fresh`), a known file's new passages (`changed`), or a record without passages. */
  async write(kind: 'fresh' | 'changed', update: FileUpdate): Promise<void>;
  async write(kind: 'status', record: FileRecord): Promise<void>;
  async write(kind: 'fresh' | 'changed' | 'status', item: FileUpdate | FileRecord): Promise<void> {
    if (kind === 'status') this.statuses.push(item as FileRecord);
    else {
      (kind === 'fresh' ? this.fresh : this.changed).push(item as FileUpdate);
      this.rows += (item as FileUpdate).passages.length;
      this.rowsWritten += (item as FileUpdate).passages.length;
    }
    if (this.rows >= FLUSH_ROWS || this.fresh.length + this.changed.length + this.statuses.length >= FLUSH_FILES) await this.flush();
  }

  /** Writes what is buffered (after every earlier batch). */
  flush(): Promise<void> {
    const batch = { fresh: this.fresh, changed: this.changed, statuses: this.statuses };
    this.fresh = [];
    this.changed = [];
    this.statuses = [];
    this.rows = 0;
    this.writing = this.writing.then(async () => {
      if (batch.fresh.length + batch.changed.length + batch.statuses.length === 0) return;
      this.onWrite();
      if (this.append) await this.store.addNewFiles(batch.fresh);
      else await this.store.replaceFiles(batch.fresh);
      await this.store.replaceFiles(batch.changed);
      await this.store.recordFileStatuses(batch.statuses);
      if (!this.indexesChecked && batch.fresh.length + batch.changed.length > 0) {
        // A new index gets its keyword indexes after the first write, so even a killed first run leaves an index that answers.
        this.indexesChecked = true;
        await this.store.ensureIndexes({ vector: false });
      }
      // The batch's vectors, Arrow copies and IPC buffers are garbage now; V8 alone would keep them to the next full GC.
      collectGarbageIfGrown();
    });
    return this.writing;
  }

  /** Flushes and waits until everything is written (throws the first write error). */
  async close(): Promise<void> {
    await this.flush();
    await this.writing;
  }
}
