// Following the reference graph (links/, store `linksOf`) at query time: the one-hop neighbours of the top fused hits
// form their own candidate list, fused by RRF with a weight of its own, when the query analysis asks for it (multi-part,
// relational and comparative questions, a § reference in the question). Each neighbour remembers the edge that brought
// it (`via`): the trace counts them (no document text), the answer context keeps it next to the passage it came from.
import type { LinkKind, SearchHit } from '../types';
import type { IndexStore } from '../store/types';
import { reciprocalRankFusion, sortHits } from './fusion';
import type { Tracer } from './trace';
import type { QueryAnalysis } from './types';

export interface LinkSettings {
  /** Follow the reference graph when the query analysis asks for it. */
  links: boolean;
  /** RRF weight of the neighbour list (the fused list has weight 1). */
  linkWeight: number;
  /** Top hits whose neighbours are taken. */
  linkSeeds: number;
  /** Most neighbours per seed, and in all. */
  linkFanOut: number;
  linkMax: number;
  /** Which query kinds follow links (linkTrigger: multi-part, relational, comparative, a § cited). */
  linkTriggers: LinkTrigger[];
  /** Follow only edges into another file (a hop to another document; the seed's own file is the augmentation's job). */
  linkOtherFiles: boolean;
}

/** Chosen on the workspace dev questions (the quality gate keeps it): the neighbour of each of the top 3 hits in another file. */
export const LINK_DEFAULTS: LinkSettings = {
  links: true,
  linkWeight: 1,
  linkSeeds: 3,
  linkFanOut: 1,
  linkMax: 3,
  linkTriggers: ['multi-part', 'relational', 'comparative', 'reference'],
  linkOtherFiles: true,
};

/** How a neighbour was reached: the seed passage, the edge's kind, 'out' (the seed links to it) or 'in'. */
export type LinkVia = NonNullable<SearchHit['via']>;

/** Edge kinds in the order neighbours of one seed are taken (explicit references and links first). */
const KIND_ORDER: Record<LinkKind, number> = { reference: 0, link: 1, definition: 2, name: 3 };

/**
 * A question in two parts: a second clause opened by a conjunction and an interrogative or auxiliary ("…, und was
 * müssen wir …", "…, and what values …"), two question marks, or two different laws named ("nach dem Arbeitszeitgesetz
 * und nach dem Mindestlohngesetz", "KSchG … BUrlG").
 */
export function isMultiPart(query: string): boolean {
  if (/[,;]\s*(?:und|oder|sowie|and|or)\s+(?:was|wie|welche\w*|wann|wo\w*|wer|ob|muss|müssen|darf|dürfen|kann|können|ist|sind|gilt|gelten|what|how|which|when|where|who|whether|is|are|does|do|can|must|should)\b/iu.test(query)) return true;
  if ((query.match(/\?/g) ?? []).length >= 2) return true;
  const laws = new Set([...query.matchAll(/[\p{L}-]+(?:gesetz|gesetzbuch|ordnung)(?:e?s)?\b|\b\p{Lu}[\p{L}]*\p{Lu}[\p{L}]*G\b/gu)].map((m) => m[0].toLowerCase().replace(/e?s$/, '')));
  return laws.size >= 2;
}

export type LinkTrigger = 'multi-part' | 'relational' | 'comparative' | 'reference';

/** Why the query asks for the graph (undefined: it does not): multi-part, relational, comparative, a § / Art. cited. */
export function linkTrigger(a: Pick<QueryAnalysis, 'query' | 'multiHop' | 'type' | 'exactTokens'>, enabled: readonly LinkTrigger[]): LinkTrigger | undefined {
  const found: LinkTrigger[] = [];
  if (a.multiHop || isMultiPart(a.query)) found.push('multi-part');
  if (a.type === 'relational') found.push('relational');
  if (a.type === 'comparative') found.push('comparative');
  if (a.exactTokens.some((t) => /^(?:§|Art\.)/.test(t))) found.push('reference');
  return found.find((t) => enabled.includes(t));
}

