// The `links` table: the reference graph's rows (links/extract.ts), one set per file, written per batch of files
// right after their passages and removed with them. Cross-file edges are resolved when read (links/resolve.ts),
// so a changed, new or deleted target file never leaves another file's rows stale. A store without the table (built
// before it existed) opens and searches; it has no links until its files are indexed again.
import * as lancedb from '@lancedb/lancedb';
import { Index, type Connection, type Table } from '@lancedb/lancedb';
import { Field, Schema, Utf8 } from 'apache-arrow';
import type { LinkKind, LinkRow } from '../types';
import { candidateKeys, lawsOf, resolveEdges, targetMap, type LinkTarget, type ResolvedLink } from '../links/resolve';
import type { LawIdentity } from '../links/legal';
import { eachRow, toArrowTable } from './arrowRows';
import { sqlIn, sqlString } from './schema';
import { withCommitRetry } from './retry';

export const LINKS_TABLE = 'links';
const IN_CHUNK = 500;
const LINK_KINDS: LinkKind[] = ['link', 'reference', 'name', 'definition'];

export function linksSchema(): Schema {
  const str = (name: string) => new Field(name, new Utf8(), false);
  return new Schema([str('role'), str('from_id'), str('path'), str('fileHash'), str('kind'), str('key'), str('to_id'), str('anchor')]);
}

const COLUMNS = ['role', 'from_id', 'path', 'kind', 'key', 'to_id', 'anchor'];

function toRow(r: LinkRow, fileHash: string): Record<string, string> {
  return {
    role: r.role,
    from_id: r.from,
    path: r.path,
    fileHash,
    kind: r.kind,
    key: r.key,
    to_id: r.to,
    anchor: r.anchor,
  };
}

function fromRow(r: Record<string, unknown>): LinkRow {
  return {
    role: r.role as LinkRow['role'],
    from: r.from_id as string,
    path: r.path as string,
    kind: r.kind as LinkKind,
    key: r.key as string,
    to: r.to_id as string,
    anchor: (r.anchor as string) ?? '',
  };
}

/** Largest graph held in memory for search (rows of the links table; ~200 bytes each). */
export const GRAPH_CACHE_MAX_ROWS = 300_000;

/** The links table in memory, indexed for one-hop lookups (only `version` when it is too large to hold). */
interface GraphCache {
  version: number;
  byFrom?: Map<string, LinkRow[]>;
  byTo?: Map<string, LinkRow[]>;
  /** passage → the keys it provides. */
  provides?: Map<string, string[]>;
  /** Unresolved edges by every key they may resolve under (a § under its law's id). */
  byCandidate?: Map<string, LinkRow[]>;
  targets?: Map<string, LinkTarget[]>;
  laws?: LawIdentity[];
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function buildGraph(version: number, rows: LinkRow[]): GraphCache {
  const laws = lawsOf(rows.filter((r) => r.role === 'target' && r.key.startsWith('law:')));
  const g: Required<GraphCache> = { version, byFrom: new Map(), byTo: new Map(), provides: new Map(), byCandidate: new Map(), targets: targetMap(rows), laws };
  for (const r of rows) {
    if (r.role === 'target') push(g.provides, r.from, r.key);
    else {
      push(g.byFrom, r.from, r);
      if (r.to) push(g.byTo, r.to, r);
      else for (const k of candidateKeys(r.key, laws)) push(g.byCandidate, k, r);
    }
  }
  return g;
}

export interface LinkCounts {
  /** Resolved edges (both ends are passages of the index now). */
  links: number;
  byKind: Record<LinkKind, number>;
  /** Stored edges whose target is not in the index (yet). */
  unresolved: number;
}

/** The links table of one store. `table` is null until the writer first writes links (or when the store predates it). */
/** Drops a table when it exists (by name: no listing, see LanceStore.init). */
export async function dropIfExists(db: Connection, name: string): Promise<void> {
  try {
    await db.dropTable(name);
  } catch (err) {
    if (!/not found|does not exist/i.test(String(err))) throw err;
  }
}

export class LinksTable {
  private lawCache: { version: number; laws: ReturnType<typeof lawsOf> } | null = null;
  /** The keys of unresolved § references whose law is not known by name ("§?:…#5"), by their section ("5"). */
  private pendingCache: { version: number; bySection: Map<string, string[]> } | null = null;
  private graph: GraphCache | null = null;
  /** Rows up to which the graph is held in memory (tests set 0 to exercise the query path). */
  static cacheMaxRows = GRAPH_CACHE_MAX_ROWS;

