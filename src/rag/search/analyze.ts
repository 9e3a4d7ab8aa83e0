// Query analysis (German and English): language, type, multi-hop indicators, exact tokens, and from these
// a level filter, a flow and a fusion weight. Rule-based and fast (no model).
import { queryLanguage } from '../text/language';
import type { Lang, Level } from '../types';
import type { QueryAnalysis, QueryType } from './types';

export interface AnalyzeOptions {
  /** Language detector for longer texts (the chunker's); used when the query's own cues are inconclusive (text/language.ts). */
  detect?: (text: string) => Lang;
  /** Default fusion weight of the vector list. */
  alpha?: number;
  /** Alpha used when the query carries exact tokens (keyword-heavy). */
  alphaExact?: number;
}

/** A case-insensitive regex whose \\b means a Unicode word boundary (so "überblick" and "für" match). */
function uw(source: string): RegExp {
  const B = '(?:(?<![\\p{L}\\p{N}_])(?=[\\p{L}\\p{N}_])|(?<=[\\p{L}\\p{N}_])(?![\\p{L}\\p{N}_]))';
  return new RegExp(source.replace(/\\b/g, B), 'iu');
}

interface TypeRule {
  type: QueryType;
  re: RegExp;
}

// Order matters: the first matching rule wins.
const TYPE_RULES: TypeRule[] = [
  {
    type: 'comparative',
    re: uw(String.raw`\b(unterschied\w*|unterscheid\w*|vergleich\w*|versus|vs\.?|im gegensatz|anders als|difference\w*|differ\w*|compare\w*|comparison|distinguish\w*|instead of|rather than|better)\b|\b(?:unterschied|difference) zwischen\b`),
  },
  {
    type: 'aggregative',
    re: uw(String.raw`\b(welche \w+ (gibt es|alle)|alle\w*|liste\w*|auflist\w*|aufzähl\w*|übersicht|überblick|zusammenfass\w*|which \w+ (are there|exist)|list( all| of)?|all (the )?|every|overview|summar\w*|what (kinds|types|options|settings|fields|keys) )\b`),
  },
  {
    type: 'procedural',
    re: uw(String.raw`\b(wie (kann|muss|beantrage|melde|gehe|stelle|erhalte|bekomme|mache|richte)\w*|was muss ich tun|schritt\w*|vorgehen|antrag\w*|beantrag\w*|how (do|can|should|to|would)|steps?|set ?up|configure|install\w*|procedure)\b`),
  },
  {
    type: 'relational',
    re: uw(String.raw`\b(ausnahme\w*|gilt .* auch|verhältnis|vorrang|abweich\w*|bezug|verweis\w*|hängt .* ab|abhängig|zusammenhang|exception\w*|override\w*|precedence|relat\w*|depend\w*|interact\w*|affect\w*|conflict\w*|apply to|applies to|take[s]? priority)\b`),
  },
  {
    type: 'temporal',
    re: uw(String.raw`\b(wann|frist\w*|bis wann|wie lange|seit wann|dauer|zeitraum|innerhalb|when|deadline|how long|until|since|expire\w*|timeout)\b`),
  },
];

const OVERVIEW_RE = uw(String.raw`\b(überblick|übersicht|zusammenfassung (von|des|der|über|zu)|fasse .* zusammen|worum geht es|overview|summari[sz]e|summary of|what is .* about|what does .* cover)\b`);
const MULTI_HOP_RE = uw(String.raw`\b(und (gleichzeitig|zugleich|außerdem)|sowohl|beide\w*|in kombination|both|as well as|together with|in combination|and also)\b`);

/** § references ("§ 7 BUrlG", "§ 3 Abs. 2"), law abbreviations, setting names, env vars, flags and numbers. */
export function extractExactTokens(query: string): string[] {
  const out = new Set<string>();
  const push = (t: string) => {
    const s = t.trim();
    if (s) out.add(s);
  };
  for (const m of query.matchAll(/§{1,2}\s*\d+[a-z]?(?:\s*(?:Abs\.|Absatz)\s*\d+)?(?:\s*(?:S\.|Satz)\s*\d+)?(?:\s*(?:Nr\.)\s*\d+)?(?:\s+[A-ZÄÖÜ][A-Za-zÄÖÜäöüß]*G\b)?/g)) push(m[0].replace(/\s+/g, ' '));
  for (const m of query.matchAll(/\b[A-ZÄÖÜ][A-Za-zÄÖÜäöü]*[A-ZÄÖÜ][A-Za-zÄÖÜäöü]*G\b|\b[A-ZÄÖÜ][a-zäöü]*[A-Z]+[a-z]*G\b/g)) push(m[0]);
  for (const m of query.matchAll(/`([^`]+)`/g)) push(m[1]);
  for (const m of query.matchAll(/(?<![\w-])--?[a-z][\w-]+/g)) push(m[0]);
  for (const m of query.matchAll(/\b[a-z0-9]+(?:[-_][a-z0-9]+)+\b/g)) push(m[0]);
  for (const m of query.matchAll(/\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b/g)) push(m[0]);
  // Dotted names (file names, hosts, keys): `Cargo.toml`, `crates.io`, `build.rs`, `profile.release.opt-level`.
  for (const m of query.matchAll(/(?<![\p{L}\p{N}_.-])[\p{L}\p{N}_][\p{L}\p{N}_-]*(?:\.[\p{L}_][\p{L}\p{N}_-]*)+/gu)) {
    if (m[0].length >= 4 && !/^(?:\p{L}\.)+\p{L}$/u.test(m[0])) push(m[0]); // not "z.B", "u.a"
  }
  for (const m of query.matchAll(/\b\d+(?:[.,]\d+)*\b/g)) push(m[0]);
  return [...out];
}

/** Analyses a query; everything it decides can be overridden per request by the orchestrator. */
export function analyzeQuery(query: string, options: AnalyzeOptions = {}): QueryAnalysis {
  const lang = queryLanguage(query, options.detect);
  const type = TYPE_RULES.find((r) => r.re.test(query))?.type ?? 'factual';
  const exactTokens = extractExactTokens(query);
  const lawRefs = exactTokens.filter((t) => /G$/.test(t) && !/^\d/.test(t));
  const multiHop = MULTI_HOP_RE.test(query) || new Set(lawRefs.map((r) => r.split(' ').pop())).size >= 2;
  const levels: Level[] = type === 'aggregative' ? [0, 1, 2] : [1, 2];
  const flow = OVERVIEW_RE.test(query) ? 'summary' : 'chunk';
  const alphaDefault = options.alpha ?? 0.5;
  const alphaExact = options.alphaExact ?? Math.max(0, alphaDefault - 0.2);
  const alpha = exactTokens.some((t) => !/^\d+$/.test(t)) ? alphaExact : alphaDefault;
  return { query, lang, type, multiHop, exactTokens, levels, flow, alpha };
}
