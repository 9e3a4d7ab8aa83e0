// The @docs chat participant: answers through the test language model (vendor "copilot") with [n] citations as
// inline anchors and references whose ranges are the cited passages; /search lists passages; no index → a Reindex
// button. Also runs in the real Chat view (workbench.action.chat.open) and takes the chat-answer.png screenshot.
import * as assert from 'node:assert/strict';
import * as os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { createChatHandler, type DocsChatResult } from '../../../src/views/chatParticipant';
import { DocsService } from '../../../src/views/docsService';
import { EngineHost } from '../../../src/views/engineHost';
import { ExtractedTextProvider } from '../../../src/views/extractProvider';
import { Locator } from '../../../src/views/locations';
import { chatText, driverAvailable, evaluate, screenshot, scrollChatToLastResponse } from '../runner/driverClient';
import { api, fileUri, flat, folder, rangeText, recordingStream, sameRange, textAt, waitUntil, type Recorded } from './helpers';
import { testLog } from './testLog';


async function testModel(): Promise<vscode.LanguageModelChat> {
  const models = await vscode.lm.selectChatModels({ vendor: 'copilot' });
  assert.ok(models.length > 0, 'the test language model (vendor copilot) is installed');
  return models[0];
}

function request(prompt: string, model: vscode.LanguageModelChat, command?: string): vscode.ChatRequest {
  return { prompt, command, model, references: [], toolReferences: [], toolInvocationToken: undefined } as unknown as vscode.ChatRequest;
}

const context = { history: [] } as unknown as vscode.ChatContext;
const QUESTION = 'Wie viele Arbeitstage Urlaub hat eine Vollzeitkraft?';