  /** `open` opens an existing table, or gives null while another process is still creating it. */
  constructor(
    private readonly db: Connection,
    private table: Table | null,
    private readonly open: (name: string) => Promise<Table | null>,
  ) {}

  /** Opens the table when another process created it after this store was opened (never creates it). */
  private async refresh(): Promise<Table | null> {
    this.table ??= await this.open(LINKS_TABLE);
    return this.table;
  }

  /**
   * Replaces the rows of `files` (path → its rows, with the file's content hash): the paths' rows are deleted, the new
   * ones appended (a merge that deletes what a file no longer has scans the whole table). A crash in between leaves a
   * file without its links, whose record the repair of the next run redoes.
   */
  async replace(files: { path: string; fileHash: string; rows: LinkRow[] }[], append = false): Promise<void> {
    if (files.length === 0) return;
    // One row per distinct edge or target: role, from, kind, key and to.
    const distinct = new Map<string, Record<string, string>>();
    for (const f of files) for (const r of f.rows) distinct.set(`${r.role}\u0000${r.from}\u0000${r.kind}\u0000${r.key}\u0000${r.to}`, toRow(r, f.fileHash));
    const rows = [...distinct.values()];
    const paths = files.map((f) => f.path);
    await this.refresh();
    if (!append) await this.removePaths(paths);
    if (rows.length === 0) return;
    this.table ??= await this.db.createEmptyTable(LINKS_TABLE, linksSchema(), { existOk: true });
    const table = this.table;
    const schema = linksSchema();
    const data = toArrowTable(schema, rows) ?? lancedb.makeArrowTable(rows, { schema });
    await withCommitRetry(() => table.add(data));
  }

  async removePaths(paths: string[]): Promise<void> {
    if (paths.length === 0) return;
    const table = await this.refresh();
    if (!table) return;
    for (let i = 0; i < paths.length; i += IN_CHUNK) {
      const where = sqlIn('path', paths.slice(i, i + IN_CHUNK));
      await withCommitRetry(() => table.delete(where));
    }
  }

  /** (path, fileHash) of every file with rows (the repair after a killed run compares them with the file records). */
  async fileHashes(): Promise<Map<string, Set<string>>> {
    const out = new Map<string, Set<string>>();
    const table = await this.refresh();
    if (!table) return out;
    for (const r of await table.query().select(['path', 'fileHash']).toArray()) {
      const set = out.get(r.path as string) ?? new Set<string>();
      set.add(r.fileHash as string);
      out.set(r.path as string, set);
    }
    return out;
  }

  async drop(): Promise<void> {
    this.table?.close();
    this.table = null;
    await dropIfExists(this.db, LINKS_TABLE);
    this.lawCache = null;
    this.pendingCache = null;
    this.graph = null;
  }

  private async rows(where: string): Promise<LinkRow[]> {
    if (!this.table) return [];
    return (await this.table.query().where(where).select(COLUMNS).toArray()).map((r) => fromRow(r as Record<string, unknown>));
  }

  private async laws(): Promise<ReturnType<typeof lawsOf>> {
    const version = this.table ? await this.table.version() : -1;
    if (this.lawCache?.version !== version) {
      this.lawCache = { version, laws: lawsOf(await this.rows(`role = 'target' AND key LIKE 'law:%'`)) };
    }
    return this.lawCache.laws;
  }

