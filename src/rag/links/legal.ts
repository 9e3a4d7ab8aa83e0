// German legal references, model-free: "§ 3 Abs. 1", "§§ 2 bis 6, 14", "nach § 23 KSchG", "§ 22 Absatz 1 des
// Mindestlohngesetzes", "Art. 5", "im Sinne des § 7"; where each § of a document starts; which law a document is (its
// title and the abbreviation in parentheses after it), and which law a reference's law word names (abbreviation or
// name, inflected) among the laws of the index. No word lists: the laws are the documents' own titles.
import { foldText } from '../text/fold';

export interface LegalRef {
  /** The reference as written ("§ 23 KSchG"). */
  anchor: string;
  /** Section numbers referred to ("23", "4a"); a range "2 bis 6" gives both ends. */
  sections: string[];
  /** Absatz number when given ("1"). */
  paragraph?: string;
  /** The law as written after the reference ("KSchG", "Mindestlohngesetzes"); '' for this document's own law. */
  law: string;
  /** "im Sinne des § 7": the reference points at a definition. */
  definition: boolean;
  /** Offset in the text. */
  index: number;
}

const NUM = String.raw`\d+[a-z]?`;
/** An abbreviation of a law: capitalised, at least two capitals ("KSchG", "MiLoG", "BGB", "SGB"). */
const ABBR = String.raw`[A-ZÄÖÜ][A-Za-zÄÖÜäöü]*[A-ZÄÖÜ][A-Za-zÄÖÜäöü]*`;
const ABBR_RE = new RegExp(`^${ABBR}$`);
/** A law named in the genitive: "des Mindestlohngesetzes", "des Bürgerlichen Gesetzbuchs", "dieses Gesetzes". */
const NAMED = String.raw`(?:des|der|dieses)\s+(?:[A-ZÄÖÜ][a-zäöüß]+(?:en|er|es)\s+)?[A-ZÄÖÜ][A-Za-zÄÖÜäöüß-]*(?:gesetz|gesetzbuch|ordnung|buch)(?:e?s)?`;
const REF_RE = new RegExp(
  String.raw`(§§?|Art\.|Artikel)\s*(${NUM}(?:\s*(?:,|und|oder|bis)\s*${NUM})*)` +
    String.raw`(?:\s*(?:Abs\.|Absatz)\s*(\d+[a-z]?))?(?:\s*(?:S\.|Satz)\s*\d+)?(?:\s*(?:Nr\.|Nummer)\s*\d+[a-z]?)?` +
    String.raw`(?:\s+(${NAMED}|${ABBR}\b))?`,
  'gu',
);

/** The § / Art. references in a text. */
export function legalReferences(text: string): LegalRef[] {
  const out: LegalRef[] = [];
  for (const m of text.matchAll(REF_RE)) {
    const sections = m[2].split(/\s*(?:,|und|oder|bis)\s*/).filter(Boolean);
    let law = m[4] ?? '';
    // "dieses Gesetzes" is the document's own law; a capitalised word that is no abbreviation is the next sentence.
    if (/^dieses\s/.test(law)) law = '';
    else if (law && !law.startsWith('de') && !ABBR_RE.test(law)) law = '';
    const before = text.slice(Math.max(0, m.index - 30), m.index);
    out.push({
      anchor: m[0].trim(),
      sections: [...new Set(sections)],
      paragraph: m[3],
      law: law.replace(/\s+/g, ' '),
      definition: /im\s+Sinne\s+(?:des|der|von|dieses)?\s*$/i.test(before),
      index: m.index,
    });
  }
  return out;
}

/** The § a heading or a passage starts with ("§ 13 Haftung …" → "13"), if any. */
export function sectionStart(text: string): string | undefined {
  const m = /^\s*(?:§|Art\.|Artikel)\s*(\d+[a-z]?)(?=\s+\p{Lu}|\s*$)/u.exec(text);
  return m?.[1];
}

/**
 * Where §§ and Absätze open inside a text, in order (PDF / Office passages hold several): a "§ 5" opening the text or a
 * sentence and followed by a capitalised title word — not by "Absatz", "Satz" or "Nummer", then it is a reference in a
 * sentence — and an "(2)" opening a line or a sentence before a capitalised word.
 */
export function sectionMarks(text: string): { at: number; section?: string; paragraph?: string }[] {
  const marks: { at: number; section?: string; paragraph?: string }[] = [];
  for (const m of text.matchAll(/(?:^|[.:;!?)]\s+|\n)(?:§|Art\.|Artikel)\s*(\d+[a-z]?)\s+(?!Abs\b|Abs\.|Absatz|Satz|Nr\.|Nummer|Buchst)\p{Lu}/gu)) marks.push({ at: m.index, section: m[1] });
  for (const m of text.matchAll(/(?:^|\n|[.:;]\s+)\((\d+[a-z]?)\)\s+(?=\p{Lu})/gu)) marks.push({ at: m.index, paragraph: m[1] });
  return marks.sort((x, y) => x.at - y.at);
}

/** A document's law identity: its abbreviation (from "(KSchG)" after a title) and its title. */
export interface LawIdentity {
  /** Key part: the folded abbreviation, else the folded title. */
  id: string;
  abbreviation?: string;
  title: string;
}

/** The law a document is, from its title candidates (metadata title, first heading); the abbreviation in parentheses wins. */
export function lawIdentity(titles: string[]): LawIdentity | undefined {
  const clean = titles.map((t) => t.trim()).filter(Boolean);
  if (clean.length === 0) return undefined;
  let abbreviation: string | undefined;
  for (const t of clean) {
    // "(MuSchG 2018)": an abbreviation may carry the year of its version.
    for (const m of t.matchAll(/\(([^()]{2,20})\)/g)) {
      const a = m[1].trim().replace(/\s+\d{4}$/, '');
      if (ABBR_RE.test(a)) abbreviation ??= a;
    }
  }
  const title = clean[0].replace(/\s*\([^()]*\)\s*/g, ' ').trim();
  return { id: foldText(abbreviation ?? title).replace(/\s+/g, ' '), abbreviation, title };
}

