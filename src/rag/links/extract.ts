// One file's rows of the reference graph, from its passages (and its source text for Markdown / HTML / text): the
// keys its passages provide (targets) and the edges they make. Edges to a target in the same file are resolved here;
// edges to other files keep a key and are resolved when read (links/resolve.ts), so every row depends on its own file
// only and is written and removed with it.
import type { DocFormat, LinkKind, LinkRow, Passage } from '../types';
import { foldText } from '../text/fold';
import { lawIdentity, legalReferences, pendingSectionKey, resolveLaw, sectionKey, sectionMarks, sectionStart } from './legal';
import { backtickedNames, headingNames, markupLinks, normalizeName, plainTextNames, referenceDefinitions, sectionReferences, slug } from './markup';
import { definedTerms, usesTerm } from './terms';
import { INTRODUCES } from './resolve';

export interface LinkSource {
  /** Relative path with '/' separators. */
  path: string;
  format: DocFormat;
  /** The file's text for line-located formats (md, html, txt): links and backticks live only there. */
  raw?: string;
  /** Title candidates besides the passages' own (the loader's metadata title). */
  titles?: string[];
}

/** Most names one passage links by (the first ones in the passage). */
export const MAX_NAMES_PER_PASSAGE = 12;
/** Most sections one § list ("§§ 2 bis 6, 14, 15, …") links to. */
const MAX_SECTIONS_PER_REFERENCE = 6;

export function fileKey(path: string): string {
  return `file:${path}`;
}
export function anchorKey(path: string, anchor: string): string {
  return `anchor:${path}#${anchor}`;
}
export function headingKey(title: string): string {
  return `heading:${title}`;
}
export function nameKey(name: string): string {
  return `name:${name}`;
}
export function termKey(term: string): string {
  return `term:${term}`;
}
export function lawKey(id: string): string {
  return `law:${id}`;
}

