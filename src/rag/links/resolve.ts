// Read-time resolution of the edges that leave their file: an edge keeps the key of what it points at (a § of a named
// law, a file, an anchor, a heading, a name) and finds every passage that provides that key now. So a target file that
// changes, appears or disappears changes the graph without rewriting anyone else's rows.
import type { LinkKind, LinkRow } from '../types';
import { resolveLaw, sectionKey, type LawIdentity } from './legal';

/** An edge with both ends known. */
export interface ResolvedLink {
  from: string;
  to: string;
  kind: LinkKind;
  anchor: string;
  /** The key it was resolved by (diagnostics). */
  key: string;
}

/** A key provided by more passages than this is too generic to follow (a name every chapter mentions in a heading). */
export const MAX_TARGETS_PER_KEY = 4;

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
export function resolveEdges(edges: LinkRow[], targets: Map<string, string[]>, laws: LawIdentity[]): ResolvedLink[] {
  const out: ResolvedLink[] = [];
  const seen = new Set<string>();
  const push = (e: LinkRow, to: string, key: string) => {
    const id = `${e.from}\u0000${to}\u0000${e.kind}`;
    if (to === e.from || seen.has(id)) return;
    seen.add(id);
    out.push({ from: e.from, to, kind: e.kind, anchor: e.anchor, key });
  };
  for (const e of edges) {
    if (e.role !== 'edge') continue;
    if (e.to) {
      push(e, e.to, e.key);
      continue;
    }
    for (const k of candidateKeys(e.key, laws)) {
      const ids = (targets.get(k) ?? []).filter((id) => id !== e.from);
      if (ids.length === 0) continue;
      if (ids.length <= MAX_TARGETS_PER_KEY) for (const id of ids) push(e, id, k);
      break;
    }
  }
  return out;
}