/** The neighbour list: per seed (best first) its neighbours by edge kind, capped per seed and in all. */
export function neighbourList(
  seeds: string[],
  links: { from: string; to: string; kind: LinkKind; primary: boolean; providers: number }[],
  s: Pick<LinkSettings, 'linkFanOut' | 'linkMax'>,
): Map<string, LinkVia> {
  const out = new Map<string, LinkVia>();
  const seedSet = new Set(seeds);
  for (const seed of seeds) {
    const mine = links
      .filter((l) => l.from === seed || l.to === seed)
      .map((l) => ({ ...l, id: l.from === seed ? l.to : l.from, direction: (l.from === seed ? 'out' : 'in') as LinkVia['direction'] }))
      .filter((n) => !seedSet.has(n.id))
      // Explicit kinds first; then targets that introduce what the seed names; then the most specific keys; outgoing first.
      .sort(
        (a, b) =>
          KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
          Number(b.primary) - Number(a.primary) ||
          a.providers - b.providers ||
          (a.direction === b.direction ? 0 : a.direction === 'out' ? -1 : 1),
      );
    let taken = 0;
    for (const n of mine) {
      if (out.size >= s.linkMax) return out;
      if (taken >= s.linkFanOut) break;
      if (out.has(n.id)) continue;
      out.set(n.id, { seed, kind: n.kind, direction: n.direction });
      taken++;
    }
  }
  return out;
}

/** Fuses the one-hop neighbours of the top hits into the ranking as a separately weighted RRF list. */
export async function linkStage(
  store: IndexStore,
  hits: SearchHit[],
  s: LinkSettings & { rrfK: number; levels: number[] },
  trigger: LinkTrigger,
  tracer: Tracer,
): Promise<SearchHit[]> {
  if (hits.length === 0) return hits;
  return tracer.span(
    'links',
    async () => {
      const seeds = hits.slice(0, s.linkSeeds).map((h) => h.passage.id);
      let links;
      try {
        links = await store.linksOf(seeds);
      } catch (err) {
        // The graph is an addition: a read that fails (another process rewriting the table) leaves the ranking as it was.
        tracer.note('links', `skipped: the links table could not be read (${err instanceof Error ? err.name : 'error'})`);
        return hits;
      }
      if (s.linkOtherFiles) links = links.filter((l) => l.fromPath !== l.toPath);
      const via = neighbourList(seeds, links, s);
      if (via.size === 0) return hits;
      const known = new Map(hits.map((h) => [h.passage.id, h]));
      const missing = [...via.keys()].filter((id) => !known.has(id));
      for (const p of await store.getPassages(missing)) known.set(p.id, { passage: p, score: 0 });
      const list = [...via.keys()].map((id) => known.get(id)).filter((h): h is SearchHit => !!h && s.levels.includes(h.passage.level));
      const kinds = new Map<string, number>();
      for (const h of list) kinds.set(via.get(h.passage.id)!.kind, (kinds.get(via.get(h.passage.id)!.kind) ?? 0) + 1);
      // Ids and kinds only: anchors are document text.
      tracer.note('links', `${trigger}: ${list.length} neighbours of ${seeds.length} seeds (${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}), ${missing.length} new`);
      const fused = reciprocalRankFusion([hits, list], s.rrfK, [1, s.linkWeight]);
      // A neighbour rises towards the passage it was reached from, never above it: the seeds keep their order.
      const score = new Map(fused.map((h) => [h.passage.id, h.score]));
      for (const h of fused) {
        const v = via.get(h.passage.id);
        if (!v) continue;
        h.via = v;
        const seed = score.get(v.seed);
        if (seed !== undefined && h.score >= seed) h.score = seed * (1 - 1e-6);
      }
      return sortHits(fused);
    },
    (r) => ({ candidates: r.length, linked: r.filter((h) => h.via).length }),
  );
}

/** Context order: a passage brought by an edge right after the passage it was reached from (when both are there). */
export function keepLinkedTogether(hits: SearchHit[]): SearchHit[] {
  const ids = new Set(hits.map((h) => h.passage.id));
  const followers = new Map<string, SearchHit[]>();
  for (const h of hits) {
    if (h.via && ids.has(h.via.seed)) followers.set(h.via.seed, [...(followers.get(h.via.seed) ?? []), h]);
  }
  if (followers.size === 0) return hits;
  const out: SearchHit[] = [];
  const placed = new Set<string>();
  const place = (h: SearchHit) => {
    if (placed.has(h.passage.id)) return;
    placed.add(h.passage.id);
    out.push(h);
    for (const f of followers.get(h.passage.id) ?? []) place(f);
  };
  for (const h of hits) if (!(h.via && ids.has(h.via.seed))) place(h);
  for (const h of hits) place(h);
  return out;
}