  /** The distinct keys of the "§?:" references by section, read once per table version. */
  private async pendingBySection(): Promise<Map<string, string[]>> {
    const version = this.table ? await this.table.version() : -1;
    if (this.pendingCache?.version !== version) {
      const distinct = new Set<string>();
      if (this.table) await eachRow(this.table, `key LIKE '§?:%'`, ['key'], (r) => void distinct.add(r.key as string));
      const bySection = new Map<string, string[]>();
      for (const key of distinct) {
        const section = /#([^#.]+)(?:\.[^#]*)?$/.exec(key)?.[1];
        if (section) push(bySection, section, key);
      }
      this.pendingCache = { version, bySection };
    }
    return this.pendingCache.bySection;
  }

  /** Providers of the given keys. */
  private async targets(keys: string[]): Promise<Map<string, LinkTarget[]>> {
    const rows: LinkRow[] = [];
    for (let i = 0; i < keys.length; i += IN_CHUNK) rows.push(...(await this.rows(`role = 'target' AND ${sqlIn('key', keys.slice(i, i + IN_CHUNK))}`)));
    return targetMap(rows);
  }

  /**
   * Resolved edges leaving or reaching the given passages (one hop, both directions). Up to GRAPH_CACHE_MAX_ROWS rows the
   * whole graph is held in memory, indexed, and rebuilt when the table's version changes (another run wrote it); larger
   * graphs are queried.
   */
  async linksOf(ids: string[]): Promise<ResolvedLink[]> {
    const table = ids.length === 0 ? null : await this.refresh();
    if (!table) return [];
    const version = await table.version();
    if (this.graph?.version !== version) {
      const rows = await table.countRows();
      this.graph = rows <= LinksTable.cacheMaxRows ? buildGraph(version, await this.all()) : { version };
    }
    const g = this.graph;
    if (!g.byFrom) return this.queryLinksOf(ids);
    const idSet = new Set(ids);
    const edges: LinkRow[] = [];
    for (const id of ids) {
      edges.push(...(g.byFrom.get(id) ?? []), ...(g.byTo!.get(id) ?? []));
      for (const key of g.provides!.get(id) ?? []) edges.push(...(g.byCandidate!.get(key) ?? []));
    }
    return resolveEdges(edges, g.targets!, g.laws!).filter((e) => idSet.has(e.from) || idSet.has(e.to));
  }