describe('@docs chat participant', () => {
  before(async () => {
    await (await api()).host.idle();
  });

  it('answers with [n] anchors whose ranges are the cited passages, and lists them as references', async () => {
    const a = await api();
    const handler = createChatHandler(a.service, testLog());
    const { stream, parts } = recordingStream();
    const cts = new vscode.CancellationTokenSource();
    const result = (await handler(request(QUESTION, await testModel()), context, stream, cts.token)) as DocsChatResult;
    assert.equal(result.errorDetails, undefined, result.errorDetails?.message);
    const anchors = parts.filter((p): p is Extract<Recorded, { kind: 'anchor' }> => p.kind === 'anchor');
    const refs = parts.filter((p): p is Extract<Recorded, { kind: 'reference' }> => p.kind === 'reference');
    assert.ok(anchors.length > 0, 'inline citation anchors');
    assert.ok(refs.length > 0, 'references');
    assert.equal(result.metadata.citations, refs.length);
    assert.ok(anchors.some((an) => an.location.uri.path.endsWith('/docs/urlaub.md')), 'a citation into docs/urlaub.md');
    // The test model quotes the first sentence of source n and appends [n]: the text before each anchor must be
    // inside the range the anchor opens (file lines, or the extracted text of a DOCX/PDF).
    let sentence = '';
    for (const p of parts) {
      if (p.kind === 'markdown') sentence += p.text;
      if (p.kind !== 'anchor') continue;
      const quoted = flat(sentence).replace(/…$/, '');
      sentence = '';
      assert.match(p.title ?? '', /^\[\d+\] /);
      assert.ok(quoted.length > 10, `a sentence precedes ${p.title}`);
      // The file's lines are Markdown source; a passage's text (what the model quotes) has no inline code marks.
      const cited = flat(await textAt(p.location)).replace(/`/g, '');
      assert.ok(cited.includes(quoted), `"${quoted}" is inside ${p.title} (${rangeText(p.location.range)}): "${cited}"`);
    }
    // Every anchor is one of the references (same file and range).
    for (const an of anchors) {
      assert.ok(refs.some((r) => r.location.uri.toString() === an.location.uri.toString() && sameRange(r.location.range, an.location.range)), `anchor ${an.title} is referenced`);
    }
    assert.ok(parts.some((p) => p.kind === 'progress'), 'progress names the stages');
  });

  it('asks the chat model to translate the question first, says so in the progress, and cites the other-language document', async () => {
    const a = await api();
    const english = 'How many working days of leave does a full-time employee get?';
    await vscode.commands.executeCommand('docsRagTestLm.clearRequests');
    await vscode.commands.executeCommand('docsRagTestLm.setTranslations', { [english]: QUESTION });
    try {
      const { stream, parts } = recordingStream();
      const cts = new vscode.CancellationTokenSource();
      const result = (await createChatHandler(a.service, testLog())(request(english, await testModel()), context, stream, cts.token)) as DocsChatResult;
      assert.equal(result.errorDetails, undefined, result.errorDetails?.message);
      const requests = (await vscode.commands.executeCommand<{ messages: { role: string; text: string }[]; reply: string }[]>('docsRagTestLm.getRequests')) ?? [];
      const translation = requests.find((r) => r.messages.some((m) => /translate search questions/.test(m.text)));
      assert.ok(translation, 'a translation request reached request.model');
      assert.equal(translation.messages[translation.messages.length - 1].text, english, 'the question verbatim, no document text');
      assert.equal(translation.reply, QUESTION);
      const progress = parts.filter((p): p is Extract<Recorded, { kind: 'progress' }> => p.kind === 'progress').map((p) => p.text);
      assert.ok(progress.some((t) => /^Translating the question with Docs RAG Test Model/.test(t)), progress.join(' | '));
      const anchors = parts.filter((p): p is Extract<Recorded, { kind: 'anchor' }> => p.kind === 'anchor');
      assert.ok(anchors.some((an) => an.location.uri.path.endsWith('/docs/urlaub.md')), 'the German document is cited');
    } finally {
      await vscode.commands.executeCommand('docsRagTestLm.setTranslations', undefined);
    }
  });

  it('/search lists passages with anchors and shows document markup as text', async () => {
    const a = await api();
    const handler = createChatHandler(a.service, testLog());
    const { stream, parts } = recordingStream();
    const cts = new vscode.CancellationTokenSource();
    const result = (await handler(request('xylophone-sentinel', await testModel(), 'search'), context, stream, cts.token)) as DocsChatResult;
    assert.equal(result.errorDetails, undefined);
    const anchors = parts.filter((p) => p.kind === 'anchor') as Extract<Recorded, { kind: 'anchor' }>[];
    assert.ok(anchors.some((an) => an.location.uri.path.endsWith('/payloads.md')), 'payloads.md is found');
    const markdown = parts.filter((p) => p.kind === 'markdown').map((p) => (p as { text: string }).text).join('');
    assert.doesNotMatch(markdown, /(^|[^\\])<(script|img|iframe|b)\b/i, 'markup from documents is escaped');
    assert.ok(!parts.some((p) => p.kind === 'progress' && /Writing the answer/.test(p.text)), '/search does not generate an answer');
  });

  it('honours cancellation: a cancelled request ends without an answer or an error', async () => {
    const a = await api();
    const { stream, parts } = recordingStream();
    const cts = new vscode.CancellationTokenSource();
    const pending = createChatHandler(a.service, testLog())(request(QUESTION, await testModel()), context, stream, cts.token);
    cts.cancel();
    const result = (await pending) as DocsChatResult;
    assert.equal(result.errorDetails, undefined);
    assert.equal(parts.filter((p) => p.kind === 'reference').length, 0, 'no references after cancellation');
  });

  it('uses the chat model for query expansion and reranking when the settings ask for it', async () => {
    const a = await api();
    const config = vscode.workspace.getConfiguration('docsRag');
    await vscode.commands.executeCommand('docsRagTestLm.clearRequests');
    await config.update('search.rerank', true, vscode.ConfigurationTarget.Workspace);
    // The deprecated name of docsRag.search.queryExpansion: still honoured (test/vscode/suite/settings.test.ts covers both names).
    await config.update('search.expansion', true, vscode.ConfigurationTarget.Workspace);
    try {
      const { stream, parts } = recordingStream();
      const cts = new vscode.CancellationTokenSource();
      const result = (await createChatHandler(a.service, testLog())(request('Resturlaub übertragen', await testModel(), 'search'), context, stream, cts.token)) as DocsChatResult;
      assert.equal(result.errorDetails, undefined);
      assert.ok(parts.some((p) => p.kind === 'anchor'), 'results are listed');
      const requests = (await vscode.commands.executeCommand<{ messages: { text: string }[] }[]>('docsRagTestLm.getRequests')) ?? [];
      const prompts = requests.map((r) => r.messages.map((m) => m.text).join('\n'));
      assert.ok(prompts.some((p) => /Return \{"scores"/.test(p)), 'a rerank request reached request.model');
      assert.ok(prompts.some((p) => /different search queries/.test(p)), 'a multi-query expansion request reached request.model');
    } finally {
      await config.update('search.rerank', undefined, vscode.ConfigurationTarget.Workspace);
      await config.update('search.expansion', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('/status reports the index and offers a Reindex button', async () => {
    const a = await api();
    const { stream, parts } = recordingStream();
    const cts = new vscode.CancellationTokenSource();
    const result = (await createChatHandler(a.service, testLog())(request('', await testModel(), 'status'), context, stream, cts.token)) as DocsChatResult;
    assert.equal(result.errorDetails, undefined);
    const markdown = parts.filter((p) => p.kind === 'markdown').map((p) => (p as { text: string }).text).join('');
    assert.match(markdown, /Passages: [1-9]\d*/);
    assert.match(markdown, /Embedder: builtin/);
    assert.ok(parts.some((p) => p.kind === 'button' && p.command.command === 'docsRag.reindex'));
  });

  it('with no index yet offers a Reindex button', async () => {
    const log = testLog();
    const tmp = vscode.Uri.file(path.join(os.tmpdir(), `docs-rag-empty-${Date.now()}`));
    const host = new EngineHost(tmp, log);
    try {
      const service = new DocsService(host, new Locator(new ExtractedTextProvider(host)), log);
      const { stream, parts } = recordingStream();
      const cts = new vscode.CancellationTokenSource();
      await createChatHandler(service, log)(request('Was steht im Build-Guide?', await testModel()), context, stream, cts.token);
      const button = parts.find((p) => p.kind === 'button') as Extract<Recorded, { kind: 'button' }> | undefined;
      assert.equal(button?.command.command, 'docsRag.reindex');
    } finally {
      await host.reset();
    }
  });

  it('answers in the real Chat view (screenshot chat-answer.png)', async () => {
    assert.ok(driverAvailable(), 'run through scripts/vscode/run-tests.sh, which starts the browser driver');
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@docs ${QUESTION}` });
    const text = await waitUntil(
      'the finished @docs answer in the Chat view (with its follow-ups)',
      async () => {
        const t = await chatText();
        return /urlaub\.md:\d+/.test(t) && /Used \d+ references?/.test(t) && /Show the matching passages/.test(t) ? t : '';
      },
      90_000,
      500,
    );
    // Show the start of the answer (the first citations) rather than its end.
    await scrollChatToLastResponse();
    await screenshot('chat-answer');
    assert.match(text, /Urlaub/);
  });
});

