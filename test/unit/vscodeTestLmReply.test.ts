// The deterministic replies of the test language model (test/vscode/lm-extension/reply.js) against the REAL prompts
// of the answer and search stages, so the model stays usable by the extension tests when those prompts change.
import * as assert from 'node:assert/strict';
import { firstSentence, replyFor, streamParts, parseSources } from '../vscode/lm-extension/reply.js';
import { buildAnswerMessages, groundednessMessages } from '../../src/rag/answer/prompts';
import { multiQuery } from '../../src/rag/search/expand';
import { LlmReranker } from '../../src/rag/search/rerank';
import { clearTranslationCache, translateQuestion } from '../../src/rag/search/translate';
import type { ChatMessage, ChatModel, ChatOptions, ChatResponse, Passage, SearchHit } from '../../src/rag/types';

function passage(id: string, path: string, text: string, startLine: number, endLine: number): Passage {
  return {
    id,
    path,
    fileHash: 'h',
    format: 'md',
    level: 2,
    chunkPath: `doc/s/${id}`,
    parentId: null,
    order: 0,
    headingPath: ['Guide', 'Build cache'],
    title: 'Guide',
    text,
    overlap: '',
    lang: 'en',
    loc: { startLine, endLine },
  };
}

/** A ChatModel over the test model's reply function, as the extension host would see it through vscode.lm. */
class TestLmChatModel implements ChatModel {
  readonly id = 'docs-rag-test-model';
  readonly contextWindow = 16000;
  readonly seen: ChatMessage[][] = [];
  constructor(private readonly translations?: Record<string, string>) {}
  async chat(messages: ChatMessage[], options: ChatOptions = {}): Promise<ChatResponse> {
    this.seen.push(messages);
    const text = replyFor(
      messages.map((m) => ({ role: m.role, text: m.content })),
      { modelOptions: options.json ? { json: true } : undefined, translations: this.translations },
    );
    for (const part of streamParts(text)) options.onToken?.(part);
    return { text, toolCalls: [] };
  }
}

const sources = [
  { n: 1, passage: passage('a', 'docs/build-cache.md', 'The Zephyr build cache lives in the folder .zephyr/cache inside the project root. It stores artefacts.', 7, 8) },
  { n: 2, passage: passage('b', 'docs/urlaub.md', 'Jede Vollzeitkraft hat Anspruch auf 30 Arbeitstage Urlaub im Kalenderjahr! Teilzeit anteilig.', 7, 8) },
];

describe('test language model replies', () => {
  it('answers the real answer prompt by quoting each numbered source with its [n] marker', () => {
    const messages = buildAnswerMessages('Where is the build cache?', sources, 'en');
    const reply = replyFor(messages.map((m) => ({ role: m.role, text: m.content })));
    assert.equal(
      reply,
      'The Zephyr build cache lives in the folder .zephyr/cache inside the project root. [1]\n' +
        'Jede Vollzeitkraft hat Anspruch auf 30 Arbeitstage Urlaub im Kalenderjahr! [2]',
    );
  });

  it('does not switch to JSON when only a document mentions JSON', () => {
    const s = [{ n: 3, passage: passage('c', 'a.md', 'Cargo prints metadata as JSON. More.', 1, 1) }];
    const messages = buildAnswerMessages('What format?', s, 'en');
    assert.equal(replyFor(messages.map((m) => ({ role: m.role, text: m.content }))), 'Cargo prints metadata as JSON. [3]');
  });

  it('returns query variants the real multi-query expansion accepts', async () => {
    const model = new TestLmChatModel();
    const variants = await multiQuery(model, 'Where does the build cache live?', 'en', { n: 3, timeoutMs: 5000 });
    assert.deepEqual(variants, ['live cache build the does Where']);
  });

  it('returns scores the real LLM reranker parses, keeping the given order', async () => {
    const model = new TestLmChatModel();
    const hits: SearchHit[] = sources.map((s, i) => ({ passage: s.passage, score: 1 - i * 0.1 }));
    const reranked = await new LlmReranker(model).rerank('build cache', hits);
    assert.deepEqual(reranked.map((h) => h.passage.id), ['a', 'b']);
    assert.deepEqual(reranked.map((h) => h.score), [1, 0.9]);
    assert.equal(model.seen.length, 1);
  });

  it('answers the real translation request with the translation set for the question, else the question unchanged', async () => {
    clearTranslationCache();
    const question = 'How many days of leave does a full-time employee get?';
    const model = new TestLmChatModel({ [question]: 'Wie viele Arbeitstage Urlaub hat eine Vollzeitkraft?' });
    assert.deepEqual(await translateQuestion(model, question, 'en', { timeoutMs: 5000 }), [
      { text: 'Wie viele Arbeitstage Urlaub hat eine Vollzeitkraft?', lang: 'de', kind: 'translation' },
    ]);
    await assert.rejects(translateQuestion(new TestLmChatModel(), 'Where does the build cache live?', 'en', { timeoutMs: 5000 }), /no usable translation/);
  });

  it('answers a groundedness check with valid JSON', () => {
    const messages = groundednessMessages('Where?', 'In .zephyr/cache [1].', sources);
    const json = JSON.parse(replyFor(messages.map((m) => ({ role: m.role, text: m.content })))) as Record<string, unknown>;
    assert.equal(json.grounded, 1);
    assert.deepEqual(json.unsupported, []);
  });

  it('honours an explicit JSON override and the json model option', () => {
    assert.equal(replyFor([{ role: 'user', text: 'Say hi in JSON' }], { jsonOverride: { hi: true } }), '{"hi":true}');
    assert.deepEqual(JSON.parse(replyFor([{ role: 'user', text: 'anything' }], { modelOptions: { json: true } })), {});
  });

  it('understands "[k] text" numbered blocks and falls back to an echo without sources', () => {
    assert.deepEqual(parseSources('Passages:\n[1] first. x\n\n[2] second'), [
      { n: 1, text: 'first. x\n\n' },
      { n: 2, text: 'second\n' },
    ]);
    assert.equal(replyFor([{ role: 'user', text: 'Hello there. How are you?' }]), 'Test model reply: Hello there.');
  });

  it('ends the first sentence at a real sentence end, not after German ordinals or abbreviations', () => {
    assert.equal(
      firstSentence('Resturlaub kann bis zum 31. März des Folgejahres übertragen werden. Danach verfällt er.'),
      'Resturlaub kann bis zum 31. März des Folgejahres übertragen werden.',
    );
    assert.equal(firstSentence('Das gilt z. B. für Abs. 2 im Jahr 2020. Weiter.'), 'Das gilt z. B. für Abs. 2 im Jahr 2020.');
    assert.equal(firstSentence('# Title\nIt has 3 parts. Next one.'), 'Title It has 3 parts.');
  });

  it('streams a reply in several parts that join to the whole', () => {
    const parts = streamParts('a b  c\nd [1]');
    assert.ok(parts.length >= 4);
    assert.equal(parts.join(''), 'a b  c\nd [1]');
  });
});
