// Settings that switch to Ollama, against the Ollama-API test server (test/helpers/ollamaServer.ts) through the real
// `ollama` client: docsRag.chatModel = "ollama" answers in the Docs view with citations; a host that is down gives
// the extractive answer with the fix; docsRag.embedder = "ollama" re-embeds the index with the configured model.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { startFakeOllama, type FakeChatRequest, type FakeOllama } from '../../helpers/ollamaServer';
import type { HostMessage } from '../../../src/views/webviewProtocol';
import { createChatHandler, type DocsChatResult } from '../../../src/views/chatParticipant';
import { api, folder, recordingStream, waitUntil } from './helpers';
import { testLog } from './testLog';

type AnswerEnd = Extract<HostMessage, { type: 'answerEnd' }>;
type AnswerStart = Extract<HostMessage, { type: 'answerStart' }>;

/** Replies with the first sentence of source 1 followed by [1]. */
function citeFirstSource(req: FakeChatRequest): string {
  // Index enrichment (contextual retrieval): a context naming a word found in no document.
  if (/situates a passage/.test(req.messages[0]?.content ?? '')) return 'Zusammenhang: Quokkaregel';
  const user = [...req.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const m = /<source\b[^>]*\bn="1"[^>]*>([\s\S]*?)<\/source>/.exec(user);
  if (!m) return 'Die Quellen enthalten dazu nichts.';
  const body = m[1].replace(/\s+/g, ' ').trim();
  const end = /[.!?](?=\s|$)/.exec(body);
  return `${end ? body.slice(0, end.index + 1) : body} [1]`;
}

async function askInView(question: string): Promise<{ start: AnswerStart; end: AnswerEnd }> {
  const a = await api();
  let start: AnswerStart | undefined;
  const done = new Promise<AnswerEnd>((resolve, reject) => {
    const sub = a.docsView.onDidPost((m) => {
      if (m.type === 'answerStart') start = m;
      if (m.type === 'answerEnd') {
        sub.dispose();
        resolve(m);
      } else if (m.type === 'error') {
        sub.dispose();
        reject(new Error(m.message));
      }
    });
  });
  await vscode.commands.executeCommand('docsRag.ask', question);
  const end = await done;
  assert.ok(start, 'the answer started');
  return { start, end };
}

describe('Ollama settings', () => {
  let fake: FakeOllama;
  const config = () => vscode.workspace.getConfiguration('docsRag');

  before(async () => {
    fake = await startFakeOllama({ chat: citeFirstSource });
    await (await api()).host.idle();
  });

  after(async () => {
    for (const key of ['chatModel', 'ollama.host', 'ollama.chatModel', 'embedder', 'ollama.embedModel', 'enrich.contextual']) {
      await config().update(key, undefined, vscode.ConfigurationTarget.Workspace);
    }
    await fake.close();
  });

  it('docsRag.chatModel "ollama" answers in the Docs view through the Ollama API', async () => {
    await config().update('ollama.host', fake.url, vscode.ConfigurationTarget.Workspace);
    await config().update('ollama.chatModel', 'qwen2.5:7b', vscode.ConfigurationTarget.Workspace);
    await config().update('chatModel', 'ollama', vscode.ConfigurationTarget.Workspace);
    await (await api()).host.idle();
    const { start, end } = await askInView('Bis wann kann Resturlaub übertragen werden?');
    assert.equal(start.mode, 'ollama:qwen2.5:7b');
    assert.equal(end.mode, 'generative');
    assert.ok(fake.requests.some((r) => r.path === '/api/chat' && r.body.model === 'qwen2.5:7b'), 'the chat went to Ollama');
    assert.equal(end.citations.length, 1);
    assert.match(end.answer, /\[1\]$/);
  });

  it('@docs answers through Ollama when docsRag.chatModel is "ollama", not through the model picked in the chat', async () => {
    const a = await api();
    await config().update('ollama.host', fake.url, vscode.ConfigurationTarget.Workspace);
    await config().update('ollama.chatModel', 'qwen2.5:7b', vscode.ConfigurationTarget.Workspace);
    await config().update('chatModel', 'ollama', vscode.ConfigurationTarget.Workspace);
    await a.host.idle();
    const models = await vscode.lm.selectChatModels({ vendor: 'copilot' });
    assert.ok(models.length > 0, 'the test language model (vendor copilot) is installed');
    await vscode.commands.executeCommand('docsRagTestLm.clearRequests');
    const seen = fake.requests.length;
    const { stream, parts } = recordingStream();
    const request = { prompt: 'Bis wann kann Resturlaub übertragen werden?', model: models[0], references: [], toolReferences: [], toolInvocationToken: undefined } as unknown as vscode.ChatRequest;
    const cts = new vscode.CancellationTokenSource();
    const result = (await createChatHandler(a.service, testLog())(request, { history: [] } as unknown as vscode.ChatContext, stream, cts.token)) as DocsChatResult;
    assert.equal(result.errorDetails, undefined, result.errorDetails?.message);
    assert.equal(result.metadata.mode, 'generative');
    assert.ok(fake.requests.slice(seen).some((r) => r.path === '/api/chat' && r.body.model === 'qwen2.5:7b'), 'the answer came from Ollama');
    const lmRequests = (await vscode.commands.executeCommand<unknown[]>('docsRagTestLm.getRequests')) ?? [];
    assert.equal(lmRequests.length, 0, 'the model picked in the chat was not asked');
    const progress = parts.flatMap((p) => (p.kind === 'progress' ? [p.text] : []));
    assert.ok(progress.some((p) => /ollama:qwen2\.5:7b/.test(p)), `progress names the Ollama model: ${progress.join(' | ')}`);
    assert.equal(parts.filter((p) => p.kind === 'anchor').length, 1, 'the Ollama answer cites [1]');
    assert.match(parts.flatMap((p) => (p.kind === 'markdown' ? [p.text] : [])).join(''), /\S/);
  });

  it('an Ollama host that is down gives the extractive answer and says how to fix it', async () => {
    await config().update('ollama.host', 'http://127.0.0.1:9', vscode.ConfigurationTarget.Workspace);
    await (await api()).host.idle();
    const { start, end } = await askInView('Bis wann kann Resturlaub übertragen werden?');
    assert.equal(start.mode, 'extractive');
    assert.equal(end.mode, 'extractive');
    assert.ok(end.citations.length > 0);
    assert.ok(end.notes.some((n) => /ollama/i.test(n)), `notes: ${end.notes.join(' | ')}`);
  });

  it('docsRag.enrich.contextual asks the Ollama chat model for passage contexts while indexing; they become searchable', async () => {
    const a = await api();
    const contextHits = async () => (await (await a.host.engine(folder())).store.fullTextSearch('Quokkaregel', { k: 5 })).length;
    await config().update('ollama.host', fake.url, vscode.ConfigurationTarget.Workspace);
    await config().update('ollama.chatModel', 'llama3.2', vscode.ConfigurationTarget.Workspace);
    await config().update('enrich.contextual', true, vscode.ConfigurationTarget.Workspace);
    await waitUntil('passages indexed with their model-written context', async () => {
      await a.host.idle();
      return (await contextHits()) > 0;
    }, 90_000, 1000);
    assert.ok(fake.requests.some((r) => r.path === '/api/chat' && r.body.model === 'llama3.2' && /situates a passage/.test(JSON.stringify(r.body))));
    await config().update('enrich.contextual', undefined, vscode.ConfigurationTarget.Workspace);
    await waitUntil('plain passages again once enrichment is off', async () => {
      await a.host.idle();
      return (await contextHits()) === 0;
    }, 90_000, 1000);
  });

  it('docsRag.embedder "ollama" re-embeds the index with docsRag.ollama.embedModel', async () => {
    const a = await api();
    await config().update('ollama.host', fake.url, vscode.ConfigurationTarget.Workspace);
    await config().update('ollama.embedModel', 'bge-m3', vscode.ConfigurationTarget.Workspace);
    await config().update('embedder', 'ollama', vscode.ConfigurationTarget.Workspace);
    await waitUntil('the index re-embedded with ollama:bge-m3', async () => {
      await a.host.idle();
      const engine = await a.host.engine(folder());
      const meta = engine.store.meta();
      return meta?.embedder.id === 'ollama' && meta.embedder.model === 'bge-m3' && (await engine.store.countPassages()) > 0;
    }, 90_000, 1000);
    assert.ok(fake.requests.some((r) => r.path === '/api/embed' && r.body.model === 'bge-m3'));
    const { hits } = await a.service.search('Resturlaub übertragen', { k: 5 });
    assert.ok(hits.length > 0, 'search works on the re-embedded index');
    await config().update('embedder', undefined, vscode.ConfigurationTarget.Workspace);
    await waitUntil('back to the builtin embedder', async () => {
      await a.host.idle();
      const meta = (await a.host.engine(folder())).store.meta();
      return meta?.embedder.id === 'builtin';
    }, 90_000, 1000);
  });
});
