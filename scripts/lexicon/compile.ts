// Compiles the Debian word lists into the compact lexicon format read by src/rag/search/lexicon.ts:
// `section\tkey\ttarget|target…`, keys = Snowball stems of a term's content words, targets best first.
// Pure functions over the source texts (tested on fixture excerpts in test/fixtures/lexicon); scripts/lexicon/build.ts
// reads the installed packages and writes data/lexicon/*.tsv.gz.
import { IDIOM_MARK, isContentWord, termKey, type LexLang } from '../../src/rag/search/lexicon';
import { words } from '../../src/rag/text/words';

export type Section = Map<string, string[]>;

/** Targets kept per key in the file (the retriever takes fewer). */
export const MAX_TARGETS = 4;

/** Scored candidates per key → the best `max` targets, in order. */
class Collector {
  private readonly scores = new Map<string, Map<string, number>>();

  /** 'sum': evidence adds up (shared synsets); 'max': the best single entry counts (dictionary lines). */
  constructor(private readonly mode: 'sum' | 'max' = 'sum') {}

  add(key: string, target: string, score: number): void {
    if (!key || !target) return;
    let m = this.scores.get(key);
    if (!m) this.scores.set(key, (m = new Map()));
    const prev = m.get(target) ?? 0;
    m.set(target, this.mode === 'sum' ? prev + score : Math.max(prev, score));
  }

  /** Drops targets whose key equals the source key (same stem: nothing new for the full-text search). */
  finish(targetKey: (t: string) => string, max = MAX_TARGETS): Section {
    const out: Section = new Map();
    for (const [key, m] of [...this.scores.entries()].sort((a, b) => (a[0] < b[0] ? -1 : 1))) {
      const seen = new Set<string>([key]);
      const best: string[] = [];
      for (const [t] of [...m.entries()].sort((a, b) => b[1] - a[1] || a[0].length - b[0].length || (a[0] < b[0] ? -1 : 1))) {
        const tk = targetKey(t);
        if (!tk || seen.has(tk)) continue;
        seen.add(tk);
        best.push(t);
        if (best.length >= max) break;
      }
      if (best.length) out.set(key, best);
    }
    return out;
  }
}

/** Number of words when every word of the term is a content word, else 0 ("the open", "at least" are not used). */
function allContent(term: string, lang: LexLang): number {
  const ws = words(term);
  return ws.every((w) => isContentWord(w, lang)) ? ws.length : 0;
}

function contentWordCount(term: string, lang: LexLang): number {
  return words(term).filter((w) => isContentWord(w, lang)).length;
}

/** A clean term: letters, digits, spaces, hyphens and apostrophes only, lower-cased, whitespace collapsed. */
function clean(term: string, keepCase = false): string | undefined {
  const spaced = term.replace(/\s+/g, ' ').trim();
  const t = keepCase ? spaced : spaced.toLowerCase();
  if (!t || /[^\p{L}\p{N} '\-]/u.test(t) || /^[-']|[-']$/.test(t)) return undefined;
  return t;
}

// ---- OpenThesaurus (German synonyms) --------------------------------------------------------------------------------

/** Register markers whose words are never added to a query (they may still be looked up). */
const OT_NOT_TARGET = /\((?:ugs\.|derb|vulg\.|veraltet|veraltend|abwertend|scherzh\.|scherzhaft|Jargon|Slang|regional|österr\.|schweiz\.|süddt\.|norddt\.|bundesdeutsch|landschaftlich|Amtsdeutsch|gehoben|historisch|Hauptstadt|fig\.|figurativ|selten|Gaunersprache|Rotwelsch|Jugendsprache|Sprachwissenschaft)[^)]*\)/i;
/** Words in more synsets than this are too ambiguous to expand ("frei", "Stand", "Lage"). */
export const OT_MAX_SENSES = 5;
/** Synsets larger than this are too vague to expand with. */
const OT_MAX_SYNSET = 20;

/**
 * OpenThesaurus text export: one synset per line, terms separated by ";", annotations in parentheses.
 * Key: any term of up to 3 content words in at most `OT_MAX_SENSES` synsets. Targets: single-word terms without a register marker; ranked by the number of
 * synsets shared with the key, then by smaller synsets (tighter meaning), then by position.
 */
export function compileOpenThesaurus(text: string, max = MAX_TARGETS): Section {
  const c = new Collector();
  const senses = new Map<string, number>();
  const lines = text.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
  for (const line of lines) {
    for (const r of new Set(line.split(';').map((t) => termKey(t.replace(/\([^)]*\)/g, ' '), 'de')))) senses.set(r, (senses.get(r) ?? 0) + 1);
  }
  for (const line of lines) {
    if (!line.trim() || line.startsWith('#')) continue;
    const raw = line.split(';').map((t) => t.trim()).filter(Boolean);
    if (raw.length < 2 || raw.length > OT_MAX_SYNSET) continue;
    const terms = raw.map((r) => ({ term: clean(r.replace(/\([^)]*\)/g, ' ').replace(/\.\.\./g, ' ... ')), target: !OT_NOT_TARGET.test(r) }));
    terms.forEach((src, i) => {
      if (!src.term || contentWordCount(src.term, 'de') === 0 || contentWordCount(src.term, 'de') > 3) return;
      const key = termKey(src.term, 'de');
      if ((senses.get(key) ?? 0) > OT_MAX_SENSES) return;
      terms.forEach((dst, j) => {
        if (i === j || !dst.target || !dst.term || dst.term.includes(' ') || !isContentWord(dst.term, 'de')) return;
        c.add(key, dst.term, 1 + 1 / (raw.length + 1) + 0.01 / (j + 1));
      });
    });
  }
  return c.finish((t) => termKey(t, 'de'), max);
}

