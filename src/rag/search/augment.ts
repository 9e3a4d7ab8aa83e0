// Context augmentation for answers: the parent section (L1) of passage hits, a neighbour window ±w in document
// order, and document expansion (all passages of the best documents, in document order, deduplicated).
import type { Passage, SearchHit } from '../types';
import type { IndexStore } from '../store/types';
import type { ContextPassage } from './types';

export interface AugmentSettings {
  parentSection: boolean;
  neighbourWindow: number;
  enableDocumentExpansion: boolean;
  maxDocumentsToExpand: number;
  maxChunksPerDocument: number;
  /** A document is expanded when its best hit scores at least this share of the top hit's score. */
  documentExpansionThreshold: number;
}

export interface AugmentStats {
  parents: number;
  neighbours: number;
  expandedDocuments: number;
  expandedPassages: number;
}

/** Priority factors relative to the hit that brought a passage in. */
const PARENT_FACTOR = 0.6;
const NEIGHBOUR_FACTOR = 0.8;
const DOCUMENT_FACTOR = 0.5;

/**
 * Builds the candidate context: hits first, then their parents/neighbours and the expanded documents' passages,
 * each with a priority score; deduplicated by id keeping the highest priority; sorted by priority.
 */
export async function augmentHits(
  store: IndexStore,
  hits: SearchHit[],
  s: AugmentSettings,
): Promise<{ passages: ContextPassage[]; stats: AugmentStats }> {
  const stats: AugmentStats = { parents: 0, neighbours: 0, expandedDocuments: 0, expandedPassages: 0 };
  const byId = new Map<string, ContextPassage>();
  const add = (passage: Passage, score: number, role: ContextPassage['role']) => {
    const prev = byId.get(passage.id);
    if (!prev || prev.score < score) byId.set(passage.id, { passage, score, role: prev?.role === 'hit' ? 'hit' : role });
  };
  hits.forEach((h) => add(h.passage, h.score, 'hit'));
  if (hits.length === 0) return { passages: [], stats };
  const top = hits[0].score;

  // Parent sections of passage hits.
  if (s.parentSection) {
    const parentIds = [...new Set(hits.filter((h) => h.passage.level === 2 && h.passage.parentId).map((h) => h.passage.parentId as string))];
    const parents = parentIds.length ? await store.getPassages(parentIds) : [];
    const parentScore = new Map<string, number>();
    for (const h of hits) if (h.passage.parentId) parentScore.set(h.passage.parentId, Math.max(parentScore.get(h.passage.parentId) ?? 0, h.score));
    for (const p of parents) {
      add(p, (parentScore.get(p.id) ?? 0) * PARENT_FACTOR, 'parent');
      stats.parents++;
    }
  }

  // Documents worth expanding: best hit per document, relative to the top hit.
  const docBest = new Map<string, number>();
  for (const h of hits) docBest.set(h.passage.path, Math.max(docBest.get(h.passage.path) ?? -Infinity, h.score));
  const expandDocs = s.enableDocumentExpansion
    ? [...docBest.entries()]
        .filter(([, best]) => (top > 0 ? best / top : 1) >= s.documentExpansionThreshold)
        .sort((a, b) => b[1] - a[1])
        .slice(0, s.maxDocumentsToExpand)
        .map(([p]) => p)
    : [];
  const needFiles = new Set<string>(expandDocs);
  if (s.neighbourWindow > 0) for (const h of hits) if (h.passage.level === 2) needFiles.add(h.passage.path);
  const files = new Map<string, Passage[]>();
  await Promise.all(
    [...needFiles].map(async (p) => {
      files.set(p, await store.getFilePassages(p, [2]));
    }),
  );

  // Neighbour window ±w around passage hits (document order within the file).
  if (s.neighbourWindow > 0) {
    for (const h of hits) {
      if (h.passage.level !== 2) continue;
      const list = files.get(h.passage.path) ?? [];
      const i = list.findIndex((p) => p.id === h.passage.id);
      if (i < 0) continue;
      for (let j = Math.max(0, i - s.neighbourWindow); j <= Math.min(list.length - 1, i + s.neighbourWindow); j++) {
        if (j === i) continue;
        add(list[j], h.score * NEIGHBOUR_FACTOR, 'neighbour');
        stats.neighbours++;
      }
    }
  }

  // Document expansion: up to maxChunksPerDocument passages nearest the hits, in document order.
  for (const path of expandDocs) {
    const list = files.get(path) ?? [];
    const hitIdx = list.map((p, i) => (byId.get(p.id)?.role === 'hit' ? i : -1)).filter((i) => i >= 0);
    const chosen = selectAround(list.length, hitIdx, s.maxChunksPerDocument);
    const best = docBest.get(path) ?? 0;
    for (const i of chosen) add(list[i], best * DOCUMENT_FACTOR, 'document');
    stats.expandedDocuments++;
    stats.expandedPassages += chosen.length;
  }

  const passages = [...byId.values()].sort((a, b) => b.score - a.score);
  return { passages, stats };
}

/** Indices 0..n-1 nearest to any of `anchors` (all of them when n ≤ max), returned in ascending (document) order. */
export function selectAround(n: number, anchors: number[], max: number): number[] {
  if (n <= max) return Array.from({ length: n }, (_, i) => i);
  const dist = (i: number) => (anchors.length ? Math.min(...anchors.map((a) => Math.abs(a - i))) : i);
  return Array.from({ length: n }, (_, i) => i)
    .sort((a, b) => dist(a) - dist(b) || a - b)
    .slice(0, max)
    .sort((a, b) => a - b);
}
