// One writer per store, across processes. The write queue serialises writers inside one process; this lock file does the
// same between processes (the CLI, the extension, an MCP server). Readers never take it: LanceDB versions give them a
// consistent snapshot.
//
// `<store>/writer.lock` holds the holder's pid, its process start time and what it is doing. It is created atomically
// (written to a private temp file, then hard-linked into place: link fails if the lock exists), so a reader of the lock
// never sees half of it. A lock whose holder is dead (or whose pid now belongs to another process: the start time differs)
// is stale and is reclaimed under a short-lived reclaim mutex, so two reclaimers cannot both win. The processes of
// another machine (a store on a shared drive, a dev container rebuilt under a new host name) cannot be checked: the
// holder touches the lock file every HEARTBEAT_MS, and a lock of another host untouched for FOREIGN_STALE_MS is stale.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

export const WRITER_LOCK_FILE = 'writer.lock';
/** How often a holder touches its lock file (its mtime is the holder's last sign of life). */
export const HEARTBEAT_MS = 15_000;
/** A lock of another host whose file was not touched for this long is stale (8 missed heartbeats). */
export const FOREIGN_STALE_MS = 120_000;

export interface LockHolder {
  pid: number;
  /** Process start time as the OS reports it (Linux: /proc/<pid>/stat field 22); guards against reused pids. */
  procStart?: string;
  host: string;
  /** Epoch ms when the lock was taken. */
  since: number;
  /** What the holder does ("index", "optimize", ...). */
  purpose: string;
  /** Set when read, not stored: the lock file's mtime, the holder's last heartbeat (epoch ms). */
  touchedAt?: number;
}

/**
 * The purpose of background maintenance (maintenance.ts): a run that needs the lock stops its holder on this host
 * instead of waiting for it (the holder's LanceDB commits are atomic; the next maintenance does its job again).
 */
export const MAINTENANCE_PURPOSE = 'maintenance';

export interface AcquireOptions {
  /** Wait for the holder to finish (default) or fail at once with WriterLockBusyError. */
  wait?: boolean;
  signal?: AbortSignal;
  /** Called once when the lock is busy and we start waiting. */
  onWait?: (holder: LockHolder) => void;
  purpose?: string;
  /** Poll interval while waiting (ms). */
  pollMs?: number;
  /** How often the holder touches the lock file (default HEARTBEAT_MS). */
  heartbeatMs?: number;
}

export class WriterLockBusyError extends Error {
  constructor(readonly holder: LockHolder, storeDir: string) {
    super(
      `${describeHolder(holder)} is writing this index (${storeDir}). Wait for it to finish (docs-rag index --wait), or stop it and run again.` +
        (holder.host !== os.hostname() ? ` If that machine or container is gone, its lock is taken over ${FOREIGN_STALE_MS / 60_000} minutes after its last sign of life.` : ''),
    );
    this.name = 'WriterLockBusyError';
  }
}

export class WriterLockAbortedError extends Error {
  constructor() {
    super('cancelled while waiting for another docs-rag process to finish writing the index');
    this.name = 'WriterLockAbortedError';
  }
}

export function describeHolder(h: LockHolder): string {
  const since = new Date(h.since).toISOString().replace('T', ' ').slice(0, 19);
  return `Another docs-rag process (pid ${h.pid}${h.host !== os.hostname() ? ` on ${h.host}` : ''}, ${h.purpose} since ${since} UTC)`;
}

/** Start time of a live process, or undefined where the OS does not tell (then only liveness is checked). */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may contain spaces and parentheses: fields after the last ')' are fixed.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return rest[19]; // field 22 overall = index 19 after state (field 3)
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid exists (EPERM: it exists but belongs to someone else). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A holder that can no longer be writing: its process is gone, or its pid was reused by another process; on another
 * host, its lock file has not been touched for FOREIGN_STALE_MS.
 */
export function isStale(h: LockHolder): boolean {
  // Another machine's processes cannot be checked: only a lock its holder stopped touching is stale.
  if (h.host !== os.hostname()) return h.touchedAt !== undefined && Date.now() - h.touchedAt > FOREIGN_STALE_MS;
  if (!isAlive(h.pid)) return true;
  const started = processStartTime(h.pid);
  return h.procStart !== undefined && started !== undefined && started !== h.procStart;
}

export function readHolder(storeDir: string): LockHolder | null {
  try {
    const file = path.join(storeDir, WRITER_LOCK_FILE);
    const h = JSON.parse(fs.readFileSync(file, 'utf8')) as LockHolder;
    if (typeof h?.pid !== 'number') return null;
    h.touchedAt = fs.statSync(file).mtimeMs;
    return h;
  } catch {
    return null;
  }
}

