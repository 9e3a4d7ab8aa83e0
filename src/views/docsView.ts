// The Docs webview view: search and ask boxes, results with marked terms, streamed answers with citations, index status.
// The view's script and styles live in media/; all document text reaches it as data and is rendered with textContent.
import * as crypto from 'node:crypto';
import * as vscode from 'vscode';
import { openLocation } from './citationCommands';
import { answerStageLabel, type DocsService, type ResolvedHit } from './docsService';
import { chooseChatModel } from './chatModels';
import { errorMessage, type Log } from './log';
import { statusSummary } from './statusReport';
import {
  parseViewMessage,
  queryTerms,
  snippetFor,
  type HostMessage,
  type ViewCitation,
  type ViewMessage,
  type ViewResult,
  type ViewStrings,
} from './webviewProtocol';

/** The view script's own texts in VS Code's display language; the {n} placeholders stay for the script to fill. */
function viewStrings(): ViewStrings {
  const holes = ['{0}', '{1}'];
  return {
    noMatch: vscode.l10n.t('No passages match "{0}". Try other words, or check the index status.', ...holes),
    resultsFor: vscode.l10n.t('{0} results for "{1}"', ...holes),
    open: vscode.l10n.t('Open {0}', ...holes),
    linksTo: vscode.l10n.t('Links to'),
    linkedFrom: vscode.l10n.t('Linked from'),
    answer: vscode.l10n.t('Answer'),
    mostRelevant: vscode.l10n.t('Most relevant passages'),
    sources: vscode.l10n.t('Sources'),
    source: vscode.l10n.t('Source {0}: {1}', ...holes),
    openSource: vscode.l10n.t('Open source {0}: {1}', ...holes),
  };
}

export const DOCS_VIEW_ID = 'docsRag.docsView';