/** Forms a law word may take in the genitive ("Mindestlohngesetzes" → "mindestlohngesetz"). */
function stems(word: string): string[] {
  const f = foldText(word.replace(/^(?:des|der)\s+/i, '')).trim();
  const out = [f];
  if (f.endsWith('es')) out.push(f.slice(0, -2));
  if (f.endsWith('s')) out.push(f.slice(0, -1));
  return out;
}

/**
 * How well a law word matches an abbreviation: the abbreviation's capital-led segments ("Mi", "Lo", "G") found in order
 * in the word, the first at its start ("mindestlohngesetz"); the number of letters matched, 0 when they are not all found
 * or the abbreviation is an initialism.
 */
export function abbreviationScore(word: string, abbreviation: string): number {
  const segments = abbreviationSegments(abbreviation);
  return segments ? segmentScore(foldText(word), segments) : 0;
}

/** An abbreviation's capital-led segments, folded; null for an initialism or a single segment (never matched by parts). */
function abbreviationSegments(abbreviation: string): string[] | null {
  const segments = abbreviation.match(/[A-ZÄÖÜ][a-zäöü]*/g);
  if (!segments || segments.length < 2) return null;
  // An initialism ("BDSG", "AGG", "BEEG": mostly one-letter segments) says too little to find in a name: exact only.
  const head = segments.slice(0, -1);
  if (head.filter((x) => x.length === 1).length > 1 || head.join('').length < 4) return null;
  return segments.map((x) => foldText(x));
}

/** Letters of the folded segments found in order in the folded word, the first at its start; 0 when one is missing. */
function segmentScore(w: string, segments: string[]): number {
  let at = 0;
  let letters = 0;
  for (const [i, s] of segments.entries()) {
    const found = i === 0 ? (w.startsWith(s) ? 0 : -1) : w.indexOf(s, at);
    if (found < 0) return 0;
    at = found + s.length;
    letters += s.length;
  }
  return letters;
}

/**
 * The id of the law a reference names, among the laws of the index: the same abbreviation, the same title (inflected), or
 * the abbreviation's segments in the name ("Mindestlohngesetzes" → MiLoG; of two, the one matching more letters).
 */
export function resolveLaw(law: string, laws: LawIdentity[]): string | undefined {
  // The same law words recur in thousands of references: each is matched against the laws once per list of laws.
  let known = resolvedLaws.get(laws);
  if (!known) resolvedLaws.set(laws, (known = new Map()));
  if (known.has(law)) return known.get(law);
  const id = matchLaw(law, laws);
  known.set(law, id);
  return id;
}

const resolvedLaws = new WeakMap<LawIdentity[], Map<string, string | undefined>>();

/** A list of laws folded once for matching: the first law (in list order) by abbreviation and by title or its last word. */
interface PreparedLaws {
  byAbbreviation: Map<string, number>;
  byTitle: Map<string, number>;
  segments: { id: string; segments: string[] }[];
}

const preparedLaws = new WeakMap<LawIdentity[], PreparedLaws>();

function prepared(laws: LawIdentity[]): PreparedLaws {
  let p = preparedLaws.get(laws);
  if (p) return p;
  p = { byAbbreviation: new Map(), byTitle: new Map(), segments: [] };
  const first = (map: Map<string, number>, key: string, i: number) => {
    if (!map.has(key)) map.set(key, i);
  };
  laws.forEach((l, i) => {
    if (l.abbreviation) {
      first(p!.byAbbreviation, foldText(l.abbreviation), i);
      const segments = abbreviationSegments(l.abbreviation);
      if (segments) p!.segments.push({ id: l.id, segments });
    }
    first(p!.byTitle, foldText(l.title), i);
    first(p!.byTitle, foldText(l.title.split(/\s+/).pop() ?? ''), i);
  });
  preparedLaws.set(laws, p);
  return p;
}

function matchLaw(law: string, laws: LawIdentity[]): string | undefined {
  if (!law) return undefined;
  const p = prepared(laws);
  const byAbbr = p.byAbbreviation.get(foldText(law));
  if (byAbbr !== undefined) return laws[byAbbr].id;
  const words = law.split(/\s+/);
  const forms = [...new Set([...stems(law), ...stems(words[words.length - 1])])];
  // The first law whose title or its last word is one of the forms.
  const byTitle = Math.min(...forms.map((f) => p.byTitle.get(f) ?? Infinity));
  if (byTitle !== Infinity) return laws[byTitle].id;
  let best: { id: string; score: number } | undefined;
  let tie = false;
  for (const l of p.segments) {
    const score = Math.max(...forms.map((f) => segmentScore(f, l.segments)));
    if (score === 0) continue;
    if (!best || score > best.score) {
      best = { id: l.id, score };
      tie = false;
    } else if (score === best.score) tie = true;
  }
  return best && !tie ? best.id : undefined;
}

/** The key a § (and optionally its Absatz) of a law is found under. */
export function sectionKey(lawId: string, section: string, paragraph?: string): string {
  return `§:${lawId}#${section}${paragraph ? `.${paragraph}` : ''}`;
}

/** An unresolved law word is kept in the key after '?': resolved against the index's laws when read. */
export function pendingSectionKey(law: string, section: string, paragraph?: string): string {
  return `§?:${foldText(law).replace(/\s+/g, ' ')}#${section}${paragraph ? `.${paragraph}` : ''}`;
}