  private async queryLinksOf(ids: string[]): Promise<ResolvedLink[]> {
    const idList = sqlIn('from_id', ids);
    const [outgoing, incomingLocal, provided, laws] = await Promise.all([
      this.rows(`role = 'edge' AND ${idList}`),
      this.rows(`role = 'edge' AND ${sqlIn('to_id', ids)}`),
      this.rows(`role = 'target' AND ${idList}`),
      this.laws(),
    ]);
    // Incoming across files: unresolved edges that keep a key one of these passages provides, or a § of the same
    // section under a law name that may resolve to this law. Looked up by exact keys (the key index); filtering on the
    // empty target, which most edges have, or matching keys by pattern would read the whole table.
    const keys = [...new Set(provided.map((r) => r.key))];
    const incoming: LinkRow[] = [];
    if (keys.length > 0) {
      const sections = new Set(keys.map((k) => /^§:.*#([^#.]+)/.exec(k)?.[1]).filter((s): s is string => !!s));
      const pending = sections.size > 0 ? await this.pendingBySection() : new Map<string, string[]>();
      const wanted = [...new Set([...keys, ...[...sections].flatMap((s) => pending.get(s) ?? [])])];
      for (let i = 0; i < wanted.length; i += IN_CHUNK) {
        for (const r of await this.rows(`role = 'edge' AND ${sqlIn('key', wanted.slice(i, i + IN_CHUNK))}`)) if (!r.to) incoming.push(r);
      }
    }
    const unresolved = [...outgoing, ...incoming].filter((e) => !e.to);
    const wanted = [...new Set(unresolved.flatMap((e) => candidateKeys(e.key, laws)))];
    const targets = await this.targets(wanted);
    const idSet = new Set(ids);
    return resolveEdges([...outgoing, ...incomingLocal, ...incoming], targets, laws).filter((e) => idSet.has(e.from) || idSet.has(e.to));
  }

  /** Every row (tests, diagnostics). */
  async all(): Promise<LinkRow[]> {
    const table = await this.refresh();
    if (!table) return [];
    return (await table.query().select(COLUMNS).toArray()).map((r) => fromRow(r as Record<string, unknown>));
  }

  /**
   * Counts of the whole graph (for status, not for search), in bounded memory: the target rows are held (edges resolve
   * to them), the edges stream through in batches, and the edges already counted are kept as hashes, not rows.
   */
  async counts(): Promise<LinkCounts | null> {
    const table = await this.refresh();
    if (!table) return null;
    const targetRows: LinkRow[] = [];
    await eachRow(table, "role = 'target'", COLUMNS, (r) => targetRows.push(fromRow(r)));
    const targets = targetMap(targetRows);
    const laws = lawsOf(targetRows.filter((r) => r.key.startsWith('law:')));
    targetRows.length = 0;
    const byKind = Object.fromEntries(LINK_KINDS.map((k) => [k, 0])) as Record<LinkKind, number>;
    // One resolved link per (from, to, kind), as resolveEdges keeps it; an edge row is unresolved when no resolved link
    // leaves its passage with its kind and anchor.
    const counted = new Set<number>();
    const anchored = new Set<number>();
    let links = 0;
    let batch: LinkRow[] = [];
    const resolveBatch = () => {
      for (const e of resolveEdges(batch, targets, laws)) {
        anchored.add(hash53(e.from, e.kind, e.anchor));
        const h = hash53(e.from, e.to, e.kind);
        if (counted.has(h)) continue;
        counted.add(h);
        byKind[e.kind]++;
        links++;
      }
      batch = [];
    };
    await eachRow(table, "role = 'edge'", COLUMNS, (r) => {
      batch.push(fromRow(r));
      if (batch.length >= COUNT_BATCH) resolveBatch();
    });
    resolveBatch();
    let unresolved = 0;
    await eachRow(table, "role = 'edge'", ['from_id', 'kind', 'anchor'], (r) => {
      if (!anchored.has(hash53(r.from_id as string, r.kind as string, (r.anchor as string) ?? ''))) unresolved++;
    });
    return { links, byKind, unresolved };
  }

  /** Scalar indexes for the read-time lookups (by from, to and key); created by the writer when missing. */
  async ensureIndexes(): Promise<void> {
    const table = await this.refresh();
    if (!table || (await table.countRows()) === 0) return;
    const have = new Set((await table.listIndices()).flatMap((i) => i.columns));
    for (const column of ['from_id', 'to_id', 'key']) if (!have.has(column)) await table.createIndex(column, { config: Index.btree(), replace: true });
  }

  async optimize(cleanupOlderThan: (t: Table) => Promise<Date>, deleteUnverified: boolean): Promise<void> {
    const table = await this.refresh();
    if (!table) return;
    await this.ensureIndexes();
    const keepFrom = await cleanupOlderThan(table);
    await withCommitRetry(() => table.optimize({ cleanupOlderThan: keepFrom, deleteUnverified }));
  }

  close(): void {
    this.table?.close();
    this.table = null;
  }
}

/** Edge rows resolved at a time while counting. */
const COUNT_BATCH = 20_000;

/** A 53-bit hash of some strings (two FNV-1a variants): a set of these stands for a set of the joined strings. */
function hash53(...parts: string[]): number {
  let a = 0x811c9dc5;
  let b = 0x01000193;
  for (const p of parts) {
    for (let i = 0; i < p.length; i++) {
      const c = p.charCodeAt(i);
      a = Math.imul(a ^ c, 0x01000193);
      b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
    }
    a = Math.imul(a ^ 0xff, 0x01000193);
    b = Math.imul(b ^ 0xff, 0x5bd1e995);
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) & 0x1fffff);
}