// ---- WordNet (English synonyms) -------------------------------------------------------------------------------------

export interface WordNetFiles {
  /** index.noun, index.verb, index.adj, index.adv */
  index: Partial<Record<'noun' | 'verb' | 'adj' | 'adv', string>>;
  /** data.noun, … (the same parts of speech) */
  data: Partial<Record<'noun' | 'verb' | 'adj' | 'adv', string>>;
}

/** Senses of a lemma used for expansion (WordNet orders them by frequency): the most frequent ones only. */
export const WN_SENSES = 1;
/** Lemmas with more senses than this (over all parts of speech) are too ambiguous to expand ("get", "high", "run"). */
export const WN_MAX_SENSES = 6;

/**
 * WordNet 3.0 database files. For each lemma, its first `WN_SENSES` synsets per part of speech (nouns, verbs, adjectives,
 * adverbs in that order), for lemmas with at most `WN_MAX_SENSES` senses; targets are the single-word lemmas of these synsets, the first sense before the second.
 */
export function compileWordNet(files: WordNetFiles, max = MAX_TARGETS): Section {
  const c = new Collector();
  const posOrder: Array<'noun' | 'verb' | 'adj' | 'adv'> = ['noun', 'verb', 'adj', 'adv'];
  const senses = new Map<string, number>();
  for (const pos of posOrder) {
    for (const line of (files.index[pos] ?? '').split('\n')) {
      if (!line || line.startsWith('  ')) continue;
      const f = line.split(' ');
      senses.set(f[0], (senses.get(f[0]) ?? 0) + Number(f[2]));
    }
  }
  posOrder.forEach((pos, p) => {
    const data = new Map<string, string[]>();
    for (const line of (files.data[pos] ?? '').split('\n')) {
      if (!line || line.startsWith('  ')) continue;
      const f = line.split(' ');
      const n = parseInt(f[3], 16);
      const lemmas: string[] = [];
      for (let i = 0; i < n; i++) lemmas.push(f[4 + 2 * i].replace(/\([a-z]+\)$/, '').replace(/_/g, ' '));
      data.set(f[0], lemmas);
    }
    for (const line of (files.index[pos] ?? '').split('\n')) {
      if (!line || line.startsWith('  ')) continue;
      const f = line.split(' ');
      const lemma = f[0].replace(/_/g, ' ');
      const synsetCount = Number(f[2]);
      if ((senses.get(f[0]) ?? 0) > WN_MAX_SENSES) continue;
      const pCount = Number(f[3]);
      const offsets = f.slice(4 + pCount + 2, 4 + pCount + 2 + synsetCount);
      const term = clean(lemma);
      if (!term || contentWordCount(term, 'en') === 0 || contentWordCount(term, 'en') > 3) continue;
      const key = termKey(term, 'en');
      offsets.slice(0, WN_SENSES).forEach((off, s) => {
        (data.get(off) ?? []).forEach((other, j) => {
          const t = clean(other);
          if (!t || t === term || t.includes(' ') || !isContentWord(t, 'en')) return;
          c.add(key, t, 1 / (1 + s) + 0.1 / (1 + p) + 0.01 / (1 + j));
        });
      });
    }
  });
  return c.finish((t) => termKey(t, 'en'), max);
}

/**
 * How close a term is to its stem (1 = the term is its stem): several words share a stem ("tell", "telling";
 * "publish", "publisher") and the translations of the one nearest the stem, usually the base form, should come first.
 */
function baseForm(term: string, lang: LexLang): number {
  const key = termKey(term, lang).replace(/ /g, '');
  const plain = words(term).filter((w) => isContentWord(w, lang)).join('');
  return plain.length ? Math.min(1, (key.length + 1) / (plain.length + 1)) ** 2 : 1;
}

