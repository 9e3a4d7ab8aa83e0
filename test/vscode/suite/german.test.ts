// The German display language in the real workbench. Runs only in the runner's German pass (stage "de": VS Code
// started with --locale de and the test language pack test/vscode/langpack-de installed, which makes German an
// installed display language; VS Code's own strings stay English because that pack translates none of them).
// The extension's manifest strings must come from package.nls.de.json and its runtime strings (the Docs view's page
// and script texts, @docs progress and follow-ups) from l10n/bundle.l10n.de.json; the checks compare against the
// English texts too, so the suite fails when the German files are not used. Screenshots: docs-view-de.png and
// chat-answer-de.png.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { createChatHandler, type DocsChatResult } from '../../../src/views/chatParticipant';
import { chatText, driverAvailable, evaluate, fill, press, screenshot, scrollChatToLastResponse, waitFor } from '../runner/driverClient';
import type { FrameTarget } from '../runner/protocol';
import { api, EXTENSION_ID, recordingStream, searchFor, waitUntil } from './helpers';
import { testLog } from './testLog';

const view: FrameTarget = { frame: 'webview', webviewUrlIncludes: 'purpose=webviewView' };
const QUESTION = 'Wie viele Arbeitstage Urlaub hat eine Vollzeitkraft?';

function readJson(rel: string): Record<string, string> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is installed`);
  return JSON.parse(fs.readFileSync(path.join(ext.extensionPath, rel), 'utf8')) as Record<string, string>;
}

/** The German of an English runtime string (l10n/bundle.l10n.de.json); it must differ from the English. */
function de(english: string): string {
  const german = readJson('l10n/bundle.l10n.de.json')[english];
  assert.ok(german, `l10n/bundle.l10n.de.json translates "${english}"`);
  assert.notEqual(german, english);
  return german;
}

/** The English and German of a manifest key (package.nls.json / package.nls.de.json); they must differ. */
function nls(key: string): { en: string; de: string } {
  const en = readJson('package.nls.json')[key];
  const german = readJson('package.nls.de.json')[key];
  assert.ok(en && german, `package.nls.json and package.nls.de.json define ${key}`);
  assert.notEqual(german, en, key);
  return { en, de: german };
}

/** A regular expression for a translated template whose {n} placeholders are all numbers. */
function template(text: string): RegExp {
  return new RegExp(text.split(/\{\d+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\d+'));
}

describe('German display language (--locale de)', () => {
  before(async () => {
    const a = await api();
    await a.startup;
    await a.host.idle();
    // The start-up run indexed the fixture workspace; the German document must be searchable before @docs is asked.
    await searchFor(a, 'Urlaub Vollzeitkraft', 'docs/urlaub.md');
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('VS Code runs in German and reads the manifest strings from package.nls.de.json', () => {
    assert.equal(vscode.env.language, 'de', 'vscode.env.language (the display language the extension host got)');
    const manifest = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as {
      contributes: { views: Record<string, { id: string; name: string }[]>; commands: { command: string; title: string | { value: string; original: string } }[] };
    };
    const viewName = nls('view.docsView.name');
    assert.equal(manifest.contributes.views.docsRag.find((v) => v.id === 'docsRag.docsView')?.name, viewName.de);
    const reindex = nls('command.reindex.title');
    // VS Code localises a command title into {value, original} (the English kept for the Command Palette's search).
    const title = manifest.contributes.commands.find((c) => c.command === 'docsRag.reindex')?.title;
    assert.deepEqual(typeof title === 'string' ? { value: title, original: reindex.en } : title, { value: reindex.de, original: reindex.en });
  });

  it('the Docs view shows its German labels (screenshot docs-view-de.png)', async () => {
    const a = await api();
    await vscode.commands.executeCommand('docsRag.docsView.focus');
    await a.docsView.whenReady();
    const texts = async (selector: string) => (await waitFor(selector, view)).map((t) => t.trim());
    assert.deepEqual(await texts('label[for="search-input"]'), [de('Search')]);
    assert.deepEqual(await texts('label[for="ask-input"]'), [de('Ask')]);
    assert.deepEqual(await texts('#reindex'), [de('Reindex')]);
    const placeholders = await evaluate<string[]>(
      "[document.getElementById('search-input').placeholder, document.getElementById('ask-input').placeholder]",
      view,
    );
    assert.deepEqual(placeholders, [de('Search the documents'), de('Ask a question about the documents')]);
    // The status line the host sends once the index is open: German counts, not "N documents, N passages indexed.".
    const status = await waitUntil('the German index status line', async () => {
      const t = (await waitFor('#status-text', view)).join(' ');
      return template(de('{0} documents, {1} passages indexed.')).test(t) ? t : '';
    }, 30_000, 500);
    assert.doesNotMatch(status, /documents|passages indexed/);
    // The view's title in the side bar comes from package.nls.de.json ("Docs" in English).
    const sidebar = await evaluate<string>("Array.from(document.querySelectorAll('.part.sidebar .title-label, .part.sidebar .pane-header .title')).map((e) => e.textContent || '').join(' | ')");
    assert.ok(sidebar.split(' | ').some((t) => t.trim().toLowerCase() === nls('view.docsView.name').de.toLowerCase()), `side bar titles: ${sidebar}`);
    // A search, so the screenshot shows German labels around real results.
    await fill('#search-input', 'Resturlaub übertragen', view);
    await press('Enter', { ...view, selector: '#search-input' });
    const labels = await waitFor('.result-open .result-label', { ...view, state: 'visible' });
    assert.ok(labels.some((l) => l.startsWith('docs/urlaub.md:')), `results: ${labels.join(', ')}`);
    // The texts the view's script builds (media/docsView.js, from <body data-strings>): the results heading, the
    // reference-graph titles and the buttons' accessible names.
    const heading = (await waitFor('.results-title', view)).join(' ');
    assert.equal(heading, de('{0} results for "{1}"').replace('{0}', String(labels.length)).replace('{1}', 'Resturlaub übertragen'));
    assert.doesNotMatch(heading, /results for/);
    const linkTitles = await waitFor('.result-links-title', view);
    assert.ok(linkTitles.length > 0 && linkTitles.every((t) => t === de('Links to') || t === de('Linked from')), linkTitles.join(', '));
    const ariaLabel = await evaluate<string>("document.querySelector('.result-open').getAttribute('aria-label')", view);
    assert.equal(ariaLabel, de('Open {0}').replace('{0}', labels[0]));
    await screenshot('docs-view-de');
  });

  it('@docs reports its progress in German', async () => {
    const a = await api();
    const [model] = await vscode.lm.selectChatModels({ vendor: 'copilot' });
    assert.ok(model, 'the test language model (vendor copilot) is installed');
    const { stream, parts } = recordingStream();
    const request = { prompt: QUESTION, command: undefined, model, references: [], toolReferences: [], toolInvocationToken: undefined } as unknown as vscode.ChatRequest;
    const cts = new vscode.CancellationTokenSource();
    const result = (await createChatHandler(a.service, testLog())(request, { history: [] } as unknown as vscode.ChatContext, stream, cts.token)) as DocsChatResult;
    assert.equal(result.errorDetails, undefined, result.errorDetails?.message);
    const progress = parts.flatMap((p) => (p.kind === 'progress' ? [p.text] : []));
    assert.ok(progress.includes(de('Searching the documents…')), progress.join(' | '));
    assert.ok(progress.includes(de('Writing the answer with {0}…').replace('{0}', model.name)), progress.join(' | '));
    assert.ok(!progress.some((t) => /Searching the documents|Writing the answer/.test(t)), `no English progress: ${progress.join(' | ')}`);
  });

  it('the Search… quick pick and the Ask… input box speak German', async () => {
    assert.ok(driverAvailable(), 'run through scripts/vscode/run-tests.sh, which starts the browser driver');
    // Runs the command, waits for its quick input with the German title, checks the placeholder and closes it.
    const opensInGerman = async (command: string, title: string, placeholder: string) => {
      const shown = vscode.commands.executeCommand(command);
      const found = await waitUntil(`the German title of ${command}'s input`, async () => {
        const t = (await waitFor('.quick-input-widget .quick-input-title', { state: 'visible' })).join(' ').trim();
        return t === de(title) ? evaluate<string>("document.querySelector('.quick-input-widget input')?.getAttribute('placeholder') ?? ''") : undefined;
      }, 30_000, 300);
      assert.equal(found, de(placeholder));
      await press('Escape');
      await shown;
    };
    await opensInGerman('docsRag.search', 'Docs RAG: Search documents', 'Type what you are looking for (German or English); Enter opens the passage');
    await opensInGerman('docsRag.ask', 'Docs RAG: Ask', 'e.g. Wie lange darf die tägliche Arbeitszeit sein?');
  });

  it('@docs /status reports the index in German', async () => {
    const a = await api();
    const [model] = await vscode.lm.selectChatModels({ vendor: 'copilot' });
    const { stream, parts } = recordingStream();
    const request = { prompt: '', command: 'status', model, references: [], toolReferences: [], toolInvocationToken: undefined } as unknown as vscode.ChatRequest;
    const cts = new vscode.CancellationTokenSource();
    const result = (await createChatHandler(a.service, testLog())(request, { history: [] } as unknown as vscode.ChatContext, stream, cts.token)) as DocsChatResult;
    assert.equal(result.errorDetails, undefined, result.errorDetails?.message);
    const markdown = parts.filter((p) => p.kind === 'markdown').map((p) => (p as { text: string }).text).join('');
    assert.ok(markdown.includes(`# ${de('Docs RAG — index status')}`), markdown);
    assert.match(markdown, template(de('Passages: {0}')));
    assert.match(markdown, template(de('Documents indexed: {0}')));
    assert.doesNotMatch(markdown, /Passages:|Documents indexed:|Last run:|Index folder:|Files not indexed|\| (skipped|error) \|/, 'no English labels');
  });

  it('@docs answers in the real Chat view with German follow-ups (screenshot chat-answer-de.png)', async () => {
    assert.ok(driverAvailable(), 'run through scripts/vscode/run-tests.sh, which starts the browser driver');
    const followups = [de('Show the matching passages'), de('Summarise what the documents say about this')];
    const progress = [de('Opening the index…'), de('Searching the documents…'), de('Writing the answer with {0}…').replace('{0}', 'Docs RAG Test Model')];
    // Progress messages are replaced as the answer streams: record every text the responses show on the way.
    await evaluate(
      "(() => { const seen = (window.__docsRagSeen = new Set()); new MutationObserver(() => { for (const r of document.querySelectorAll('.interactive-response')) seen.add(r.textContent || ''); }).observe(document.body, { subtree: true, childList: true, characterData: true }); return true; })()",
    );
    await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@docs ${QUESTION}` });
    const text = await waitUntil(
      'the finished @docs answer in the Chat view with its German follow-ups',
      async () => {
        const t = await chatText();
        return /urlaub\.md:\d+/.test(t) && followups.every((f) => t.includes(f)) ? t : '';
      },
      90_000,
      500,
    );
    assert.doesNotMatch(text, /Show the matching passages|Summarise what the documents say/);
    const seen = await evaluate<string>("Array.from(window.__docsRagSeen || []).join('\\n')");
    assert.ok(progress.some((p) => seen.includes(p)), `a German progress message was shown (${progress.join(' | ')}); seen: ${seen.slice(0, 2000)}`);
    assert.doesNotMatch(seen, /Opening the index|Searching the documents|Writing the answer/, 'no English progress message');
    assert.match(text, /Urlaub/);
    // Show the start of the answer (the first citations) rather than its end.
    await scrollChatToLastResponse();
    await screenshot('chat-answer-de');
  });
});
