// Typed messages between the Docs webview (media/docsView.js) and the extension host. Every message that comes from
// the webview is validated here before the host acts on it; unknown or malformed messages are dropped.

/** A search result as the view shows it. Everything here is plain text; the view renders it with textContent. */
export interface ViewResult {
  /** Index into the host's table of the last results (the view never sends URIs or paths back). */
  id: number;
  label: string;
  title: string;
  heading: string;
  snippet: string;
  score: number;
  /** What the hit links to ('out') and what links to it ('in') in the reference graph; each opens its range by `id`. */
  links?: ViewLink[];
}

/** One edge of a result in the view: plain text, opened through the host's table of results by id. */
export interface ViewLink {
  id: number;
  direction: 'out' | 'in';
  kind: string;
  /** Location label of the other end. */
  label: string;
  /** The text that makes the link ("§ 23 KSchG", a link text, a name). */
  anchor: string;
}

export interface ViewCitation {
  n: number;
  /** Id of the result entry that opens this citation. */
  id: number;
  label: string;
  text: string;
}

export interface ViewFolderStatus {
  name: string;
  files: number;
  passages: number;
  problems: number;
  embedder: string;
}

export interface ViewStatus {
  state: 'idle' | 'indexing' | 'error' | 'empty' | 'restricted';
  message: string;
  folders: ViewFolderStatus[];
}

/**
 * The texts the view's script builds itself, in VS Code's display language (the host writes them into the page as
 * JSON in `<body data-strings>`); `{0}`, `{1}` are filled by the script.
 */
export interface ViewStrings {
  /** {0} the query. */
  noMatch: string;
  /** {0} the number of results, {1} the query. */
  resultsFor: string;
  /** {0} a result's location label. */
  open: string;
  linksTo: string;
  linkedFrom: string;
  answer: string;
  mostRelevant: string;
  sources: string;
  /** {0} the citation number, {1} its location label. */
  source: string;
  /** {0} the citation number, {1} its location label. */
  openSource: string;
}

/** Host → view. */
export type HostMessage =
  | { type: 'status'; status: ViewStatus }
  | { type: 'results'; requestId: number; query: string; terms: string[]; results: ViewResult[]; note?: string }
  | { type: 'answerStart'; requestId: number; question: string; mode: string }
  | { type: 'answerChunk'; requestId: number; text: string }
  | { type: 'answerEnd'; requestId: number; answer: string; citations: ViewCitation[]; notes: string[]; mode: string }
  | { type: 'error'; requestId?: number; message: string }
  | { type: 'busy'; requestId: number; stage: string }
  | { type: 'setQuery'; kind: 'search' | 'ask'; text: string };

/** View → host. */
export type ViewMessage =
  | { type: 'ready' }
  | { type: 'search'; requestId: number; query: string }
  | { type: 'ask'; requestId: number; question: string }
  | { type: 'open'; id: number }
  | { type: 'reindex' }
  | { type: 'cancel'; requestId: number };

export const MAX_QUERY_LENGTH = 2000;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isId(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 1e9;
}

function isText(v: unknown): v is string {
  return typeof v === 'string' && v.trim().length > 0 && v.length <= MAX_QUERY_LENGTH;
}

/** Returns the message when it has exactly the expected shape, else undefined. */
export function parseViewMessage(raw: unknown): ViewMessage | undefined {
  if (!isObject(raw) || typeof raw.type !== 'string') return undefined;
  switch (raw.type) {
    case 'ready':
    case 'reindex':
      return { type: raw.type };
    case 'search':
      return isId(raw.requestId) && isText(raw.query) ? { type: 'search', requestId: raw.requestId, query: raw.query.trim() } : undefined;
    case 'ask':
      return isId(raw.requestId) && isText(raw.question) ? { type: 'ask', requestId: raw.requestId, question: raw.question.trim() } : undefined;
    case 'open':
      return isId(raw.id) ? { type: 'open', id: raw.id } : undefined;
    case 'cancel':
      return isId(raw.requestId) ? { type: 'cancel', requestId: raw.requestId } : undefined;
    default:
      return undefined;
  }
}

/** Lower-cased query words worth marking in snippets (≥ 3 letters, or digits / § references). */
export function queryTerms(query: string): string[] {
  const words = query.toLowerCase().match(/[\p{L}\p{N}§][\p{L}\p{N}_-]*/gu) ?? [];
  return [...new Set(words.filter((w) => w.length >= 3 || /\d/.test(w)))].slice(0, 20);
}

/** A snippet of at most `max` characters around the first matched term. */
export function snippetFor(text: string, terms: string[], max = 320): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const lower = flat.toLowerCase();
  let at = -1;
  for (const t of terms) {
    const i = lower.indexOf(t);
    if (i >= 0 && (at < 0 || i < at)) at = i;
  }
  const start = Math.max(0, at < 0 ? 0 : at - Math.floor(max / 3));
  const piece = flat.slice(start, start + max);
  return `${start > 0 ? '…' : ''}${piece}${start + max < flat.length ? '…' : ''}`;
}
