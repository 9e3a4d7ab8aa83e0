// The reference-graph edges of search hits, grouped per hit for the Docs view: what a hit links to (out) and what links
// to it (in), explicit kinds first, a few per hit. Pure (no vscode): the view resolves the other ends to locations.
import type { LinkKind } from '../rag/types';

export interface HitEdge {
  /** The passage at the other end. */
  other: string;
  direction: 'out' | 'in';
  kind: LinkKind;
  /** The text that makes the link (document text: shown with textContent only). */
  anchor: string;
}

const KIND_ORDER: Record<LinkKind, number> = { reference: 0, link: 1, definition: 2, name: 3 };

/** Per hit id, its edges: outgoing before incoming, then by kind; at most `perHit`, one per other passage. */
export function edgesByHit(ids: string[], links: { from: string; to: string; kind: LinkKind; anchor: string }[], perHit = 6): Map<string, HitEdge[]> {
  const out = new Map<string, HitEdge[]>();
  for (const id of ids) {
    const seen = new Set<string>();
    const edges = links
      .filter((l) => l.from === id || l.to === id)
      .map((l): HitEdge => ({ other: l.from === id ? l.to : l.from, direction: l.from === id ? 'out' : 'in', kind: l.kind, anchor: l.anchor }))
      .sort((a, b) => (a.direction === b.direction ? 0 : a.direction === 'out' ? -1 : 1) || KIND_ORDER[a.kind] - KIND_ORDER[b.kind])
      .filter((e) => e.other !== id && !seen.has(e.other) && (seen.add(e.other), true))
      .slice(0, perHit);
    out.set(id, edges);
  }
  return out;
}
