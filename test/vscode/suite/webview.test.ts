// The Docs webview in the real workbench, driven through the browser driver: search → click a result → the editor's
// selection is the cited range; ask → citations with hover previews that open their range; markup in documents is
// shown as text and never runs. Takes the docs-view.png screenshot.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { click, evaluate, fill, press, screenshot, waitFor } from '../runner/driverClient';
import type { FrameTarget } from '../runner/protocol';
import type { HostMessage } from '../../../src/views/webviewProtocol';
import { api, fileUri, folder, rangeText, sameRange, waitUntil } from './helpers';

const view: FrameTarget = { frame: 'webview', webviewUrlIncludes: 'purpose=webviewView' };

async function editorAt(location: vscode.Location): Promise<vscode.TextEditor> {
  return waitUntil(`the editor at ${location.uri.path} ${rangeText(location.range)}`, () => {
    const e = vscode.window.activeTextEditor;
    return e && e.document.uri.toString() === location.uri.toString() && sameRange(e.selection, location.range) ? e : undefined;
  }, 15_000);
}

async function search(query: string): Promise<void> {
  await fill('#search-input', query, view);
  await press('Enter', { ...view, selector: '#search-input' });
}

describe('Docs webview', () => {
  before(async () => {
    const a = await api();
    await a.host.idle();
    await vscode.commands.executeCommand('docsRag.docsView.focus');
    await a.docsView.whenReady();
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('search → click a result → the editor selects the cited range (screenshot docs-view.png)', async () => {
    const a = await api();
    await search('Resturlaub übertragen');
    const labels = await waitFor('.result-open .result-label', { ...view, state: 'visible' });
    assert.ok(labels.some((l) => l.startsWith('docs/urlaub.md:')), `results: ${labels.join(', ')}`);
    const marks = await waitFor('.result-snippet mark', view);
    assert.ok(marks.some((m) => /resturlaub|übertragen/i.test(m)), 'matched terms are marked');
    await screenshot('docs-view');
    const first = a.docsView.lastResults[0];
    const target = a.docsView.target(first.id);
    assert.ok(target, 'the first result has a target');
    await click('.result-open', { ...view, index: 0 });
    const editor = await editorAt(target.location);
    assert.equal(editor.document.uri.toString(), fileUri('docs/urlaub.md').toString());
    assert.ok(editor.document.getText(editor.selection).includes('31. März'));
  });

  it('a result lists what it links to / what links to it (reference graph); a link opens its range', async () => {
    const a = await api();
    await search('stale artefacts rebuild Zephyr');
    await waitUntil('a result with links', async () => (await waitFor('.result-link .result-link-anchor', view)).length > 0, 20_000, 500);
    const withLinks = a.docsView.lastResults.find((r) => r.links?.length);
    assert.ok(withLinks, 'a result carries links');
    const link = withLinks.links!.find((l) => l.anchor === '.zephyr/cache');
    assert.ok(link, `links: ${JSON.stringify(withLinks.links)}`);
    assert.ok(link.label.startsWith('docs/build-cache.md:'), link.label);
    const titles = await waitFor('.result-links-title', view);
    assert.ok(titles.some((t) => t === 'Links to' || t === 'Linked from'), titles.join(', '));
    const target = a.docsView.target(link.id);
    assert.ok(target, 'the link has a target');
    await click(`.result-link[data-id="${link.id}"]`, view);
    const editor = await editorAt(target.location);
    assert.equal(editor.document.uri.toString(), fileUri('docs/build-cache.md').toString());
    assert.ok(editor.document.getText(editor.selection).includes('.zephyr/cache'));
  });

  it('ask → streamed answer with citations; hover previews, click opens the range', async () => {
    const a = await api();
    const ended = new Promise<void>((resolve) => {
      const sub = a.docsView.onDidPost((m) => {
        if (m.type === 'answerEnd' || m.type === 'error') {
          sub.dispose();
          resolve();
        }
      });
    });
    await fill('#ask-input', 'Wie viele Arbeitstage Urlaub hat eine Vollzeitkraft?', view);
    await press('Enter', { ...view, selector: '#ask-input' });
    await ended;
    const answer = await waitFor('.answer-text', { ...view, state: 'visible' });
    assert.match(answer.join(' '), /Urlaub/);
    const cites = await waitFor('.answer-text .citation', view);
    assert.ok(cites.length > 0 && cites.every((c) => /^\[\d+\]$/.test(c)), `citations: ${cites.join(' ')}`);
    const preview = await evaluate<{ hidden: boolean; text: string }>(
      "(() => { const c = document.querySelector('.answer-text .citation'); c.dispatchEvent(new MouseEvent('mouseenter')); const p = document.getElementById('preview'); return { hidden: p.hidden, text: p.textContent || '' }; })()",
      view,
    );
    assert.equal(preview.hidden, false);
    assert.ok(preview.text.length > 20, 'the preview shows the passage');
    const id = Number(await evaluate<string>("document.querySelector('.answer-text .citation').dataset.id", view));
    const target = a.docsView.target(id);
    assert.ok(target);
    await click('.answer-text .citation', view);
    await editorAt(target.location);
  });

  it('the status bar shows the index state', async () => {
    const text = await waitUntil('the Docs status bar item with a passage count', async () => {
      const t = await evaluate<string>("Array.from(document.querySelectorAll('.statusbar-item')).map((e) => e.textContent || '').join(' | ')");
      return /Docs \d+/.test(t) ? t : '';
    }, 20_000, 500);
    assert.match(text, /Docs \d+/);
  });

  it('the Reindex button in the view runs a reindex and the status line shows the counts', async () => {
    const a = await api();
    const indexed = new Promise<void>((resolve) => {
      const sub = a.host.onDidIndex(() => {
        sub.dispose();
        resolve();
      });
    });
    await click('#reindex', view);
    await indexed;
    await a.host.idle();
    await waitUntil('the status line with counts', async () => (await waitFor('#status-text', view)).some((t) => /\d+ documents, \d+ passages indexed/.test(t)), 20_000, 500);
  });

  it('"Docs RAG: Ask…" answers in the Docs view with citations', async () => {
    const a = await api();
    const ended = new Promise<Extract<HostMessage, { type: 'answerEnd' }>>((resolve, reject) => {
      const sub = a.docsView.onDidPost((m) => {
        if (m.type === 'answerEnd') {
          sub.dispose();
          resolve(m);
        } else if (m.type === 'error') {
          sub.dispose();
          reject(new Error(m.message));
        }
      });
    });
    await vscode.commands.executeCommand('docsRag.ask', 'Bis wann kann Resturlaub übertragen werden?');
    const end = await ended;
    assert.ok(end.citations.length > 0, 'the answer cites sources');
    assert.ok(end.citations.some((c) => c.label.startsWith('docs/urlaub.md:')), end.citations.map((c) => c.label).join(', '));
    const shown = await waitFor('.answer-text', { ...view, state: 'visible' });
    assert.ok(shown.join(' ').includes(end.answer.split('\n')[0].replace(/\s*\[\d+\].*$/, '').slice(0, 30)), 'the view shows the answer');
  });

  it('shows markup from documents as text and never runs it', async () => {
    const a = await api();
    const rel = 'payload-raw.txt';
    const payload = [
      'quokka-payload-marker: raw markup in a plain text file.',
      '<img src=x onerror="window.__docsRagPwned=\'img\'; document.title=\'PWNED\'">',
      '<script>window.__docsRagPwned = "script"</script>',
      '<a href="javascript:window.__docsRagPwned=1">link</a> <b onmouseover="window.__docsRagPwned=2">bold</b>',
    ].join('\n');
    await vscode.workspace.fs.writeFile(fileUri(rel), Buffer.from(payload));
    try {
      await a.host.index(folder(), { paths: [rel] });
      const inspect = () =>
        evaluate<{ pwned: unknown; title: string; injected: number; text: string }>(
          "({ pwned: window.__docsRagPwned ?? null, title: document.title, injected: document.querySelectorAll('#results img, #results script, #results a, #results b, #results iframe').length, text: document.getElementById('results').textContent })",
          view,
        );
      for (const [query, file] of [['xylophone-sentinel', 'payloads.md'], ['quokka-payload-marker', rel]]) {
        await search(query);
        await waitUntil(`${file} in the results for ${query}`, async () => (await waitFor('.result-open .result-label', view)).some((l) => l.startsWith(file)), 20_000, 500);
        const state = await inspect();
        assert.equal(state.pwned, null, 'no payload ran');
        assert.notEqual(state.title, 'PWNED');
        assert.equal(state.injected, 0, 'no element was created from document text');
      }
      assert.ok((await inspect()).text.includes('<img src=x onerror='), 'the markup is shown as text');
      const csp = await evaluate<string>("document.querySelector('meta[http-equiv=\"Content-Security-Policy\"]').content", view);
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'nonce-[A-Za-z0-9+/=]+'/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    } finally {
      await vscode.workspace.fs.delete(fileUri(rel));
      await a.host.index(folder(), { paths: [rel] });
    }
  });
});