/** The rows of one file: targets first, then edges. Deterministic for the same passages and source. */
export function extractLinks(passages: Passage[], src: LinkSource): LinkRow[] {
  const lines = src.raw !== undefined && (src.format === 'md' || src.format === 'html' || src.format === 'txt') ? src.raw.split('\n') : undefined;
  const sourceOf = (p: Passage) =>
    lines && p.loc.startLine !== undefined && p.loc.endLine !== undefined ? lines.slice(p.loc.startLine - 1, p.loc.endLine).join('\n') : p.text;

  // Units are the finest passages: L2, and an L1 section without passages of its own.
  const hasChild = new Set(passages.filter((p) => p.level === 2 && p.parentId).map((p) => p.parentId!));
  const units = passages.filter((p) => p.level === 2 || (p.level === 1 && !hasChild.has(p.id)));
  if (units.length === 0) return [];
  const firstOf = new Map<string, Passage>();
  for (const u of units) if (u.level === 2 && u.parentId && !firstOf.has(u.parentId)) firstOf.set(u.parentId, u);

  const targets: LinkRow[] = [];
  const provided = new Map<string, string>(); // key → first passage providing it in this file
  const provide = (p: Passage, key: string, kind: LinkKind, anchor = '') => {
    if (provided.has(key) && provided.get(key) === p.id) return;
    if (!provided.has(key)) provided.set(key, p.id);
    targets.push({ role: 'target', from: p.id, path: src.path, kind, key, to: '', anchor });
  };

  provide(units[0], fileKey(src.path), 'link');
  const stem = (src.path.split('/').pop() ?? '').replace(/\.[^.]+$/, '').toLowerCase();
  if (stem.length >= 3) provide(units[0], nameKey(stem), 'name', INTRODUCES);
  for (const section of passages.filter((p) => p.level === 1)) {
    const first = firstOf.get(section.id) ?? section;
    const heading = section.headingPath[section.headingPath.length - 1];
    if (!heading) continue;
    provide(first, anchorKey(src.path, slug(heading)), 'link');
    provide(first, headingKey(foldText(heading).trim()), 'reference');
    const headingSource = lines && section.loc.startLine !== undefined ? lines[section.loc.startLine - 1] ?? heading : heading;
    for (const n of headingNames(headingSource.replace(/^#+\s*/, ''))) provide(first, nameKey(n), 'name', INTRODUCES);
  }

  // Laws: where each § starts (a heading or a passage opening with it) and its Absätze.
  const titleCandidates = [...(src.titles ?? []), ...new Set(passages.map((p) => p.title)), ...new Set(passages.map((p) => p.headingPath[0] ?? ''))];
  const isLaw = units.some((u) => sectionStart(u.headingPath[u.headingPath.length - 1] ?? '') ?? sectionMarks(u.text).some((m) => m.section));
  const law = isLaw ? lawIdentity(titleCandidates) : undefined;
  if (law) {
    provide(units[0], lawKey(law.id), 'reference', law.abbreviation ? `${law.title} (${law.abbreviation})` : law.title);
    let current: string | undefined;
    for (const u of units) {
      const byHeading = sectionStart(u.headingPath[u.headingPath.length - 1] ?? '');
      if (byHeading && byHeading !== current && !sectionStart(u.text)) {
        current = byHeading;
        provide(u, sectionKey(law.id, current), 'reference');
      }
      // Walk the passage: its Absätze belong to the § open at that point; a § starting inside it opens a new one.
      for (const m of sectionMarks(u.text)) {
        if (m.section) {
          if (m.section !== current) provide(u, sectionKey(law.id, m.section), 'reference');
          current = m.section;
        } else if (current) provide(u, sectionKey(law.id, current, m.paragraph), 'reference');
      }
    }
  }

  // Defined terms (targets) of this file.
  const definitions = new Map<string, Passage>();
  for (const u of units) {
    for (const t of definedTerms(u.text, lines ? sourceOf(u) : undefined)) {
      if (!definitions.has(t)) definitions.set(t, u);
      provide(u, termKey(t), 'definition');
    }
  }

  // Edges.
  const edges: LinkRow[] = [];
  const seen = new Set<string>();
  const edge = (p: Passage, kind: LinkKind, key: string, anchor: string, resolveHere: boolean, fallbackKey?: string) => {
    const local = resolveHere ? provided.get(key) ?? (fallbackKey ? provided.get(fallbackKey) : undefined) : undefined;
    if (local === p.id) return; // a passage pointing at itself
    const to = local ?? '';
    const id = `${p.id}\u0000${key}\u0000${to}`;
    if (seen.has(id)) return;
    seen.add(id);
    edges.push({ role: 'edge', from: p.id, path: src.path, kind, key, to, anchor: anchor.slice(0, 200) });
  };
  const defs = lines && src.format !== 'txt' ? referenceDefinitions(src.raw!) : new Map<string, string>();
  for (const u of units) {
    const source = sourceOf(u);
    if (lines && src.format !== 'txt') {
      for (const l of markupLinks(source, src.path, defs)) {
        const target = l.path || src.path;
        const key = l.anchor ? anchorKey(target, l.anchor) : fileKey(target);
        edge(u, 'link', key, l.text, target === src.path, l.anchor ? fileKey(target) : undefined);
      }
    }
    for (const r of legalReferences(u.text)) {
      const kind: LinkKind = r.definition ? 'definition' : 'reference';
      const lawId = r.law === '' ? law?.id : law && resolveLaw(r.law, [law]) ? law.id : undefined;
      for (const sec of r.sections.slice(0, MAX_SECTIONS_PER_REFERENCE)) {
        if (lawId) edge(u, kind, sectionKey(lawId, sec, r.paragraph), r.anchor, true, sectionKey(lawId, sec));
        else if (r.law) edge(u, kind, pendingSectionKey(r.law, sec, r.paragraph), r.anchor, false);
      }
    }
    for (const s of sectionReferences(u.text)) edge(u, 'reference', headingKey(s.title), s.anchor, true);
    const names = lines && src.format === 'md' ? backtickedNames(source) : plainTextNames(u.text);
    // A name is shared: every passage mentioning it links to the others (resolved when read; a name mentioned by many
    // passages is too generic to follow, see links/resolve.ts MAX_TARGETS_PER_KEY).
    for (const n of names.slice(0, MAX_NAMES_PER_PASSAGE)) {
      const key = nameKey(normalizeName(n));
      if (provided.get(key) === u.id) continue;
      edge(u, 'name', key, n, false);
      provide(u, key, 'name');
    }
    if (definitions.size > 0) {
      const folded = foldText(u.text);
      for (const [term, def] of definitions) if (def.id !== u.id && usesTerm(folded, term)) edge(u, 'definition', termKey(term), term, true);
    }
  }
  return [...targets, ...edges];
}
