// The fake Ollama server, exercised through the real `ollama` npm client over HTTP.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { Ollama } from 'ollama';
import { startFakeOllama, type FakeOllama } from '../helpers/ollamaServer';

describe('fake Ollama server (real ollama client)', () => {
  let server: FakeOllama | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('lists installed models, version and show with context length', async () => {
    server = await startFakeOllama({ models: ['nomic-embed-text', 'llama3.2:3b'], contextLength: 4096 });
    const client = new Ollama({ host: server.url });
    const list = await client.list();
    assert.deepEqual(
      list.models.map((m) => m.name),
      ['nomic-embed-text:latest', 'llama3.2:3b'],
    );
    assert.equal((await client.version()).version, '0.6.4');
    const show = await client.show({ model: 'llama3.2:3b' });
    assert.equal((show.model_info as unknown as Record<string, unknown>)['llama.context_length'], 4096);
    await assert.rejects(client.show({ model: 'missing' }), (e: any) => e.status_code === 404 && /not found/.test(e.error));
  });

  it('embeds a string and a batch with deterministic normalised vectors, and the legacy endpoint', async () => {
    server = await startFakeOllama();
    const client = new Ollama({ host: server.url });
    const one = await client.embed({ model: 'nomic-embed-text', input: 'Kündigung des Mietvertrags' });
    assert.equal(one.embeddings.length, 1);
    assert.equal(one.embeddings[0].length, 64);
    const norm = Math.sqrt(one.embeddings[0].reduce((s, x) => s + x * x, 0));
    assert.ok(Math.abs(norm - 1) < 1e-9);
    const batch = await client.embed({ model: 'nomic-embed-text', input: ['a b c', 'Kündigung des Mietvertrags'] });
    assert.equal(batch.embeddings.length, 2);
    assert.deepEqual(batch.embeddings[1], one.embeddings[0]);
    assert.notDeepEqual(batch.embeddings[0], batch.embeddings[1]);
    const legacy = await client.embeddings({ model: 'nomic-embed-text', prompt: 'a b c' });
    assert.equal(legacy.embedding.length, 64);
    assert.deepEqual(
      server.requests.map((r) => r.path),
      ['/api/embed', '/api/embed', '/api/embeddings'],
    );
    assert.deepEqual(server.requests[1].body.input, ['a b c', 'Kündigung des Mietvertrags']);
  });

  it('uses a custom embed function', async () => {
    server = await startFakeOllama({ embed: (t) => [t.length, 0, 0] });
    const client = new Ollama({ host: server.url });
    const r = await client.embed({ model: 'bge-m3', input: ['abc'] });
    assert.deepEqual(r.embeddings, [[1, 0, 0]]);
  });

  it('answers 404 like Ollama for a model that is not installed', async () => {
    server = await startFakeOllama({ models: ['llama3.2'] });
    const client = new Ollama({ host: server.url });
    await assert.rejects(client.embed({ model: 'nomic-embed-text', input: 'x' }), (e: any) => {
      assert.equal(e.status_code, 404);
      assert.equal(e.message, 'model "nomic-embed-text" not found, try pulling it first');
      return true;
    });
    await assert.rejects(client.chat({ model: 'other', messages: [{ role: 'user', content: 'hi' }] }), (e: any) => e.status_code === 404);
  });

  it('streams chat replies in several NDJSON chunks ending with done:true', async () => {
    server = await startFakeOllama({ chat: (req) => `Answer to ${req.messages.at(-1)?.content} with citation [1].` });
    const client = new Ollama({ host: server.url });
    const stream = await client.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'question' }], stream: true });
    const parts: string[] = [];
    let final: any;
    for await (const chunk of stream) {
      if (chunk.done) final = chunk;
      else parts.push(chunk.message.content);
    }
    assert.ok(parts.length >= 5, `expected several chunks, got ${parts.length}`);
    assert.equal(parts.join(''), 'Answer to question with citation [1].');
    assert.equal(final.done_reason, 'stop');
    assert.equal(final.eval_count, parts.length);
    assert.ok(final.prompt_eval_count >= 1);
  });

  it('streams by default when the client sends no stream flag (raw HTTP)', async () => {
    server = await startFakeOllama({ chat: () => 'one two three' });
    const res = await fetch(`${server.url}/api/chat`, {
      method: 'POST',
      body: JSON.stringify({ model: 'llama3.2', messages: [{ role: 'user', content: 'q' }] }),
    });
    assert.equal(res.headers.get('content-type'), 'application/x-ndjson');
    const lines = (await res.text()).trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.length, 4);
    assert.deepEqual(
      lines.map((l) => l.done),
      [false, false, false, true],
    );
  });

  it('returns one object when stream is false, with tool calls', async () => {
    server = await startFakeOllama({
      chat: (req) =>
        req.tools ? { content: '', tool_calls: [{ function: { name: 'search_docs', arguments: { query: 'Kündigung' } } }] } : 'plain',
    });
    const client = new Ollama({ host: server.url });
    const tools = [
      {
        type: 'function',
        function: { name: 'search_docs', description: 'search', parameters: { type: 'object', properties: { query: { type: 'string' } } } },
      },
    ];
    const r = await client.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'q' }], tools, stream: false });
    assert.equal(r.done, true);
    assert.equal(r.message.tool_calls?.[0].function.name, 'search_docs');
    assert.deepEqual(r.message.tool_calls?.[0].function.arguments, { query: 'Kündigung' });
    const plain = await client.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'q' }], stream: false });
    assert.equal(plain.message.content, 'plain');
    assert.equal(server.requests[0].body.tools[0].function.name, 'search_docs');
  });

  it('streams tool calls in a chunk before done', async () => {
    server = await startFakeOllama({ chat: () => ({ tool_calls: [{ function: { name: 'f', arguments: { a: 1 } } }] }) });
    const client = new Ollama({ host: server.url });
    const stream = await client.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'q' }], tools: [], stream: true });
    const calls: unknown[] = [];
    for await (const c of stream) if (c.message.tool_calls) calls.push(...c.message.tool_calls);
    assert.equal(calls.length, 1);
  });

  it('refuses tools for models without tool support when toolModels is set', async () => {
    server = await startFakeOllama({ toolModels: ['qwen2.5:7b'] });
    const client = new Ollama({ host: server.url });
    const tools = [{ type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object', properties: {} } } }];
    await assert.rejects(
      client.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'q' }], tools, stream: false }),
      (e: any) => e.status_code === 400 && /does not support tools/.test(e.message),
    );
    const ok = await client.chat({ model: 'qwen2.5:7b', messages: [{ role: 'user', content: 'q' }], tools, stream: false });
    assert.equal(ok.done, true);
  });

  it('generates streamed and non-streamed text', async () => {
    server = await startFakeOllama({ generate: (r) => `${r.system ?? ''}|${r.prompt}` });
    const client = new Ollama({ host: server.url });
    const r = await client.generate({ model: 'llama3.2', prompt: 'hello world', system: 'sys', stream: false });
    assert.equal(r.response, 'sys|hello world');
    const s = await client.generate({ model: 'llama3.2', prompt: 'a b c d', stream: true });
    let text = '';
    let n = 0;
    for await (const c of s) {
      text += c.response;
      n++;
    }
    assert.equal(text, '|a b c d');
    assert.ok(n >= 3);
  });

  it('injects failures per path with Ollama error bodies', async () => {
    server = await startFakeOllama({ fail: (p) => (p === '/api/chat' ? { status: 500, error: 'llama runner process has terminated' } : undefined) });
    const client = new Ollama({ host: server.url });
    await assert.rejects(
      client.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'q' }] }),
      (e: any) => e.status_code === 500 && e.message === 'llama runner process has terminated',
    );
    assert.equal((await client.embed({ model: 'bge-m3', input: 'x' })).embeddings.length, 1);
  });

  it('accepts an async chat function and injects an error line mid-stream', async () => {
    server = await startFakeOllama({
      chat: async () => {
        await new Promise((r) => setTimeout(r, 20));
        return 'alpha beta gamma delta';
      },
      streamError: (p) => (p === '/api/chat' ? 'an error was encountered while running the model' : undefined),
    });
    const client = new Ollama({ host: server.url });
    const stream = await client.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'q' }], stream: true });
    const got: string[] = [];
    await assert.rejects(async () => {
      for await (const c of stream) got.push(c.message.content);
    }, /an error was encountered while running the model/);
    assert.deepEqual(got, ['alpha ']);
    const plain = await client.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'q' }], stream: false });
    assert.equal(plain.message.content, 'alpha beta gamma delta');
  });

  it('answers 400 for a missing model field and bad JSON', async () => {
    server = await startFakeOllama();
    const r1 = await fetch(`${server.url}/api/embed`, { method: 'POST', body: JSON.stringify({ input: 'x' }) });
    assert.equal(r1.status, 400);
    assert.deepEqual(await r1.json(), { error: 'model is required' });
    const r2 = await fetch(`${server.url}/api/chat`, { method: 'POST', body: '{not json' });
    assert.equal(r2.status, 400);
    assert.match((await r2.json()).error, /invalid request body/);
  });

  it('delays responses (slow model) and lets a client abort mid-stream', async () => {
    server = await startFakeOllama({ delayMs: 150, chunkDelayMs: 50, chat: () => 'w1 w2 w3 w4 w5 w6 w7 w8 w9 w10' });
    const client = new Ollama({ host: server.url });
    const t0 = Date.now();
    await client.embed({ model: 'bge-m3', input: 'x' });
    assert.ok(Date.now() - t0 >= 140);
    const stream = await client.chat({ model: 'llama3.2', messages: [{ role: 'user', content: 'q' }], stream: true });
    const got: string[] = [];
    await assert.rejects(async () => {
      for await (const c of stream) {
        got.push(c.message.content);
        if (got.length === 2) stream.abort();
      }
    }, /abort/i);
    assert.equal(got.length, 2);
  });

  it('runs as a separate process and prints its URL', async function () {
    const main = path.resolve(__dirname, '../helpers/ollamaServerMain.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', main, '--models', 'bge-m3'], { stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const line = out.split('\n')[0];
          if (out.includes('\n')) resolve(line.trim());
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const client = new Ollama({ host: url });
      assert.deepEqual(
        (await client.list()).models.map((m) => m.name),
        ['bge-m3:latest'],
      );
    } finally {
      child.kill('SIGTERM');
    }
  });
});
