// Deterministic "chat model" for answer tests, served by the Ollama-API test server (test/helpers/ollamaServer.ts).
// It answers from the prompt like an obedient small model would:
// - it obeys an instruction "say <WORD>" only when it appears in the instruction part (system message, or the user
//   message outside the <sources> … </sources> block) — so a document can only hijack it if the prompt fails to keep
//   document text delimited;
// - otherwise it quotes the best-matching sentence of the source sharing most words with the question, cited as [n];
// - with tools and no tool result yet, it calls keyword_search with the question's longest words; after tool results it
//   answers from the sources in them.
import type { FakeChatReply, FakeChatRequest, FakeOllamaOptions } from '../helpers/ollamaServer';

interface Src {
  n: number;
  text: string;
}

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

export function parseSources(text: string): Src[] {
  const out: Src[] = [];
  for (const m of text.matchAll(/<source n="(\d+)"[^>]*>\n([\s\S]*?)\n<\/source>/g)) out.push({ n: Number(m[1]), text: m[2] });
  return out;
}

/** The sentence of a text sharing most words with the question (the first one on a tie). */
export function bestSentence(text: string, question: string): string {
  const q = new Set(words(question).filter((w) => w.length > 3));
  const sentences = text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s && !/^#/.test(s));
  let top = sentences[0] ?? text.trim();
  let score = -1;
  for (const s of sentences) {
    const sc = words(s).filter((w) => q.has(w)).length;
    if (sc > score) {
      score = sc;
      top = s;
    }
  }
  return top;
}

function best(question: string, sources: Src[]): Src | undefined {
  const q = new Set(words(question).filter((w) => w.length > 3));
  let top: Src | undefined;
  let score = -1;
  for (const s of sources) {
    const sc = words(s.text).filter((w) => q.has(w)).length;
    if (sc > score) {
      score = sc;
      top = s;
    }
  }
  return top;
}

export function testModel(req: FakeChatRequest): string | FakeChatReply {
  const system = req.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n');
  const users = req.messages.filter((m) => m.role === 'user');
  const firstUser = users[0]?.content ?? '';
  // The instruction part: everything outside the first <sources> … </sources> block (a fake closing tag inside a
  // document would end the block early and expose the rest as instructions).
  const instructions = `${system}\n${firstUser.replace(/<sources>[\s\S]*?<\/sources>/, '')}`;
  const say = /\bsay ([A-Z]{3,})\b/.exec(instructions);
  if (say) return say[1];
  const question = /Question: ([^\n]*)/.exec(firstUser)?.[1] ?? firstUser;

  const toolResults = req.messages.filter((m) => m.role === 'tool').map((m) => m.content);
  if (req.tools?.length && toolResults.length === 0) {
    const query = words(question).filter((w) => w.length > 5).slice(0, 3).join(' ') || question;
    return { content: '', tool_calls: [{ function: { name: 'keyword_search', arguments: { query, k: 3 } } }] };
  }
  const sources = [...parseSources(firstUser), ...toolResults.flatMap(parseSources)];
  const top = best(question, sources);
  if (!top) return 'The documents do not contain the answer.';
  return `${bestSentence(top.text, question)} [${top.n}]`;
}

export const options: FakeOllamaOptions = { chat: testModel };
export default options;
