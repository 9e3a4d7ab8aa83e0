// Content-addressed cache of LLM enrichments: one JSON line per result in <cacheDir>/enrich-cache.jsonl, keyed by
// sha256(kind, model, inputs). Appending single lines keeps it crash-safe (a torn last line is ignored on load), so
// a killed run resumes where it stopped and unchanged passages never pay twice.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const CACHE_FILE = 'enrich-cache.jsonl';

export function cacheKey(...parts: string[]): string {
  const h = createHash('sha256');
  for (const p of parts) {
    h.update(String(p.length));
    h.update(':');
    h.update(p);
  }
  return h.digest('hex');
}

export class EnrichCache {
  private readonly map = new Map<string, string>();
  readonly file: string;
  hits = 0;
  misses = 0;
  written = 0;
  /** The file ends in a line torn by a crash: the next append starts a new line. */
  private torn = false;

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
    for (const line of raw.split('\n')) {
      if (!line) continue;
      try {
        const row = JSON.parse(line) as { k?: unknown; v?: unknown };
        if (typeof row.k === 'string' && typeof row.v === 'string') this.map.set(row.k, row.v);
      } catch {
        // A line torn by a crash: that entry is recomputed.
      }
    }
  }

  get size(): number {
    return this.map.size;
  }

  get(key: string): string | undefined {
    const v = this.map.get(key);
    if (v === undefined) this.misses++;
    else this.hits++;
    return v;
  }

  /** Stores a value and appends it to the file at once (a later crash keeps it). */
  put(key: string, value: string): void {
    if (this.map.get(key) === value) return;
    this.map.set(key, value);
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    // Start on a fresh line if a previous process died mid-line.
    fs.appendFileSync(this.file, `${this.torn ? '\n' : ''}${JSON.stringify({ k: key, v: value })}\n`);
    this.torn = false;
    this.written++;
  }
}

const open = new Map<string, EnrichCache>();
