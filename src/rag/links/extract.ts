// One file's rows of the reference graph, from its passages (and its source text for Markdown / HTML / text): the
// keys its passages provide (targets) and the edges they make. Edges to a target in the same file are resolved here;
// edges to other files keep a key and are resolved when read (links/resolve.ts), so every row depends on its own file
// only and is written and removed with it.
import { locationKind } from '../formats';
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
  /** The file's text for formats cited by lines (formats.ts `location`): links and backticks live only there. */
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
  const lines = src.raw !== undefined && locationKind(src.format) === 'lines' ? src.raw.split('\n') : undefined;
  const rangeOf = (p: Passage) => (lines && p.loc.startLine !== undefined && p.loc.endLine !== undefined ? `${p.loc.startLine}:${p.loc.endLine}` : undefined);

  // Units are the finest passages: L2, and an L1 section without passages of its own.
  const hasChild = new Set(passages.filter((p) => p.level === 2 && p.parentId).map((p) => p.parentId!));
  const units = passages.filter((p) => p.level === 2 || (p.level === 1 && !hasChild.has(p.id)));
  if (units.length === 0) return [];
  // Passages split from one block whose lines could not be narrowed (an HTML list holding a whole page) share that
  // block's source range. Their markup is read once, and each link goes to the passage that shows its text; the
  // Markdown-only names and terms come from each passage's own text. Reading the shared range for every passage gave
  // every passage every link of the block (hundreds of thousands of rows for one long licence page).
  const sharing = new Map<string, Passage[]>();
  for (const u of units) {
    const r = rangeOf(u);
    if (!r) continue;
    const group = sharing.get(r);
    if (group) group.push(u);
    else sharing.set(r, [u]);
  }
  const shared = (p: Passage) => (sharing.get(rangeOf(p) ?? '')?.length ?? 0) > 1;
  const sourceOf = (p: Passage) => {
    const r = rangeOf(p);
    return r && !shared(p) ? lines!.slice(p.loc.startLine! - 1, p.loc.endLine).join('\n') : p.text;
  };
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
    for (const t of definedTerms(u.text, lines && !shared(u) ? sourceOf(u) : undefined)) {
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
  const sharedLinks = new Map<Passage, ReturnType<typeof markupLinks>>();
  if (lines && src.format !== 'txt') {
    for (const group of sharing.values()) {
      if (group.length < 2) continue;
      const first = group[0];
      for (const l of markupLinks(lines.slice(first.loc.startLine! - 1, first.loc.endLine).join('\n'), src.path, defs)) {
        const text = l.text.trim();
        const owner = (text && group.find((u) => u.text.includes(text))) || first;
        const own = sharedLinks.get(owner);
        if (own) own.push(l);
        else sharedLinks.set(owner, [l]);
      }
    }
  }
  for (const u of units) {
    const source = sourceOf(u);
    if (lines && src.format !== 'txt') {
      for (const l of shared(u) ? sharedLinks.get(u) ?? [] : markupLinks(source, src.path, defs)) {
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
    const names = lines && src.format === 'md' && !shared(u) ? backtickedNames(source) : plainTextNames(u.text);
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