// ---- Ding (German ↔ English) ----------------------------------------------------------------------------------------

/** Removes Ding's annotations: {m} {pl} [Br.] (explanations) <alternative spellings> /abbreviations/, "to" before verbs. */
function dingTerm(raw: string, lang: LexLang, keepCase = false): string | undefined {
  let t = raw
    .replace(/\{[^}]*\}|\[[^\]]*\]|\([^)]*\)|<[^>]*>|\/[^/]*\//g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (lang === 'en') t = t.replace(/^to /i, '');
  else t = t.replace(/^(?:sich|etw\.|jdn\.|jdm\.|jds\.)\s+/gi, '').replace(/\s+(?:sich|etw\.|jdn\.|jdm\.)$/gi, '');
  if (/\b(?:etw|jdn|jdm|jds|sb|sth)\b|\.\.\./i.test(t)) return undefined;
  return clean(t, keepCase);
}

/** Terms longer than this (content words) are not used; German keys are single words (German compounds). */
const DING_MAX_WORDS: Record<LexLang, number> = { de: 2, en: 2 };
/** Translations kept per key. */
export const DING_MAX_TARGETS = 3;
/**
 * Translations kept per English key: more, because the retriever chooses among them by their frequency in the index's
 * German vocabulary (search/termLists.ts); Ding's order alone often puts a rare word first ("employer" → Brotherr).
 */
export const DING_MAX_TARGETS_EN_DE = 6;

/**
 * Ding's `de-en` file: `German | German forms :: English | English forms`; "|" separates aligned sub-entries (headword,
 * plural/inflected forms, example phrases), ";" synonyms inside one. Every aligned German/English pair of terms with few
 * enough content words is a candidate in both directions; the headword sub-entry counts more than later ones, and a
 * term's earlier position in its group more than a later one. German keys are single words, English keys up to 2 content words (so "minimum wage" → Mindestlohn).
 */
export function compileDing(text: string, max = DING_MAX_TARGETS, maxEnDe = DING_MAX_TARGETS_EN_DE): { 'de-en': Section; 'en-de': Section } {
  // The best line counts, not the number of lines: common words ("Zeit") occur in many idioms and would outrank the
  // headword translation ("hour" → Stunde) if evidence were summed.
  const deEn = new Collector('max');
  const enDe = new Collector('max');
  // The same by exact (lower-cased) form: several words share a stem ("employer", "employ"; "shifts", "shift").
  const deEnExact = new Collector('max');
  const enDeExact = new Collector('max');
  const enDeIdioms = new Collector('max');
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const sep = line.indexOf(' :: ');
    if (sep < 0) continue;
    const deParts = line.slice(0, sep).split(' | ');
    const enParts = line.slice(sep + 4).split(' | ');
    // Sub-entries: the headword, its plural or inflected forms, then example phrases and related compounds; of those
    // later ones only single German words are used ("Lohn … | Mindestlohn {m} :: wage … | minimum wage").
    const n = Math.min(deParts.length, enParts.length);
    for (let s = 0; s < n; s++) {
      // The German form as written: its exact-form key keeps the case, so the noun's plural "Lokale" (bars) and the
      // adjective's "lokale" (local) are two keys (search/termLists.ts reads the question's own capitals).
      const deCased = deParts[s].split(';').map((t) => dingTerm(t, 'de', true));
      const de = deCased.map((t) => t?.toLowerCase());
      // English alternatives inside one term are spelt out, keeping the term's position: "decomposition/degradation
      // rate" is "decomposition rate" and "degradation rate", "at a/the minimum, at least" also "at least".
      const en: { term: string | undefined; j: number }[] = enParts[s].split(';').flatMap((t, j) => englishVariants(t).map((v) => ({ term: dingTerm(v, 'en'), j })));
      const subWeight = s === 0 ? 1 : s === 1 ? 0.5 : 0.25;
      de.forEach((d, i) => {
        if (!d || (s >= 2 && d.includes(' '))) return;
        const dw = allContent(d, 'de');
        if (dw === 0 || dw > DING_MAX_WORDS.de) return;
        en.forEach(({ term: e, j }) => {
          if (!e) return;
          const ew = allContent(e, 'en');
          // An English phrase with function words that is one German word ("at least" → mindestens, "in writing" →
          // schriftlich, "free of charge" → kostenlos): keyed by its exact words, looked up as a whole in the question.
          if (ew === 0 && dw === 1 && !d.includes(' ') && isIdiom(e)) {
            enDeIdioms.add(exactKey(e), d, subWeight * (1 / (1 + i) + 1 / (1 + j)) * lengthPrior(d));
            return;
          }
          if (ew === 0 || ew > DING_MAX_WORDS.en) return;
          const w = subWeight * (1 / (1 + i) + 1 / (1 + j)) * lengthPrior(d) * lengthPrior(e);
          // German keys are single words; a phrase such as "zu Tage" would otherwise be keyed as "Tag".
          if (dw === 1) {
            deEn.add(termKey(d, 'de'), e, (w / ew) * baseForm(d, 'de'));
            deEnExact.add(casedExactKey(deCased[i]!), e, w / ew);
          }
          enDe.add(termKey(e, 'en'), d, (w / dw) * baseForm(e, 'en'));
          enDeExact.add(exactKey(e), d, w / dw);
        });
      });
    }
  }
  const finish = (stemmed: Collector, exact: Collector, to: LexLang, max: number): Section => {
    const out = stemmed.finish((t) => 'x' + termKey(t, to), max);
    // An exact form is stored only where its best translation is not among its stem's (keeps the file small).
    for (const [k, targets] of exact.finish((t) => 'x' + termKey(t, to), max)) {
      const viaStem = out.get(termKey(k, to === 'en' ? 'de' : 'en'));
      if (!viaStem || !viaStem.includes(targets[0])) out.set(`=${k}`, targets);
    }
    return out;
  };
  const enDeOut = finish(enDe, enDeExact, 'de', maxEnDe);
  for (const [k, targets] of enDeIdioms.finish((t) => 'x' + termKey(t, 'de'), max)) enDeOut.set(`${IDIOM_MARK}${k}`, targets);
  return { 'de-en': finish(deEn, deEnExact, 'en', max), 'en-de': enDeOut };
}

