// Links and names in a document's source text, model-free: Markdown inline / reference / shortcut links and HTML
// hrefs (to files and heading anchors), backticked identifiers and TOML tables, CLI flags, dotted keys and environment
// variables in plain text, "see section …" / "described in …" references to a heading.
import * as posix from 'node:path/posix';
import { foldText } from '../text/fold';

export interface MarkupLink {
  text: string;
  /** Relative path of the target file ('' for the same file). */
  path: string;
  /** Heading slug after '#', if any. */
  anchor?: string;
}

/** Heading anchor as Markdown renderers make it (GitHub, mdBook): lowercase, punctuation dropped, spaces to '-'. */
export function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s/g, '-');
}

/** Reference definitions "[label]: target" of a Markdown file (labels case-insensitive). */
export function referenceDefinitions(raw: string): Map<string, string> {
  const defs = new Map<string, string>();
  for (const m of raw.matchAll(/^ {0,3}\[([^\]\n]+)\]:\s*<?([^\s>]+)>?/gm)) {
    const label = m[1].trim().toLowerCase().replace(/\s+/g, ' ');
    if (!defs.has(label)) defs.set(label, m[2]);
  }
  return defs;
}

/** Where a link target points, relative to the index root; undefined for external links (scheme, protocol-relative). */
export function resolveHref(href: string, fromPath: string): { path: string; anchor?: string } | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) return undefined;
  const hash = href.indexOf('#');
  const file = decodeSafe((hash >= 0 ? href.slice(0, hash) : href).replace(/\?.*$/, ''));
  const anchor = hash >= 0 ? decodeSafe(href.slice(hash + 1)).toLowerCase() || undefined : undefined;
  if (!file) return { path: '', anchor };
  const joined = file.startsWith('/') ? file.slice(1) : posix.join(posix.dirname(fromPath), file);
  const norm = posix.normalize(joined);
  if (norm.startsWith('..')) return undefined;
  return { path: norm.replace(/\/$/, ''), anchor };
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** Links in a piece of Markdown (or HTML) source; reference links use the file's definitions. */
export function markupLinks(source: string, fromPath: string, defs: Map<string, string>): MarkupLink[] {
  const out: MarkupLink[] = [];
  const push = (text: string, href: string | undefined) => {
    if (!href) return;
    const r = resolveHref(href, fromPath);
    if (r && (r.path || r.anchor)) out.push({ text: text.replace(/[`*_]/g, '').trim(), ...r });
  };
  for (const m of source.matchAll(/(!?)\[([^\]\n]*)\]\(\s*<?([^\s)>]+)>?(?:\s+["'][^)]*["'])?\s*\)/g)) if (!m[1]) push(m[2], m[3]);
  for (const m of source.matchAll(/\[([^\]\n]+)\]\[([^\]\n]*)\]/g)) push(m[1], defs.get((m[2] || m[1]).trim().toLowerCase().replace(/\s+/g, ' ')));
  for (const m of source.matchAll(/(?<![\]\\])\[([^\]\n]+)\](?![[(:])/g)) push(m[1], defs.get(m[1].trim().toLowerCase().replace(/\s+/g, ' ')));
  for (const m of source.matchAll(/<a\s[^>]*href\s*=\s*["']([^"']+)["'][^>]*>([^<]*)<\/a>/gi)) push(m[2], m[1]);
  return out;
}

/** A name's key form: backticks, brackets of a TOML table and trailing punctuation dropped, lowercase. */
export function normalizeName(name: string): string {
  return name.replace(/`/g, '').trim().replace(/^\[+|\]+$/g, '').replace(/[.,:;]+$/, '').toLowerCase();
}

/** Whether a backticked span is an identifier-like name (no spaces, not a sentence, not a number). */
function nameLike(s: string): boolean {
  return /^[[\w.\-:/\]]{3,60}$/u.test(s) && /[\p{L}]/u.test(s) && !/^\d/.test(s);
}

/** Backticked identifiers and TOML tables in Markdown source (`rust-version`, `[workspace]`, `--locked`). */
export function backtickedNames(source: string): string[] {
  const out = new Set<string>();
  for (const m of source.matchAll(/(?<!`)`([^`\n]+)`(?!`)/g)) {
    const s = m[1].trim();
    if (nameLike(s)) out.add(normalizeName(s));
  }
  return [...out];
}

/** Code-ish names in plain text (PDF, Office, text): CLI flags, dotted keys, environment variables. */
export function plainTextNames(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/(?<![\w-])--[a-z][a-z0-9-]{2,}/g)) out.add(m[0]);
  for (const m of text.matchAll(/(?<![\w.])[a-z][a-z0-9_-]*(?:\.[a-z][a-z0-9_-]*)+(?![\w])/g)) if (!/^(?:\p{L}\.)+\p{L}?$/u.test(m[0]) && m[0].length >= 5) out.add(m[0].replace(/\.$/, ''));
  for (const m of text.matchAll(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g)) out.add(m[0].toLowerCase());
  return [...out];
}

/** Names a heading introduces: its backticked spans, else its identifier-like tokens (with '-', '_', '.' or brackets). */
export function headingNames(headingSource: string): string[] {
  const ticked = backtickedNames(headingSource);
  if (ticked.length > 0) return ticked;
  return headingSource
    .split(/\s+/)
    .map((t) => t.replace(/^[("'“]+|[)"'”,:;]+$/g, ''))
    .filter((t) => /[\p{L}]/u.test(t) && (/^\[.+\]$/.test(t) || /^[\p{L}\p{N}]+(?:[-_.][\p{L}\p{N}]+)+$/u.test(t)))
    .map(normalizeName);
}

/** "see section Foo", "described in the “Foo” chapter": the heading titles a text points at (folded). */
export function sectionReferences(text: string): { anchor: string; title: string }[] {
  const out: { anchor: string; title: string }[] = [];
  // Case-sensitive on purpose (a title is capitalised or quoted): only the first letter of the verb may be either case.
  const re = /\b(?:[Ss]ee|[Dd]escribed in|[Ee]xplained in|[Rr]efer to|[Cc]overed in|[Ss]iehe|[Bb]eschrieben in)\s+(?:the\s+|den\s+|dem\s+|die\s+)?(?:(?:[Ss]ection|[Cc]hapter|Abschnitt|Kapitel)\s+)?(?:["“„']([^"”“'\n]{3,80})["”“']|(\p{Lu}[\p{L}\p{N}-]*(?:\s+(?:\p{Lu}[\p{L}\p{N}-]*|of|and|the|in|for|to|a))*))/gu;
  for (const m of text.matchAll(re)) {
    const title = (m[1] ?? m[2] ?? '').trim().replace(/\s+(?:section|chapter|of|and|the|in|for|to|a)$/i, '');
    if (title.length >= 3) out.push({ anchor: m[0].trim(), title: foldText(title) });
  }
  return out;
}
