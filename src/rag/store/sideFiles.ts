// A remote store's small files (meta.json, the German vocabulary, the vector-index notes) in its table `store_files`,
// one row a file (beside the writer's lease, remoteLease.ts), mirrored into a local folder (remote.ts mirrorDirFor).
// The writer publishes a file right after it wrote it locally; a reader takes the table's files on opening the store
// and on refresh. The table is written through LanceDB like the others, so a store on any object storage LanceDB opens needs no client of its own.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Connection, Table } from '@lancedb/lancedb';
import { Field, Schema, Utf8 } from 'apache-arrow';
import { createHash } from 'node:crypto';
import { META_FILE } from './meta';
import { withCommitRetry } from './retry';
import { VECTOR_INDEX_FILE } from './vectorIndexInfo';
import { VOCABULARY_FILE } from './vocabulary';

export const SIDE_TABLE = 'store_files';
/** The files a store keeps beside its tables that a reader needs. */
export const SIDE_FILES = [META_FILE, VOCABULARY_FILE, VECTOR_INDEX_FILE];
/** Older versions of the table a push leaves for readers still reading them (then the next push removes them). */
const KEEP_OLD_VERSIONS_MS = 10 * 60_000;

export const sideTableSchema = new Schema([new Field('name', new Utf8(), false), new Field('text', new Utf8(), false)]);

/** The store's table `store_files`, or null before its first write. */
export async function openSideTable(db: Connection): Promise<Table | null> {
  try {
    return await db.openTable(SIDE_TABLE);
  } catch (err) {
    if (/not found|does not exist|_versions/i.test(String(err))) return null;
    throw err;
  }
}

const digest = (text: string | null) => (text === null ? '' : createHash('sha256').update(text).digest('hex'));

export class SideFiles {
  /** Digest of each file as this process last pulled or pushed it ('' = absent). */
  private synced = new Map<string, string>();

  constructor(
    private readonly db: Connection,
    private readonly dir: string,
  ) {}

  private readLocal(name: string): string | null {
    try {
      return fs.readFileSync(path.join(this.dir, name), 'utf8');
    } catch {
      return null;
    }
  }

  /** Makes the mirror folder hold exactly the store's files (a file the store does not have is removed). */
  async pull(): Promise<void> {
    fs.mkdirSync(this.dir, { recursive: true });
    const table = await openSideTable(this.db);
    const rows = table ? ((await table.query().select(['name', 'text']).toArray()) as { name: string; text: string }[]) : [];
    table?.close();
    const remote = new Map(rows.filter((r) => SIDE_FILES.includes(r.name)).map((r) => [r.name, r.text]));
    for (const name of SIDE_FILES) {
      const text = remote.get(name) ?? null;
      const target = path.join(this.dir, name);
      if (text === null) fs.rmSync(target, { force: true });
      else if (this.readLocal(name) !== text) {
        const tmp = `${target}.${process.pid}.pull.tmp`;
        fs.writeFileSync(tmp, text);
        fs.renameSync(tmp, target);
      }
      this.synced.set(name, digest(text));
    }
  }

  /** Publishes the files that changed locally since the last pull or push (one commit). */
  async push(): Promise<void> {
    const changed: { name: string; text: string }[] = [];
    const removed: string[] = [];
    const now = new Map<string, string>();
    for (const name of SIDE_FILES) {
      const text = this.readLocal(name);
      const d = digest(text);
      now.set(name, d);
      if (d === (this.synced.get(name) ?? '')) continue;
      if (text === null) removed.push(name);
      else changed.push({ name, text });
    }
    if (changed.length === 0 && removed.length === 0) return;
    let table = await openSideTable(this.db);
    table ??= await this.db.createEmptyTable(SIDE_TABLE, sideTableSchema, { existOk: true });
    try {
      const t = table;
      if (removed.length > 0) await withCommitRetry(() => t.delete(`name IN (${removed.map((n) => `'${n}'`).join(', ')})`));
      if (changed.length > 0) await withCommitRetry(() => t.mergeInsert('name').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute(changed));
      await withCommitRetry(() => t.optimize({ cleanupOlderThan: new Date(Date.now() - KEEP_OLD_VERSIONS_MS) }));
    } finally {
      table.close();
    }
    this.synced = now;
  }
}
