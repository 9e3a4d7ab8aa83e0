// One writer at a time for a remote store, across machines: a lease in the store itself, the row `writer.lease` of its
// table `store_files` (sideFiles.ts). The local writer lock (index/writerLock.ts) orders the writers of one machine;
// this lease orders the builders of a team's index (two CI jobs, a CI job and a person). The holder renews it every
// RENEW_MS; a lease not renewed for LEASE_MS is stale and is taken over. Not every S3-compatible server honours
// conditional writes, so the take does not rely on them: the taker writes, waits CONFIRM_MS and reads again, and only a
// lease still its own is held, which leaves a window of that length; LanceDB's commits keep each table consistent.
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import type { Connection, Table } from '@lancedb/lancedb';
import { withCommitRetry } from './retry';
import { SIDE_TABLE, openSideTable, sideTableSchema } from './sideFiles';

export const LEASE_ROW = 'writer.lease';
export const LEASE_MS = 120_000;
const RENEW_MS = 15_000;
const CONFIRM_MS = 500;
const POLL_MS = 2_000;

export interface LeaseHolder {
  id: string;
  pid: number;
  host: string;
  purpose: string;
  /** Epoch ms when the lease was taken. */
  since: number;
  /** Epoch ms of the last renewal (the holder's last sign of life). */
  touchedAt: number;
}

export class RemoteLeaseBusyError extends Error {
  constructor(readonly holder: LeaseHolder, uri: string) {
    const since = new Date(holder.since).toISOString().replace('T', ' ').slice(0, 19);
    super(
      `Another docs-rag process (pid ${holder.pid} on ${holder.host}, ${holder.purpose} since ${since} UTC) is writing the team index ${uri}. ` +
        `Wait for it to finish (docs-rag index --wait); a builder that is gone loses its lease ${LEASE_MS / 60_000} minutes after its last sign of life.`,
    );
    this.name = 'RemoteLeaseBusyError';
  }
}

async function sideTable(db: Connection): Promise<Table> {
  return (await openSideTable(db)) ?? db.createEmptyTable(SIDE_TABLE, sideTableSchema, { existOk: true });
}

async function readLease(table: Table): Promise<LeaseHolder | null> {
  const rows = (await table.query().where(`name = '${LEASE_ROW}'`).select(['text']).toArray()) as { text: string }[];
  try {
    return rows.length > 0 ? (JSON.parse(rows[0].text) as LeaseHolder) : null;
  } catch {
    return null;
  }
}

const writeLease = (table: Table, holder: LeaseHolder) =>
  withCommitRetry(() => table.mergeInsert('name').whenMatchedUpdateAll().whenNotMatchedInsertAll().execute([{ name: LEASE_ROW, text: JSON.stringify(holder) }]));

/**
 * Takes the store's writer lease; returns its release. A live lease of another writer: waits for it (`wait`, until
 * `signal` aborts: then an AbortError) or throws RemoteLeaseBusyError at once.
 */
export async function takeLease(
  db: Connection,
  uri: string,
  o: { purpose: string; wait: boolean; signal?: AbortSignal; onWait?: (holder: LeaseHolder) => void },
): Promise<() => Promise<void>> {
  const table = await sideTable(db);
  const me: LeaseHolder = { id: randomUUID(), pid: process.pid, host: os.hostname(), purpose: o.purpose, since: Date.now(), touchedAt: Date.now() };
  let told = false;
  for (;;) {
    o.signal?.throwIfAborted();
    const current = await readLease(table);
    if (!current || Date.now() - current.touchedAt > LEASE_MS) {
      await writeLease(table, { ...me, touchedAt: Date.now() });
      await delay(CONFIRM_MS);
      if ((await readLease(table))?.id === me.id) break;
      continue;
    }
    if (!o.wait) {
      table.close();
      throw new RemoteLeaseBusyError(current, uri);
    }
    if (!told) {
      told = true;
      o.onWait?.(current);
    }
    await delay(POLL_MS, undefined, { signal: o.signal });
  }
  const renew = setInterval(() => void writeLease(table, { ...me, touchedAt: Date.now() }).catch(() => undefined), RENEW_MS);
  renew.unref();
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    clearInterval(renew);
    try {
      if ((await readLease(table))?.id === me.id) await withCommitRetry(() => table.delete(`name = '${LEASE_ROW}'`));
    } finally {
      table.close();
    }
  };
}