/**
 * An English idiom worth a key of its own: 2–3 words, at least one a function word (a stop word: "at", "in", "of",
 * "the") and one or two content words, the first and the last word not "the"/"a"/"an" ("the open" is a noun, not an idiom).
 */
function isIdiom(term: string): boolean {
  const ws = words(term);
  const content = ws.filter((w) => isContentWord(w, 'en')).length;
  return ws.length >= 2 && ws.length <= 3 && content >= 1 && content <= 2 && content < ws.length && !ARTICLE.has(ws[0]) && !ARTICLE.has(ws[ws.length - 1]) && ws.every((w) => !/^\d+$/.test(w));
}

const ARTICLE = new Set(['the', 'a', 'an']);

/** At most this many spelt-out variants of one English term (a/b c/d → 4). */
const MAX_VARIANTS = 4;

/**
 * The variants of one English Ding term: comma-separated alternatives ("to kick the bucket, to bite the dust"), each with
 * its word/word alternatives spelt out ("headlights/lights"). A slash after a space opens an abbreviation (/LRC/) and
 * stays for dingTerm to remove.
 */
export function englishVariants(raw: string): string[] {
  const plain = raw.replace(/\{[^}]*\}|\[[^\]]*\]|\([^)]*\)/g, ' ');
  const parts = plain.includes(', ') ? plain.split(', ') : [plain];
  const out: string[] = [];
  for (const part of parts) {
    let variants = [''];
    for (const token of part.trim().split(/\s+/)) {
      const alts = /^[\p{L}\p{N}'-]+(?:\/[\p{L}\p{N}'-]+)+$/u.test(token) ? token.split('/') : [token];
      variants = variants.flatMap((v) => alts.map((a) => (v ? `${v} ${a}` : a))).slice(0, MAX_VARIANTS);
    }
    out.push(...variants);
  }
  return out;
}

/** Long terms (compounds, rare words) are the more specific translations: "Urlaub" before "Universitätsferien". */
function lengthPrior(term: string): number {
  return 1 / (1 + Math.max(0, term.length - 8) / 8);
}

/** A German exact-form key: the words as written (a noun capitalised), joined by a space. */
export function casedExactKey(term: string): string {
  return (term.match(/[\p{L}\p{N}]+/gu) ?? []).join(' ');
}

/** The exact-form key: lower-cased words joined by a space, prefixed with "=" when stored. */
export function exactKey(term: string): string {
  return words(term).join(' ');
}

// ---- Output ---------------------------------------------------------------------------------------------------------

/** The compiled text: header comment lines, then `section\tkey\ttargets` sorted by section and key. */
export function serialize(sections: Record<string, Section>, header: string[]): string {
  const lines = header.map((h) => `# ${h}`);
  for (const [name, section] of Object.entries(sections)) {
    for (const [key, targets] of section) {
      if (key.includes('\t') || targets.some((t) => t.includes('|') || t.includes('\t'))) continue;
      lines.push(`${name}\t${key}\t${targets.join('|')}`);
    }
  }
  return lines.join('\n') + '\n';
}
