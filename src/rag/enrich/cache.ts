// Content-addressed cache of LLM enrichments: one JSON line per result in <cacheDir>/enrich-cache.jsonl, keyed by
// sha256(kind, model, inputs), with the files that use it. Appending single lines keeps it crash-safe (a torn last line is
// ignored on load), so a killed run resumes where it stopped and unchanged passages never pay twice.
//
// Bounded: after each indexing run the indexer calls `prune` with the files the index holds. An entry whose files are all
// gone, or were enriched again in this process without asking for it, is dropped from memory at once; the file is
// rewritten with the live entries (temp file + rename) once its dead lines reach half the live ones, so the file stays
// below ~1.5× (plus a small constant) of what the index uses and memory holds only live entries.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const CACHE_FILE = 'enrich-cache.jsonl';

/** Dead lines tolerated before a rewrite, at least (small caches are not rewritten for a few stale lines). */
const MIN_DEAD_LINES = 200;

export function cacheKey(...parts: string[]): string {
  const h = createHash('sha256');
  for (const p of parts) {
    h.update(String(p.length));
    h.update(':');
    h.update(p);
  }
  return h.digest('hex');
}

interface Entry {
  v: string;
  /** Relative paths of the files whose passages use this result (empty: written before paths were recorded). */
  p: Set<string>;
}

export interface PruneResult {
  /** Entries dropped now. */
  dropped: number;
  /** Entries kept. */
  kept: number;
  /** The file was rewritten with the kept entries only. */
  rewritten: boolean;
}

export class EnrichCache {
  private readonly map = new Map<string, Entry>();
  readonly file: string;
  hits = 0;
  misses = 0;
  written = 0;
  /** The file ends in a line torn by a crash: the next append starts a new line. */
  private torn = false;
  /** Lines in the file that hold no live entry (superseded, torn, pruned). */
  private deadLines = 0;
  /** Files enriched in this process since the last prune → the keys their passages asked for. */
  private readonly touched = new Map<string, Set<string>>();

  private constructor(dir: string) {
    this.file = path.join(dir, CACHE_FILE);
  }

  /** Opens (and loads) the cache of a directory; one instance per file per process. */
  static open(dir: string): EnrichCache {
    const abs = path.resolve(dir);
    let cache = open.get(abs);
    if (!cache) {
      cache = new EnrichCache(abs);
      cache.load();
      open.set(abs, cache);
    }
    return cache;
  }

  /** Forgets the loaded instance (tests, or after another process wrote to the file). */
  static forget(dir: string): void {
    open.delete(path.resolve(dir));
  }

  private load(): void {
    let raw: string;
    try {
      raw = fs.readFileSync(this.file, 'utf8');
    } catch {
      return;
    }
    this.torn = raw.length > 0 && !raw.endsWith('\n');
    let lines = 0;
    for (const line of raw.split('\n')) {
      if (!line) continue;
      lines++;
      try {
        const row = JSON.parse(line) as { k?: unknown; v?: unknown; p?: unknown };
        if (typeof row.k !== 'string' || typeof row.v !== 'string') continue;
        const paths = Array.isArray(row.p) ? row.p.filter((x): x is string => typeof x === 'string') : typeof row.p === 'string' ? [row.p] : [];
        const had = this.map.get(row.k);
        if (had && had.v === row.v) for (const x of paths) had.p.add(x);
        else this.map.set(row.k, { v: row.v, p: new Set(paths) });
      } catch {
        // A line torn by a crash: that entry is recomputed.
      }
    }
    this.deadLines = lines - this.map.size;
  }

  get size(): number {
    return this.map.size;
  }

  /** Lines of the cache file that hold no live entry (for tests and logs). */
  get staleLines(): number {
    return this.deadLines;
  }

  /**
   * Marks the start of a file's enrichment: from now on only the keys asked for (`get`/`put` with this path) belong to it,
   * so results of its previous content can be pruned.
   */
  beginFile(file: string): void {
    this.touched.set(file, new Set());
  }

  get(key: string, file?: string): string | undefined {
    if (file !== undefined) this.touch(file, key);
    const e = this.map.get(key);
    if (e === undefined) this.misses++;
    else this.hits++;
    return e?.v;
  }

  /** Stores a value and appends it to the file at once (a later crash keeps it). */
  put(key: string, value: string, file?: string): void {
    if (file !== undefined) this.touch(file, key);
    const had = this.map.get(key);
    if (had?.v === value) {
      if (file !== undefined) had.p.add(file);
      return;
    }
    if (had) this.deadLines++;
    this.map.set(key, { v: value, p: new Set(file !== undefined ? [file] : []) });
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    // Start on a fresh line if a previous process died mid-line.
    const row = file !== undefined ? { k: key, v: value, p: [file] } : { k: key, v: value };
    fs.appendFileSync(this.file, `${this.torn ? '\n' : ''}${JSON.stringify(row)}\n`);
    this.torn = false;
    this.written++;
  }

  private touch(file: string, key: string): void {
    let keys = this.touched.get(file);
    if (!keys) this.touched.set(file, (keys = new Set()));
    keys.add(key);
  }

  /**
   * Drops the entries no indexed file uses any more: `live` holds the relative paths of the files the index holds. A file
   * enriched since the last prune keeps only the keys it asked for; a file not in `live` keeps none. Entries of files not
   * enriched since (unchanged) are kept. Rewrites the cache file when its dead lines reach half the live entries.
   * Call it only after a run that finished (a cancelled file asked for part of its keys only).
   */
  prune(live: Set<string>): PruneResult {
    // Files that asked for a key they do not hold yet (the same text in another file) become its users.
    for (const [file, keys] of this.touched) for (const k of keys) this.map.get(k)?.p.add(file);
    let dropped = 0;
    for (const [k, e] of this.map) {
      for (const file of e.p) {
        const asked = this.touched.get(file);
        if (!live.has(file) || (asked && !asked.has(k))) e.p.delete(file);
      }
      // Entries without a user: results of old content, removed files, or lines written before paths were recorded.
      if (e.p.size === 0) {
        this.map.delete(k);
        dropped++;
      }
    }
    this.touched.clear();
    this.deadLines += dropped;
    let rewritten = false;
    if (this.deadLines > 0 && this.deadLines >= Math.max(MIN_DEAD_LINES, this.map.size / 2)) {
      this.rewrite();
      rewritten = true;
    }
    return { dropped, kept: this.map.size, rewritten };
  }

  /** Writes the live entries to a temporary file and renames it over the cache (atomic: a crash keeps one or the other). */
  private rewrite(): void {
    const tmp = `${this.file}.${process.pid}.tmp`;
    const fd = fs.openSync(tmp, 'w');
    try {
      let buf = '';
      for (const [k, e] of this.map) {
        buf += `${JSON.stringify({ k, v: e.v, p: [...e.p] })}\n`;
        if (buf.length > 1 << 20) {
          fs.writeSync(fd, buf);
          buf = '';
        }
      }
      if (buf) fs.writeSync(fd, buf);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, this.file);
    this.deadLines = 0;
    this.torn = false;
  }
}

const open = new Map<string, EnrichCache>();