export class DocsViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view?: vscode.WebviewView;
  private readonly targets = new Map<number, ResolvedHit>();
  private nextTarget = 0;
  private readonly running = new Map<number, AbortController>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly readyWaiters: (() => void)[] = [];
  private ready = false;
  /** Last results posted (for tests and the status command). */
  lastResults: ViewResult[] = [];
  private latestSearch = -1;
  private readonly posted = new vscode.EventEmitter<HostMessage>();
  /** Every message sent to the view (lets tests wait for results / answers). */
  readonly onDidPost = this.posted.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly service: DocsService,
    private readonly log: Log,
  ) {
    this.disposables.push(
      service.host.onDidChangeState(() => this.scheduleStatus()),
      service.host.onDidIndex(() => this.scheduleStatus()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.pushStatus()),
    );
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    this.ready = false;
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    view.webview.options = { enableScripts: true, localResourceRoots: [media] };
    view.webview.html = this.html(view.webview, media);
    this.disposables.push(
      view.webview.onDidReceiveMessage((raw) => {
        const msg = parseViewMessage(raw);
        if (!msg) {
          this.log.warn('Docs view: dropped a malformed message');
          return;
        }
        void this.handle(msg);
      }),
      view.onDidDispose(() => {
        if (this.view === view) this.view = undefined;
      }),
    );
  }

  /** The location a result or citation id of the view opens. */
  target(id: number): ResolvedHit | undefined {
    return this.targets.get(id);
  }

  /** Waits until the view's script has said it is ready. */
  whenReady(): Promise<void> {
    if (this.ready && this.view) return Promise.resolve();
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  /** Fills the search or ask box and submits it, exactly as if typed (used by "Ask…"). */
  async submit(kind: 'search' | 'ask', text: string): Promise<void> {
    await vscode.commands.executeCommand(`${DOCS_VIEW_ID}.focus`);
    await this.whenReady();
    this.post({ type: 'setQuery', kind, text });
  }

  private post(message: HostMessage): void {
    this.posted.fire(message);
    void this.view?.webview.postMessage(message);
  }

  private async handle(msg: ViewMessage): Promise<void> {
    switch (msg.type) {
      case 'ready':
        this.ready = true;
        this.readyWaiters.splice(0).forEach((r) => r());
        await this.pushStatus();
        return;
      case 'reindex':
        await vscode.commands.executeCommand('docsRag.reindex');
        return;
      case 'cancel':
        this.running.get(msg.requestId)?.abort();
        return;
      case 'open': {
        const target = this.targets.get(msg.id);
        if (target) await openLocation(target.location, target.note);
        return;
      }
      case 'search':
        return this.search(msg.requestId, msg.query);
      case 'ask':
        return this.ask(msg.requestId, msg.question);
    }
  }

  private remember(hit: ResolvedHit): number {
    const id = this.nextTarget++;
    this.targets.set(id, hit);
    if (this.targets.size > 2000) this.targets.delete(this.targets.keys().next().value as number);
    return id;
  }

  private async search(requestId: number, query: string): Promise<void> {
    const abort = new AbortController();
    this.running.set(requestId, abort);
    // The results of the previous query stop being the view's results now, as the webview clears its list; a slower
    // earlier search that answers later never replaces them (the webview drops its answer too).
    this.lastResults = [];
    this.latestSearch = requestId;
    try {
      this.post({ type: 'busy', requestId, stage: answerStageLabel('searching') });
      if ((await this.service.host.passageCount()) === 0) {
        this.post({ type: 'error', requestId, message: await this.service.host.emptyIndexMessage(vscode.l10n.t('Nothing is indexed yet. Press "Reindex" to index the documents of this workspace.')) });
        return;
      }
      const { hits, result } = await this.service.search(query, { k: 20, signal: abort.signal });
      const terms = queryTerms(query);
      const results: ViewResult[] = hits.map((h) => ({
        id: this.remember(h),
        label: h.label,
        title: h.hit.passage.title,
        heading: h.hit.passage.headingPath.join(' › '),
        snippet: snippetFor(h.hit.passage.text, terms),
        score: h.hit.score,
      }));
      // What each hit links to / what links to it (reference graph); a failure here never fails the search.
      try {
        const links = await this.service.links(hits);
        hits.forEach((h, i) => {
          const list = links.get(h) ?? [];
          if (list.length > 0) results[i].links = list.map((l) => ({ id: this.remember(l.target), direction: l.direction, kind: l.kind, label: l.target.label, anchor: l.anchor }));
        });
      } catch (err) {
        this.log.warn(`Docs view links: ${errorMessage(err)}`);
      }
      if (requestId === this.latestSearch) this.lastResults = results;
      this.post({ type: 'results', requestId, query, terms, results, note: result.warnings.join(' ') || undefined });
    } catch (err) {
      this.post({ type: 'error', requestId, message: vscode.l10n.t('Search failed: {0}', errorMessage(err)) });
    } finally {
      this.running.delete(requestId);
    }
  }

  private async ask(requestId: number, question: string): Promise<void> {
    const abort = new AbortController();
    this.running.set(requestId, abort);
    try {
      if ((await this.service.host.passageCount()) === 0) {
        this.post({ type: 'error', requestId, message: await this.service.host.emptyIndexMessage(vscode.l10n.t('Nothing is indexed yet. Press "Reindex" to index the documents of this workspace.')) });
        return;
      }
      this.post({ type: 'busy', requestId, stage: vscode.l10n.t('Choosing a model…') });
      const chosen = await chooseChatModel(this.log);
      this.post({ type: 'answerStart', requestId, question, mode: chosen.model ? chosen.model.id : 'extractive' });
      const outcome = await this.service.ask(question, {
        chatModel: chosen.model,
        signal: abort.signal,
        onStage: (stage) => this.post({ type: 'busy', requestId, stage: answerStageLabel(stage) }),
        onToken: (text) => this.post({ type: 'answerChunk', requestId, text }),
      });
      const citations: ViewCitation[] = outcome.citations.map((c) => ({ n: c.n, id: this.remember(c.hit), label: c.hit.label, text: c.hit.hit.passage.text }));
      const notes = [...(chosen.note && !chosen.model ? [chosen.note] : []), ...outcome.notes];
      this.post({ type: 'answerEnd', requestId, answer: outcome.answer, citations, notes, mode: outcome.mode });
    } catch (err) {
      this.post({ type: 'error', requestId, message: abort.signal.aborted ? vscode.l10n.t('Cancelled.') : vscode.l10n.t('Answer failed: {0}', errorMessage(err)) });
    } finally {
      this.running.delete(requestId);
    }
  }

  private statusTimer?: NodeJS.Timeout;

  /** Progress events come per file: update the status line at most four times a second. */
  private scheduleStatus(): void {
    if (this.statusTimer) return;
    this.statusTimer = setTimeout(() => {
      this.statusTimer = undefined;
      void this.pushStatus();
    }, 250);
  }

  private async pushStatus(): Promise<void> {
    if (!this.view) return;
    try {
      this.post({ type: 'status', status: await statusSummary(this.service.host) });
    } catch (err) {
      this.log.warn(`Docs view status: ${errorMessage(err)}`);
    }
  }

  private html(webview: vscode.Webview, media: vscode.Uri): string {
    const nonce = crypto.randomBytes(16).toString('base64');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(media, 'docsView.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(media, 'docsView.css'));
    const csp = [`default-src 'none'`, `style-src ${webview.cspSource}`, `img-src ${webview.cspSource}`, `font-src ${webview.cspSource}`, `script-src 'nonce-${nonce}'`].join('; ');
    // The labels in VS Code's display language (vscode.l10n), escaped for HTML like any text placed in the page.
    const h = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    const lang = vscode.env.language.replace(/[^A-Za-z-]/g, '') || 'en';
    return `<!DOCTYPE html>
<html lang="${lang}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link href="${style}" rel="stylesheet">
<title>Docs</title>
</head>
<body data-strings="${h(JSON.stringify(viewStrings()))}">
<main id="app">
  <section class="status" id="status" role="status" aria-live="polite">
    <span id="status-text">${h(vscode.l10n.t('Loading the index status…'))}</span>
    <button id="reindex" type="button" class="secondary" aria-label="${h(vscode.l10n.t('Reindex documents'))}">${h(vscode.l10n.t('Reindex'))}</button>
  </section>
  <form id="search-form" class="box" role="search" aria-label="${h(vscode.l10n.t('Search documents'))}">
    <label for="search-input">${h(vscode.l10n.t('Search'))}</label>
    <div class="row">
      <input id="search-input" type="search" placeholder="${h(vscode.l10n.t('Search the documents'))}" aria-label="${h(vscode.l10n.t('Search the documents'))}" maxlength="2000" autocomplete="off">
      <button type="submit" aria-label="${h(vscode.l10n.t('Run search'))}">${h(vscode.l10n.t('Search'))}</button>
    </div>
  </form>
  <form id="ask-form" class="box" aria-label="${h(vscode.l10n.t('Ask a question'))}">
    <label for="ask-input">${h(vscode.l10n.t('Ask'))}</label>
    <div class="row">
      <textarea id="ask-input" rows="2" placeholder="${h(vscode.l10n.t('Ask a question about the documents'))}" aria-label="${h(vscode.l10n.t('Ask a question about the documents'))}" maxlength="2000"></textarea>
      <button type="submit" aria-label="${h(vscode.l10n.t('Ask the question'))}">${h(vscode.l10n.t('Ask'))}</button>
    </div>
  </form>
  <div id="busy" class="busy" role="status" aria-live="polite" hidden></div>
  <div id="error" class="error" role="alert" hidden></div>
  <section id="answer" class="answer" aria-label="${h(vscode.l10n.t('Answer'))}" aria-live="polite" hidden></section>
  <section id="results" class="results" aria-label="${h(vscode.l10n.t('Search results'))}"></section>
  <div id="preview" class="preview" role="tooltip" hidden></div>
</main>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
  }

  dispose(): void {
    if (this.statusTimer) clearTimeout(this.statusTimer);
    for (const a of this.running.values()) a.abort();
    this.disposables.forEach((d) => d.dispose());
    this.posted.dispose();
  }
}
