// Read-time resolution of the edges that leave their file: an edge keeps the key of what it points at (a § of a named
// law, a file, an anchor, a heading, a name) and finds every passage that provides that key now. So a target file that
// changes, appears or disappears changes the graph without rewriting anyone else's rows.
import type { LinkKind, LinkRow } from '../types';
import { resolveLaw, sectionKey, type LawIdentity } from './legal';

/** An edge with both ends known. */
export interface ResolvedLink {
  from: string;
  to: string;
  /** Files of both ends. */
  fromPath: string;
  toPath: string;
  kind: LinkKind;
  anchor: string;
  /** The key it was resolved by (diagnostics). */
  key: string;
  /** The target introduces the key (a § heading, an anchor, a file, a heading naming it) rather than mentioning it. */
  primary: boolean;
  /** How many passages provide the key (1 for an edge resolved inside its file): the fewer, the more specific. */
  providers: number;
}

/**
 * A key provided by more passages than this is too generic to follow (a name many passages mention); then only the
 * passages that introduce it (a heading or a file named so: target rows with anchor 'introduces') are followed, if few.
 */
export const MAX_TARGETS_PER_KEY = 4;

/** A passage providing a key; `primary` when it introduces it (heading, file name) rather than mentioning it. */
export interface LinkTarget {
  id: string;
  path: string;
  primary: boolean;
}

/** key → its providers, from target rows. */
export function targetMap(rows: Pick<LinkRow, 'role' | 'key' | 'from' | 'path' | 'anchor'>[]): Map<string, LinkTarget[]> {
  const out = new Map<string, LinkTarget[]>();
  for (const r of rows) {
    if (r.role !== 'target') continue;
    const list = out.get(r.key) ?? [];
    list.push({ id: r.from, path: r.path, primary: r.anchor === INTRODUCES });
    out.set(r.key, list);
  }
  return out;
}

/** Anchor of a name's target row where a heading or the file name introduces the name. */
export const INTRODUCES = 'introduces';

/** The laws of the index, from their identity rows (key `law:<id>`, anchor "Title (Abbr)"). */
export function lawsOf(identityRows: Pick<LinkRow, 'key' | 'anchor'>[]): LawIdentity[] {
  return identityRows.map((r) => {
    const m = /^(.*?)\s*\(([^()]+)\)$/.exec(r.anchor);
    return { id: r.key.slice('law:'.length), title: m ? m[1] : r.anchor, abbreviation: m ? m[2] : undefined };
  });
}

/** The keys an unresolved edge may be found under, best first. */
export function candidateKeys(key: string, laws: LawIdentity[]): string[] {
  const pending = /^§\?:(.*)#([^#.]+)(?:\.(.+))?$/.exec(key);
  if (pending) {
    const id = resolveLaw(pending[1], laws);
    if (!id) return [];
    return pending[3] ? [sectionKey(id, pending[2], pending[3]), sectionKey(id, pending[2])] : [sectionKey(id, pending[2])];
  }
  const section = /^(§:.*#[^#.]+)\.(.+)$/.exec(key);
  if (section) return [key, section[1]];
  const anchor = /^anchor:(.*)#[^#]*$/.exec(key);
  if (anchor) return [key, `file:${anchor[1]}`];
  return [key];
}

/**
 * Resolves edges against the passages that provide their keys (`targets`: key → providing passage ids). An edge with a
 * `to` keeps it; others take the providers of their first candidate key that has any (none when more than
 * MAX_TARGETS_PER_KEY provide it, or when the only provider is the edge's own passage).
 */
export function resolveEdges(edges: LinkRow[], targets: Map<string, LinkTarget[]>, laws: LawIdentity[]): ResolvedLink[] {
  // One edge per (from, to, kind): the most specific of the keys that connect them.
  const best = new Map<string, ResolvedLink>();
  const push = (e: LinkRow, to: string, toPath: string, key: string, primary: boolean, providers: number) => {
    if (to === e.from) return;
    const id = `${e.from}\u0000${to}\u0000${e.kind}`;
    const prev = best.get(id);
    if (prev && (Number(prev.primary) - Number(primary) || providers - prev.providers) >= 0) return;
    best.set(id, { from: e.from, to, fromPath: e.path, toPath, kind: e.kind, anchor: e.anchor, key, primary, providers });
  };
  for (const e of edges) {
    if (e.role !== 'edge') continue;
    if (e.to) {
      push(e, e.to, e.path, e.key, true, 1);
      continue;
    }
    for (const k of candidateKeys(e.key, laws)) {
      const all = (targets.get(k) ?? []).filter((t) => t.id !== e.from);
      if (all.length === 0) continue;
      const ids = all.length <= MAX_TARGETS_PER_KEY ? all : all.filter((t) => t.primary);
      // Only names have mentions as providers; every other key's providers introduce it.
      if (ids.length <= MAX_TARGETS_PER_KEY) for (const t of ids) push(e, t.id, t.path, k, t.primary || e.kind !== 'name', all.length);
      break;
    }
  }
  return [...best.values()];
}