// A document that plants a command link, a remote image, an autolink and a citation marker matching no source; the test
// model repeats its first sentence. None of it may render as a link or image, and [97] must never be shown.
describe('@docs renders untrusted answer text safely', () => {
  // Plain text keeps the link syntax verbatim in the passage (the Markdown loader would reduce a link to its text).
  const rel = 'docs/zebrafink.txt';
  const QUESTION_ZF = 'Was steht im Zebrafink-Protokoll 5150?';
  const PLANTED =
    'Das Zebrafink-Protokoll 5150 [97] steht unter [Klick hier](command:workbench.action.quit) und ![Pixel](https://evil.example/p.png) sowie <javascript:alert(1)> bereit.';

  before(async () => {
    const a = await api();
    await vscode.workspace.fs.writeFile(fileUri(rel), Buffer.from(`${PLANTED}\nDer Rest des Dokuments ist unauffällig.\n`));
    await a.host.index(folder(), { paths: [rel] });
  });

  after(async () => {
    const a = await api();
    await vscode.workspace.fs.delete(fileUri(rel));
    await a.host.index(folder(), { paths: [rel] });
  });

  it('streams no link, image, HTML or unknown [n] marker, only untrusted Markdown', async () => {
    const a = await api();
    const { stream, parts } = recordingStream();
    const cts = new vscode.CancellationTokenSource();
    const result = (await createChatHandler(a.service, testLog())(request(QUESTION_ZF, await testModel()), context, stream, cts.token)) as DocsChatResult;
    assert.equal(result.errorDetails, undefined, result.errorDetails?.message);
    assert.equal(result.metadata.mode, 'generative');
    // The answer's text (the notes block after it quotes the removed marker on purpose: "Removed citations … [97]").
    const markdown = parts.filter((p): p is Extract<Recorded, { kind: 'markdown' }> => p.kind === 'markdown' && !p.text.startsWith('\n\n> '));
    const text = markdown.map((p) => p.text).join('');
    assert.match(text, /Zebrafink-Protokoll 5150/, 'the planted sentence is part of the answer');
    assert.ok(parts.some((p) => p.kind === 'anchor' && p.location.uri.path.endsWith(`/${rel}`)), 'the sentence is cited');
    // Outside backslash escapes, no [ ] < > survives: nothing can open a link, an image, an autolink or HTML.
    assert.doesNotMatch(text.replace(/\\./g, ''), /[[\]<>]/, text);
    assert.match(text, /Klick hier/);
    assert.doesNotMatch(text, /97/, 'the marker that matches no source is never shown');
    for (const p of markdown) {
      if (!/Zebrafink|command:|evil/.test(p.text)) continue;
      assert.equal(p.trusted, false, `untrusted Markdown: ${p.text}`);
      assert.equal(p.html, false, `no HTML: ${p.text}`);
    }
  });

  it('the real Chat view shows no command link, remote image or [97] for the planted text', async () => {
    assert.ok(driverAvailable(), 'run through scripts/vscode/run-tests.sh, which starts the browser driver');
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@docs ${QUESTION_ZF}` });
    const html = await waitUntil(
      'the finished @docs answer about the Zebrafink-Protokoll in the Chat view',
      async () => {
        const h = await evaluate<string>(
          "(() => { const r = Array.from(document.querySelectorAll('.interactive-response')).pop(); return r ? r.innerHTML : ''; })()",
        );
        const t = await evaluate<string>(
          "(() => { const r = Array.from(document.querySelectorAll('.interactive-response')).pop(); return r ? r.textContent || '' : ''; })()",
        );
        return /Zebrafink-Protokoll 5150/.test(t) && /zebrafink\.txt/.test(t) && /Used \d+ references?/.test(t + (await evaluate<string>('document.body.innerText'))) ? `${h}\n---\n${t}` : '';
      },
      90_000,
      500,
    );
    await screenshot('chat-untrusted-links');
    const [inner, textContent] = html.split('\n---\n');
    // VS Code's Markdown renderer keeps a link's target in data-href (href may be removed): look at both, and at the
    // link texts, so a planted link counts whatever the renderer did with its target.
    const links = await evaluate<string[][]>(
      "(() => { const r = Array.from(document.querySelectorAll('.interactive-response')).pop(); return r ? Array.from(r.querySelectorAll('a, img')).map((e) => [e.tagName, e.getAttribute('href') || '', e.getAttribute('data-href') || '', e.getAttribute('src') || '', e.textContent || '']) : []; })()",
    );
    for (const [tag, href, dataHref, src, label] of links) {
      const what = `${tag} ${JSON.stringify([href, dataHref, src, label])} in ${JSON.stringify(links)}`;
      assert.doesNotMatch(`${href} ${dataHref} ${src}`, /command:|javascript:/i, `no command: or javascript: target: ${what}`);
      if (tag === 'IMG') assert.doesNotMatch(src, /evil\.example/, `no remote image: ${what}`);
      assert.doesNotMatch(label, /^(Klick hier|Pixel)$/, `the planted link text is not a link: ${what}`);
      // A remote URL may stay clickable only where it is shown as itself (the document's text), never behind other text.
      const target = href || dataHref;
      if (tag === 'A' && /evil\.example/.test(target)) assert.equal(label.trim(), target, `a remote link shows its own URL: ${what}`);
    }
    assert.doesNotMatch(inner, /<img[^>]+evil\.example/i, 'no remote image');
    assert.doesNotMatch(textContent, /5150\s*\\?\[97/, 'no citation marker without a source in the answer');
    assert.match(textContent, /Klick hier\]\(command:workbench\.action\.quit\)/, 'the planted link shows as text');
  });
});
