// OllamaChatModel through the real `ollama` client against the Ollama-API test server.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { OllamaChatModel } from '../../src/rag/llm/ollamaChat';
import { ModelError } from '../../src/rag/types';
import { closedPort, startFakeOllama, type FakeOllama } from '../helpers/ollamaServer';

function expectModelError(kind: ModelError['kind'], re: RegExp) {
  return (e: unknown) => {
    assert.ok(e instanceof ModelError, `expected ModelError, got ${String(e)}`);
    assert.equal(e.kind, kind, e.message);
    assert.match(e.message, re);
    return true;
  };
}

const ROOT = path.resolve(__dirname, '../..');

/** `docsRag.x.y` names in a text that are not settings of package.json's contributes.configuration. */
function unknownSettings(text: string): string[] {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const conf = pkg.contributes.configuration;
  const known = new Set<string>((Array.isArray(conf) ? conf : [conf]).flatMap((c: { properties: object }) => Object.keys(c.properties)));
  return [...new Set(text.match(/docsRag\.[A-Za-z]+(?:\.[A-Za-z]+)*/g) ?? [])].filter((s) => !known.has(s));
}

describe('answer: OllamaChatModel', () => {
  let server: FakeOllama | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('learns the context window from /api/show, streams tokens and sends num_ctx and keep_alive', async () => {
    server = await startFakeOllama({ contextLength: 32768, chat: () => 'Die Frist beträgt drei Wochen [1].' });
    const m = new OllamaChatModel({ model: 'llama3.2', host: server.url, keepAlive: '10m', maxContextWindow: 16384 });
    await m.init();
    assert.equal(m.contextWindow, 16384, 'trained window 32768 capped at 16384');
    const tokens: string[] = [];
    const res = await m.chat([{ role: 'user', content: 'Frist?' }], { onToken: (t) => tokens.push(t), temperature: 0 });
    assert.equal(res.text, 'Die Frist beträgt drei Wochen [1].');
    assert.ok(tokens.length > 3, 'streamed in several pieces');
    assert.equal(tokens.join(''), res.text);
    const chatReq = server.requests.find((r) => r.path === '/api/chat')!;
    assert.equal(chatReq.body.options.num_ctx, 16384);
    assert.equal(chatReq.body.options.temperature, 0);
    assert.equal(chatReq.body.keep_alive, '10m');
    assert.equal(chatReq.body.stream, true);
  });

  it('sends tools in Ollama format and returns the tool calls', async () => {
    server = await startFakeOllama({
      chat: (req) => {
        if (req.messages.some((m) => m.role === 'tool')) return `Got: ${req.messages.find((m) => m.role === 'tool')!.content}`;
        return { content: '', tool_calls: [{ function: { name: 'keyword_search', arguments: { query: 'Urlaub' } } }] };
      },
    });
    const m = new OllamaChatModel({ model: 'qwen2.5:7b', host: server.url });
    const tool = { name: 'keyword_search', description: 'search', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } };
    const first = await m.chat([{ role: 'user', content: 'q' }], { tools: [tool] });
    assert.deepEqual(first.toolCalls, [{ name: 'keyword_search', arguments: { query: 'Urlaub' } }]);
    const sent = server.requests.find((r) => r.path === '/api/chat')!.body;
    assert.deepEqual(sent.tools[0], { type: 'function', function: { name: 'keyword_search', description: 'search', parameters: tool.parameters } });
    const second = await m.chat([
      { role: 'user', content: 'q' },
      { role: 'assistant', content: '', toolCalls: first.toolCalls },
      { role: 'tool', toolName: 'keyword_search', content: 'result text' },
    ]);
    assert.equal(second.text, 'Got: result text');
    const last = server.requests.filter((r) => r.path === '/api/chat').pop()!.body;
    assert.deepEqual(last.messages[1].tool_calls, [{ function: { name: 'keyword_search', arguments: { query: 'Urlaub' } } }]);
    assert.equal(last.messages[2].tool_name, 'keyword_search');
  });

  it('drops <think> blocks of reasoning models from the stream and the text', async () => {
    server = await startFakeOllama({ chat: () => '<think>The user asks about weeks. Let me check.</think>\n\nThree weeks [1]. a < b' });
    const m = new OllamaChatModel({ model: 'llama3.2', host: server.url });
    const tokens: string[] = [];
    const res = await m.chat([{ role: 'user', content: 'x' }], { onToken: (t) => tokens.push(t) });
    assert.equal(res.text, 'Three weeks [1]. a < b');
    assert.equal(tokens.join(''), res.text);
  });

  it('model missing → tells to ollama pull the model', async () => {
    server = await startFakeOllama({ models: ['llama3.2'] });
    const m = new OllamaChatModel({ model: 'qwen2.5:7b-instruct', host: server.url });
    await assert.rejects(m.init(), expectModelError('model-missing', /ollama pull qwen2\.5:7b-instruct/));
    await assert.rejects(m.chat([{ role: 'user', content: 'x' }]), expectModelError('model-missing', /ollama pull qwen2\.5:7b-instruct/));
  });

  it('host down → tells how to start Ollama', async () => {
    const port = await closedPort();
    const m = new OllamaChatModel({ model: 'llama3.2', host: `http://127.0.0.1:${port}` });
    await assert.rejects(m.chat([{ role: 'user', content: 'x' }]), expectModelError('unreachable', /ollama serve.*--ollama-host/s));
  });

  it('slow model → timeout with the fix, long before the model would answer', async () => {
    server = await startFakeOllama({ delayMs: 5000 });
    const m = new OllamaChatModel({ model: 'llama3.2', host: server.url, timeoutMs: 300 });
    const t = Date.now();
    await assert.rejects(m.chat([{ role: 'user', content: 'x' }]), expectModelError('timeout', /0\.3 s.*raise the timeout/s));
    assert.ok(Date.now() - t < 3000, 'gave up after the timeout, not after the delay');
  });

  it('cancellation mid-stream → cancelled, and tokens stop', async () => {
    server = await startFakeOllama({ chunkDelayMs: 50, chat: () => 'one two three four five six seven eight nine ten eleven twelve' });
    const m = new OllamaChatModel({ model: 'llama3.2', host: server.url });
    const ac = new AbortController();
    const tokens: string[] = [];
    const p = m.chat([{ role: 'user', content: 'x' }], {
      signal: ac.signal,
      onToken: (tok) => {
        tokens.push(tok);
        if (tokens.length === 2) ac.abort();
      },
    });
    await assert.rejects(p, expectModelError('cancelled', /Cancelled/));
    const n = tokens.length;
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(tokens.length, n);
    assert.ok(n < 12);
  });

  it('prompt larger than the context window → context-overflow before sending', async () => {
    server = await startFakeOllama({ contextLength: 512 });
    const m = new OllamaChatModel({ model: 'llama3.2', host: server.url });
    await m.init();
    await assert.rejects(m.chat([{ role: 'user', content: 'Wort '.repeat(3000) }]), expectModelError('context-overflow', /context window.*512/));
    assert.equal(server.requests.filter((r) => r.path === '/api/chat').length, 0);
  });

  it('the overflow message names a way to raise the window that exists (the ask flag), no invented setting', async () => {
    server = await startFakeOllama({ contextLength: 512 });
    const m = new OllamaChatModel({ model: 'llama3.2', host: server.url });
    await m.init();
    const err = await m.chat([{ role: 'user', content: 'Wort '.repeat(3000) }]).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof ModelError && err.kind === 'context-overflow', String(err));
    assert.match(err.message, /docs-rag ask --num-ctx N/);
    const usage = fs.readFileSync(path.join(ROOT, 'src/cli/common.ts'), 'utf8');
    assert.ok(usage.includes('[--num-ctx N]'), 'docs-rag ask has --num-ctx');
    assert.deepEqual(unknownSettings(err.message), []);
  });

  it('no engine or CLI message names a docsRag.* setting that package.json does not contribute', () => {
    const found: string[] = [];
    const walk = (dir: string): void => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (p.endsWith('.ts')) for (const s of unknownSettings(fs.readFileSync(p, 'utf8'))) found.push(`${path.relative(ROOT, p)}: ${s}`);
      }
    };
    walk(path.join(ROOT, 'src/rag'));
    walk(path.join(ROOT, 'src/cli'));
    assert.deepEqual(found, []);
  });
});
