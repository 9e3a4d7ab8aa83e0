// @ts-check
// Docs view script. Runs inside the webview under a strict CSP (nonce). Every piece of text that comes from documents
// is put into the DOM with textContent / createTextNode, never as HTML, so markup in documents is shown, not run.
// Type-checked (media/tsconfig.json, part of `npm run typecheck`) against the message types of src/views/webviewProtocol.ts.
/** @typedef {import('../src/views/webviewProtocol').HostMessage} HostMessage */
/** @typedef {import('../src/views/webviewProtocol').ViewLink} ViewLink */
/** @typedef {import('../src/views/webviewProtocol').ViewStatus} ViewStatus */
/** @typedef {import('../src/views/webviewProtocol').ViewStrings} ViewStrings */
/** @typedef {Extract<HostMessage, { type: 'results' }>} ResultsMessage */
/** @typedef {Extract<HostMessage, { type: 'answerEnd' }>} AnswerEndMessage */
(function () {
  'use strict';
  const vscode = acquireVsCodeApi();
  /** An element of the view's page (docsView.ts writes them all). @param {string} id */
  const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
  const statusText = $('status-text');
  const reindexButton = /** @type {HTMLButtonElement} */ ($('reindex'));
  const searchForm = $('search-form');
  const searchInput = /** @type {HTMLInputElement} */ ($('search-input'));
  const askForm = $('ask-form');
  const askInput = /** @type {HTMLTextAreaElement} */ ($('ask-input'));
  const busy = $('busy');
  const errorBox = $('error');
  const answerBox = $('answer');
  const resultsBox = $('results');
  const preview = $('preview');
  /** The host's texts in VS Code's display language (docsView.ts writes them into <body data-strings>). @type {ViewStrings} */
  const S = JSON.parse(document.body.dataset.strings || '{}');

  /** Fills {0}, {1}… of a text from S. @param {string} text @param {(string | number)[]} args */
  function fmt(text, ...args) {
    return text.replace(/\{(\d+)\}/g, (hole, i) => (Number(i) < args.length ? String(args[Number(i)]) : hole));
  }

  let nextRequest = 1;
  let currentSearch = 0;
  let currentAsk = 0;
  /** @type {HTMLElement | null} */
  let answerText = null;

  /**
   * @template {keyof HTMLElementTagNameMap} K
   * @param {K} tag
   * @param {string} [className]
   * @param {string} [text]
   * @returns {HTMLElementTagNameMap[K]}
   */
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /** @param {Node} node */
  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  /** @param {string} text */
  function setBusy(text) {
    busy.hidden = !text;
    busy.textContent = text || '';
  }

  /** @param {string} text */
  function showError(text) {
    errorBox.hidden = !text;
    errorBox.textContent = text || '';
  }

  /**
   * Appends `text` to `parent`, wrapping every occurrence of a query term in <mark> (built as nodes, not HTML).
   * @param {Node} parent @param {string} text @param {string[]} terms
   */
  function appendMarked(parent, text, terms) {
    const lower = text.toLowerCase();
    let pos = 0;
    while (pos < text.length) {
      let best = -1;
      let bestLen = 0;
      for (const t of terms) {
        const i = lower.indexOf(t, pos);
        if (i >= 0 && (best < 0 || i < best || (i === best && t.length > bestLen))) {
          best = i;
          bestLen = t.length;
        }
      }
      if (best < 0) {
        parent.appendChild(document.createTextNode(text.slice(pos)));
        return;
      }
      if (best > pos) parent.appendChild(document.createTextNode(text.slice(pos, best)));
      parent.appendChild(el('mark', '', text.slice(best, best + bestLen)));
      pos = best + bestLen;
    }
  }

  /** @param {number} id */
  function open(id) {
    vscode.postMessage({ type: 'open', id });
  }

  /** @param {HTMLElement} anchor @param {string} label @param {string} text */
  function showPreview(anchor, label, text) {
    clear(preview);
    preview.appendChild(el('div', 'preview-label', label));
    preview.appendChild(el('div', 'preview-text', text.length > 1200 ? text.slice(0, 1200) + '…' : text));
    preview.hidden = false;
    const rect = anchor.getBoundingClientRect();
    preview.style.top = Math.round(rect.bottom + window.scrollY + 4) + 'px';
  }

  function hidePreview() {
    preview.hidden = true;
  }

  /** @param {ResultsMessage} msg */
  function renderResults(msg) {
    clear(resultsBox);
    if (msg.results.length === 0) {
      resultsBox.appendChild(el('p', 'empty', fmt(S.noMatch, msg.query)));
      return;
    }
    resultsBox.appendChild(el('h2', 'results-title', fmt(S.resultsFor, msg.results.length, msg.query)));
    const list = el('ol', 'result-list');
    list.setAttribute('role', 'list');
    for (const r of msg.results) {
      const item = el('li', 'result');
      const button = el('button', 'result-open');
      button.type = 'button';
      button.dataset.id = String(r.id);
      button.setAttribute('aria-label', fmt(S.open, r.label));
      button.appendChild(el('span', 'result-label', r.label));
      if (r.heading) button.appendChild(el('span', 'result-heading', r.heading));
      const snippet = el('span', 'result-snippet');
      appendMarked(snippet, r.snippet, msg.terms);
      button.appendChild(snippet);
      button.addEventListener('click', () => open(r.id));
      item.appendChild(button);
      if (r.links && r.links.length) item.appendChild(renderLinks(r.links));
      list.appendChild(item);
    }
    resultsBox.appendChild(list);
    if (msg.note) resultsBox.appendChild(el('p', 'note', msg.note));
  }

  /**
   * A result's reference-graph edges: "Links to" and "Linked from", each entry opening its range (text as textContent).
   * @param {ViewLink[]} links
   */
  function renderLinks(links) {
    const box = el('div', 'result-links');
    for (const [direction, title] of [['out', S.linksTo], ['in', S.linkedFrom]]) {
      const mine = links.filter((l) => l.direction === direction);
      if (!mine.length) continue;
      box.appendChild(el('span', 'result-links-title', title));
      const list = el('ul', 'result-links-list');
      for (const l of mine) {
        const li = el('li');
        const b = el('button', 'result-link');
        b.type = 'button';
        b.dataset.id = String(l.id);
        b.setAttribute('aria-label', title + ' ' + l.label + ' (' + l.kind + ')');
        b.appendChild(el('span', 'result-link-anchor', l.anchor));
        b.appendChild(el('span', 'result-link-label', l.label));
        b.addEventListener('click', () => open(l.id));
        li.appendChild(b);
        list.appendChild(li);
      }
      box.appendChild(list);
    }
    return box;
  }

  /** Renders the final answer: text with every [n] turned into a citation button. @param {AnswerEndMessage} msg */
  function renderAnswer(msg) {
    clear(answerBox);
    answerBox.hidden = false;
    answerBox.appendChild(el('h2', 'answer-title', msg.mode === 'extractive' ? S.mostRelevant : S.answer));
    const byN = new Map(msg.citations.map((c) => [c.n, c]));
    const body = el('div', 'answer-text');
    const parts = msg.answer.split(/(\[\d+\])/);
    for (const part of parts) {
      const m = /^\[(\d+)\]$/.exec(part);
      const c = m ? byN.get(Number(m[1])) : undefined;
      if (!c) {
        body.appendChild(document.createTextNode(part));
        continue;
      }
      const link = el('button', 'citation', '[' + c.n + ']');
      link.type = 'button';
      link.dataset.id = String(c.id);
      link.setAttribute('aria-label', fmt(S.source, c.n, c.label));
      link.addEventListener('click', () => open(c.id));
      link.addEventListener('mouseenter', () => showPreview(link, c.label, c.text));
      link.addEventListener('focus', () => showPreview(link, c.label, c.text));
      link.addEventListener('mouseleave', hidePreview);
      link.addEventListener('blur', hidePreview);
      body.appendChild(link);
    }
    answerBox.appendChild(body);
    for (const note of msg.notes) answerBox.appendChild(el('p', 'note', note));
    if (msg.citations.length) {
      answerBox.appendChild(el('h3', 'sources-title', S.sources));
      const list = el('ol', 'sources');
      for (const c of msg.citations) {
        const item = el('li', 'source');
        const button = el('button', 'source-open', '[' + c.n + '] ' + c.label);
        button.type = 'button';
        button.dataset.id = String(c.id);
        button.setAttribute('aria-label', fmt(S.openSource, c.n, c.label));
        button.addEventListener('click', () => open(c.id));
        button.addEventListener('mouseenter', () => showPreview(button, c.label, c.text));
        button.addEventListener('mouseleave', hidePreview);
        item.appendChild(button);
        list.appendChild(item);
      }
      answerBox.appendChild(list);
    }
  }

  /** @param {ViewStatus} status */
  function renderStatus(status) {
    statusText.textContent = status.message;
    statusText.dataset.state = status.state;
    reindexButton.disabled = status.state === 'indexing';
  }

  function runSearch() {
    const query = searchInput.value.trim();
    if (!query) return;
    showError('');
    // The previous query's results go at once: what the list shows always belongs to the query in the box, however long
    // the new search takes (until it answers, the list is empty and the busy line says so).
    clear(resultsBox);
    currentSearch = nextRequest++;
    vscode.postMessage({ type: 'search', requestId: currentSearch, query });
  }

  function runAsk() {
    const question = askInput.value.trim();
    if (!question) return;
    showError('');
    if (currentAsk) vscode.postMessage({ type: 'cancel', requestId: currentAsk });
    currentAsk = nextRequest++;
    vscode.postMessage({ type: 'ask', requestId: currentAsk, question });
  }

  searchForm.addEventListener('submit', (e) => {
    e.preventDefault();
    runSearch();
  });
  askForm.addEventListener('submit', (e) => {
    e.preventDefault();
    runAsk();
  });
  askInput.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      runAsk();
    }
  });
  reindexButton.addEventListener('click', () => vscode.postMessage({ type: 'reindex' }));
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      hidePreview();
      if (currentAsk) vscode.postMessage({ type: 'cancel', requestId: currentAsk });
    }
  });

  window.addEventListener('message', (event) => {
    /** @type {HostMessage} */
    const msg = event.data;
    if (!msg || typeof msg.type !== 'string') return;
    switch (msg.type) {
      case 'status':
        renderStatus(msg.status);
        break;
      case 'busy':
        setBusy(msg.stage);
        break;
      case 'results':
        if (msg.requestId !== currentSearch) return;
        setBusy('');
        renderResults(msg);
        break;
      case 'answerStart':
        if (msg.requestId !== currentAsk) return;
        clear(answerBox);
        answerBox.hidden = false;
        answerBox.appendChild(el('h2', 'answer-title', S.answer));
        answerText = el('div', 'answer-text streaming');
        answerBox.appendChild(answerText);
        break;
      case 'answerChunk':
        if (msg.requestId !== currentAsk || !answerText) return;
        answerText.appendChild(document.createTextNode(msg.text));
        break;
      case 'answerEnd':
        if (msg.requestId !== currentAsk) return;
        setBusy('');
        answerText = null;
        renderAnswer(msg);
        break;
      case 'error':
        if (msg.requestId !== undefined && msg.requestId !== currentSearch && msg.requestId !== currentAsk) return;
        setBusy('');
        showError(msg.message);
        break;
      case 'setQuery':
        if (msg.kind === 'search') {
          searchInput.value = msg.text;
          searchInput.focus();
          runSearch();
        } else {
          askInput.value = msg.text;
          askInput.focus();
          runAsk();
        }
        break;
    }
  });

  vscode.postMessage({ type: 'ready' });
})();