const ownStart = processStartTime(process.pid);
/** Locks held by this process, released on exit so a normal exit never leaves one behind. */
const held = new Set<string>();
let exitHook = false;

function tryCreate(storeDir: string, purpose: string): boolean {
  const target = path.join(storeDir, WRITER_LOCK_FILE);
  const tmp = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  const holder: LockHolder = { pid: process.pid, procStart: ownStart, host: os.hostname(), since: Date.now(), purpose };
  fs.writeFileSync(tmp, JSON.stringify(holder));
  try {
    fs.linkSync(tmp, target);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** Removes a stale lock, under a reclaim mutex so that a lock taken meanwhile by a third process is never removed. */
function reclaimStale(storeDir: string, stale: LockHolder): void {
  const mutex = path.join(storeDir, `${WRITER_LOCK_FILE}.reclaim`);
  try {
    fs.mkdirSync(mutex);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    // A reclaimer that died inside the mutex (it is held for microseconds): clear it after a while.
    try {
      if (Date.now() - fs.statSync(mutex).mtimeMs > 10_000) fs.rmdirSync(mutex);
    } catch {
      /* someone else cleared it */
    }
    return;
  }
  try {
    const now = readHolder(storeDir);
    if (now && now.pid === stale.pid && now.since === stale.since && isStale(now)) {
      fs.rmSync(path.join(storeDir, WRITER_LOCK_FILE), { force: true });
    }
  } finally {
    fs.rmdirSync(mutex);
  }
}

/**
 * Takes the store's writer lock; returns its release function. Waits while another live process holds it (or throws
 * WriterLockBusyError with `wait: false`); reclaims the lock of a dead holder.
 */
export async function acquireWriterLock(storeDir: string, o: AcquireOptions = {}): Promise<() => void> {
  fs.mkdirSync(storeDir, { recursive: true });
  const key = path.resolve(storeDir);
  let told = false;
  for (;;) {
    if (o.signal?.aborted) throw new WriterLockAbortedError();
    // Another engine of this process on the same store (the write queue is per engine) counts as another writer.
    if (!held.has(key) && tryCreate(storeDir, o.purpose ?? 'index')) break;
    const holder = readHolder(storeDir);
    if (holder === null) {
      // Between another process's link and our read, or an unreadable lock left by a crash inside the link: retry soon;
      // a lock file that stays unreadable is removed after a grace period.
      const lock = path.join(storeDir, WRITER_LOCK_FILE);
      try {
        if (Date.now() - fs.statSync(lock).mtimeMs > 5_000) fs.rmSync(lock, { force: true });
      } catch {
        /* gone already */
      }
    } else if (!held.has(key) && isStale(holder)) {
      reclaimStale(storeDir, holder);
      continue;
    } else if (!held.has(key) && o.purpose !== MAINTENANCE_PURPOSE && holder.purpose === MAINTENANCE_PURPOSE && holder.host === os.hostname()) {
      // Background maintenance gives way to a write: stopped at once, its lock is taken over once it is gone.
      try {
        process.kill(holder.pid, 'SIGKILL');
      } catch {
        /* gone already */
      }
    } else {
      if (o.wait === false) throw new WriterLockBusyError(holder, storeDir);
      if (!told) {
        told = true;
        o.onWait?.(holder);
      }
    }
    await sleep(o.pollMs ?? 100, o.signal);
  }
  held.add(key);
  // The heartbeat: the lock file's mtime says the holder is alive (what a process on another host can check).
  const lockFile = path.join(key, WRITER_LOCK_FILE);
  const heartbeat = setInterval(() => {
    try {
      const t = new Date();
      fs.utimesSync(lockFile, t, t);
    } catch {
      /* removed by hand: nothing to keep alive */
    }
  }, o.heartbeatMs ?? HEARTBEAT_MS);
  heartbeat.unref();
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const dir of held) releaseFile(dir);
    });
  }
  let released = false;
  return () => {
    if (released) return;
    released = true;
    clearInterval(heartbeat);
    held.delete(key);
    releaseFile(key);
  };
}

/** Tries to take the lock without waiting; null when another live process holds it. */
export async function tryAcquireWriterLock(storeDir: string, purpose: string): Promise<(() => void) | null> {
  try {
    return await acquireWriterLock(storeDir, { wait: false, purpose });
  } catch (err) {
    if (err instanceof WriterLockBusyError) return null;
    throw err;
  }
}

function releaseFile(storeDir: string): void {
  const h = readHolder(storeDir);
  if (h && h.pid === process.pid) fs.rmSync(path.join(storeDir, WRITER_LOCK_FILE), { force: true });
}

/** Waits `ms`, or less when `signal` aborts (the caller's loop then sees the abort). */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal }).catch(() => undefined);
}
