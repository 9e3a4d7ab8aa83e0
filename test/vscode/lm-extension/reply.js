// @ts-check
// Deterministic replies of the test language model. Pure functions, no `vscode` import, so the
// same logic is unit-tested with mocha (test/unit/vscodeTestLmReply.test.ts) and used by extension.js.
'use strict';

/** A numbered source element: <source n="3" ...>text</source> (n, id, index or ref). */
const SOURCE_TAG = /<source\s+([^>]*?\b(?:n|id|index|ref)\s*=\s*["']?\[?\d+[^>]*)>([\s\S]*?)<\/source>/i;

/**
 * Numbered sources found in a prompt. Understands
 *   <source n="3" path="a.md">text</source>   (also id="3" / index="3", any extra attributes)
 * and, when there is no <source> tag, numbered blocks such as
 *   [3] a.md:10-12
 *   text ...
 * @param {string} prompt
 * @returns {{n: number, text: string}[]}
 */
function parseSources(prompt) {
  /** @type {{n: number, text: string}[]} */
  const out = [];
  // Only tags carrying a number count: instructions may mention "<source>" elements in prose.
  const tag = new RegExp(SOURCE_TAG.source, 'gi');
  let m;
  while ((m = tag.exec(prompt)) !== null) {
    const attr = /\b(?:n|id|index|ref)\s*=\s*["']?\[?(\d+)/i.exec(m[1]);
    if (!attr) continue;
    out.push({ n: Number(attr[1]), text: m[2] });
  }
  if (out.length > 0) return out;
  // Fallback: "[k] ..." at the start of a line, block runs until the next "[k]" line.
  const lines = prompt.split('\n');
  /** @type {{n: number, text: string} | undefined} */
  let cur;
  for (const line of lines) {
    const head = /^\s*\[(\d+)\]\s?(.*)$/.exec(line);
    if (head) {
      if (cur) out.push(cur);
      cur = { n: Number(head[1]), text: head[2] + '\n' };
    } else if (cur) {
      cur.text += line + '\n';
    }
  }
  if (cur) out.push(cur);
  return out;
}

/** Abbreviations after which a period does not end a sentence (German and English). */
const ABBREVIATIONS = new Set(['z', 'b', 'd', 'h', 'bzw', 'vgl', 'abs', 'nr', 'art', 'ca', 'usw', 'etc', 'e', 'g', 'i', 'dr', 'mr', 'mrs', 'st', 'vs', 'ggf', 'inkl', 'sog', 'u', 'a', 's']);

/**
 * Index just past the end of the first sentence: a [.!?] followed by white space (or the end), not after a number
 * ("31. März", "§ 3. Abs") or a known abbreviation ("z. B.", "Abs.").
 * @param {string} body
 */
function sentenceEnd(body) {
  const re = /[.!?](?=\s|$)/g;
  let m;
  while ((m = re.exec(body)) !== null) {
    if (m[0] === '.') {
      const word = /(\S+)$/.exec(body.slice(0, m.index));
      const w = word ? word[1].replace(/^[("'„»]+/, '') : '';
      if (/^\d{1,2}$/.test(w) && m.index + 1 < body.length) continue; // German ordinals: "31. März", "3. Abschnitt"
      if (ABBREVIATIONS.has(w.toLowerCase().replace(/\.$/, '').split('.').pop() ?? '')) continue;
    }
    return m.index + 1;
  }
  return body.length;
}

/**
 * First sentence of a source text (header lines like "path: a.md" or "# Title" skipped), at most 240 chars.
 * @param {string} text
 */
function firstSentence(text) {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0)
    .filter((l) => !/^(path|file|title|heading|headings|location|lines|page|range)\s*:/i.test(l))
    .map((l) => l.replace(/^#+\s*/, ''));
  const body = lines.join(' ').replace(/\s+/g, ' ').trim();
  if (!body) return '';
  let sentence = body.slice(0, sentenceEnd(body));
  if (sentence.length > 240) sentence = sentence.slice(0, 240).replace(/\s+\S*$/, '') + '…';
  return sentence;
}

/**
 * Whether the request asks for JSON: a model option (json: true, format: 'json', response_format...) or the
 * word "JSON" in the instructions — text inside <source> blocks does not count (documents may mention JSON).
 * @param {string} prompt
 * @param {Record<string, unknown> | undefined} modelOptions
 */
function wantsJson(prompt, modelOptions) {
  if (modelOptions) {
    if (modelOptions.json === true) return true;
    if (typeof modelOptions.format === 'string' && modelOptions.format.toLowerCase() === 'json') return true;
    if (modelOptions.response_format || modelOptions.responseFormat) return true;
  }
  const instructions = prompt.replace(new RegExp(SOURCE_TAG.source, 'gi'), ' ');
  return /\bJSON\b/.test(instructions);
}

/**
 * A deterministic JSON reply. Uses the override when set. Otherwise it answers in the shapes our prompts ask for:
 *   {"queries": [...]}            query expansion: one variant = the question's words in reverse order (same terms,
 *                                 different string, so it is not dropped as a duplicate of the original);
 *   {"scores": [10, 9, ...]}      reranking of numbered passages: keeps the given order;
 *   {"grounded": 1, "unsupported": []}  groundedness checks;
 *   {"answer": ..., "citations": [...]} when <source> elements are present.
 * @param {string} prompt
 * @param {string} lastUser
 * @param {unknown} override
 */
function jsonReply(prompt, lastUser, override) {
  if (override !== undefined && override !== null) {
    return typeof override === 'string' ? override : JSON.stringify(override);
  }
  const sources = parseSources(prompt);
  /** @type {Record<string, unknown>} */
  const obj = {};
  if (/\bquer(y|ies)\b/i.test(prompt) && sources.length === 0) obj.queries = [reversedWords(questionOf(lastUser))];
  if (sources.length > 0) obj.scores = sources.map((_s, i) => Math.max(0, 10 - i));
  if (/\bgrounded\b/i.test(prompt)) {
    obj.grounded = 1;
    obj.unsupported = [];
  }
  if (SOURCE_TAG.test(prompt)) {
    obj.answer = answerFromSources(sources);
    obj.citations = sources.map((s) => s.n);
  }
  return JSON.stringify(obj);
}

/** @param {string} q */
function reversedWords(q) {
  const words = q.replace(/[?!.]+$/, '').split(/\s+/).filter(Boolean);
  if (words.length <= 1) return `${words[0] ?? ''} ${words[0] ?? ''}`.trim();
  return words.reverse().join(' ');
}

/**
 * The question in a user message: the text after "Question:" / "Frage:" if present, else the last line.
 * @param {string} text
 */
function questionOf(text) {
  const q = /(?:question|frage|query)\s*:\s*(.+)/i.exec(text);
  if (q) return q[1].trim();
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.length ? lines[lines.length - 1] : '';
}

/**
 * One line per source: its first sentence followed by " [n]".
 * @param {{n: number, text: string}[]} sources
 */
function answerFromSources(sources) {
  return sources
    .map((s) => {
      const sentence = firstSentence(s.text);
      return sentence ? `${sentence} [${s.n}]` : '';
    })
    .filter(Boolean)
    .join('\n');
}

/** The search's translation request (src/rag/search/translate.ts): its instructions name the task. */
const TRANSLATE_REQUEST = /\btranslate search questions\b/i;

/**
 * The reply to a translation request: the translation the test set for the question (the last user message, which the
 * request carries verbatim), else the question unchanged (a model that cannot translate: the search leaves it out).
 * @param {string} question
 * @param {Record<string, string> | undefined} translations
 */
function translationReply(question, translations) {
  const q = question.trim();
  return translations && typeof translations[q] === 'string' ? translations[q] : q;
}

/**
 * The full reply for a request.
 * @param {{role: string, text: string}[]} messages
 * @param {{modelOptions?: Record<string, unknown>, jsonOverride?: unknown, translations?: Record<string, string>}} [options]
 * @returns {string}
 */
function replyFor(messages, options = {}) {
  const prompt = messages.map((m) => m.text).join('\n');
  const users = messages.filter((m) => m.role === 'user');
  const lastUser = users.length ? users[users.length - 1].text : prompt;
  if (TRANSLATE_REQUEST.test(prompt) && parseSources(prompt).length === 0) return translationReply(lastUser, options.translations);
  if (wantsJson(prompt, options.modelOptions)) return jsonReply(prompt, lastUser, options.jsonOverride);
  const sources = parseSources(prompt);
  if (sources.length > 0) {
    const answer = answerFromSources(sources);
    if (answer) return answer;
  }
  return `Test model reply: ${firstSentence(lastUser) || '(empty prompt)'}`;
}

/**
 * Splits a reply into stream parts (words with their trailing space), so callers see several chunks.
 * @param {string} text
 * @returns {string[]}
 */
function streamParts(text) {
  const parts = text.match(/\S+\s*|\s+/g);
  return parts ?? [text];
}

module.exports = { parseSources, firstSentence, wantsJson, jsonReply, replyFor, streamParts, answerFromSources, questionOf, translationReply };
