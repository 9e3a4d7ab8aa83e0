// "Docs RAG: Reindex documents" over the fixture workspace: every document indexed (Markdown, text, DOCX, PDF), the
// index kept in VS Code's workspace storage (never inside the user's files), and the status report listing them.
import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { IndexOutcome } from '../../../src/views/indexing';
import { api, fileUri, folder, sleep, waitUntil } from './helpers';

const FIXTURE_DOCS = ['docs/urlaub.md', 'docs/build-cache.md', 'notes.txt', 'payloads.md', 'ArbZG.docx', 'mitgliedsantrag.pdf'];

describe('reindex command', () => {
  let outcomes: IndexOutcome[];

  before(async () => {
    const a = await api();
    await a.startup;
    outcomes = (await vscode.commands.executeCommand<IndexOutcome[]>('docsRag.reindex'))!;
  });

  it('indexes every fixture document with no problems', async () => {
    assert.equal(outcomes.length, 1);
    const o = outcomes[0];
    assert.equal(o.error, undefined, `reindex failed: ${o.error}`);
    assert.ok(o.result, 'the run has a result');
    assert.deepEqual(o.result.errors, []);
    assert.ok(o.result.files >= FIXTURE_DOCS.length, `documents: ${o.result.files}`);
    const a = await api();
    const engine = await a.host.engine(folder());
    const files = await engine.store.listFiles();
    for (const rel of FIXTURE_DOCS) {
      const rec = files.find((f) => f.path === rel);
      assert.ok(rec, `${rel} is in the index`);
      assert.equal(rec.status, 'indexed', `${rel}: ${rec.reason}`);
      assert.ok(rec.passages > 0, `${rel} has passages`);
    }
  });

  it('keeps the index in workspace storage, not in the workspace', async () => {
    const a = await api();
    const storeDir = a.host.storeDirFor(folder());
    const ws = folder().uri.fsPath;
    assert.ok(!path.resolve(storeDir).startsWith(path.resolve(ws) + path.sep), `store ${storeDir} is outside ${ws}`);
    assert.ok(existsSync(storeDir), 'the store exists');
    assert.ok(!existsSync(path.join(ws, '.docs-rag')), 'no .docs-rag folder in the workspace');
  });

  it('shows the index status with files, passages and the embedder', async () => {
    const report = await vscode.commands.executeCommand<string>('docsRag.status');
    assert.ok(report);
    assert.match(report, /Documents indexed: \d+/);
    assert.match(report, /Passages: [1-9]\d*/);
    assert.match(report, /Embedder: builtin/);
    assert.match(report, /Vector search: exact \(below 5,000 passages no vector index is needed\)/);
    assert.match(report, /Files: those `docsRag.include` selects, less `docsRag.exclude` and `files.exclude` and what .gitignore \/ .ignore files ignore/);
    assert.match(report, /No problems\./);
    const editor = vscode.window.activeTextEditor;
    assert.equal(editor?.document.uri.scheme, 'docs-rag-status');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });

  it('lists a broken file in the status with its reason, and keeps indexing the rest', async () => {
    const a = await api();
    const broken = vscode.Uri.joinPath(folder().uri, 'broken.docx');
    await vscode.workspace.fs.writeFile(broken, Buffer.from('PK\u0003\u0004 this is not really a zip'));
    try {
      const result = await a.host.index(folder(), { paths: ['broken.docx'] });
      const err = result.errors.find((e) => e.path === 'broken.docx');
      assert.ok(err, 'broken.docx is reported');
      assert.ok(err.reason.length > 5, `reason: ${err.reason}`);
      const report = await vscode.commands.executeCommand<string>('docsRag.status');
      // Names are Markdown-escaped in the report (an untrusted name never becomes a link or an image).
      assert.ok(report?.replace(/\\(.)/g, '$1').includes('broken.docx'), 'the status lists broken.docx');
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    } finally {
      await vscode.workspace.fs.delete(broken);
      await a.host.index(folder(), { paths: ['broken.docx'] });
    }
  });

  it('cancels a reindex from "Docs RAG: Cancel indexing" and keeps a working index', async () => {
    const a = await api();
    const run = vscode.commands.executeCommand<IndexOutcome[]>('docsRag.reindex');
    await waitUntil('the run to start', () => a.host.state.kind === 'indexing', 20_000, 20);
    await vscode.commands.executeCommand('docsRag.cancelIndexing');
    const outcome = (await run)!;
    assert.equal(outcome[0].error, 'cancelled');
    // The next run completes and the index answers again.
    const again = (await vscode.commands.executeCommand<IndexOutcome[]>('docsRag.reindex'))!;
    assert.equal(again[0].error, undefined);
    assert.deepEqual(again[0].result?.errors, []);
    const { hits } = await a.service.search('Resturlaub', { k: 5 });
    assert.ok(hits.some((h) => h.hit.passage.path === 'docs/urlaub.md'));
  });

  it('a Reindex keeps running when workspace folders change or trust is granted (the restart merges with it)', async () => {
    const a = await api();
    await a.host.idle();
    let restarted: Promise<void> | undefined;
    // Restart while the Reindex runs: on its first progress (what onDidChangeWorkspaceFolders / onDidGrantWorkspaceTrust do).
    const sub = a.host.onDidChangeState((s) => {
      if (!restarted && s.kind === 'indexing' && s.progress) restarted = a.restart();
    });
    try {
      const outcomes = (await vscode.commands.executeCommand<IndexOutcome[]>('docsRag.reindex'))!;
      assert.ok(restarted, 'the restart ran during the Reindex');
      assert.equal(outcomes[0].error, undefined, `the Reindex was not cancelled: ${outcomes[0].error}`);
      assert.equal(outcomes[0].result?.cancelled, undefined);
      assert.ok((outcomes[0].result?.files ?? 0) >= FIXTURE_DOCS.length, `documents: ${outcomes[0].result?.files}`);
      await restarted;
    } finally {
      sub.dispose();
    }
  });

  it('a Reindex merged with a watcher update shows its progress and can be cancelled; the watcher paths are still indexed', async () => {
    const a = await api();
    await a.host.idle();
    const rel = 'docs/merge-eins.md';
    await vscode.workspace.fs.writeFile(fileUri(rel), Buffer.from('# Merge\n\nDer Seeadler-Vermerk 6061 steht nur in dieser Datei.\n'));
    try {
      // The watcher's request first (no signal), then the Reindex: both wait for the same run.
      const watcherRun = a.host.index(folder(), { paths: [rel] });
      const abort = new AbortController();
      let progress = 0;
      const reindex = a.host.index(folder(), {
        full: true,
        signal: abort.signal,
        onProgress: () => {
          progress++;
          abort.abort();
        },
      });
      const cancelled = await reindex;
      assert.ok(progress > 0, 'the Reindex saw progress');
      assert.equal(cancelled.cancelled, true, 'the Reindex was cancelled');
      const watched = await watcherRun;
      assert.notEqual(watched.cancelled, true, 'the watcher update was not cancelled with it');
      const engine = await a.host.engine(folder());
      assert.ok((await engine.store.listFiles()).some((f) => f.path === rel && f.status === 'indexed'), `${rel} is indexed`);
    } finally {
      await vscode.workspace.fs.delete(fileUri(rel));
      await a.host.index(folder(), { paths: [rel] });
    }
  });

  it('a cancelled Reindex keeps the watcher paths merged into it', async () => {
    const a = await api();
    await a.host.idle();
    const rel = 'docs/merge-zwei.md';
    await vscode.workspace.fs.writeFile(fileUri(rel), Buffer.from('# Merge\n\nDer Fischadler-Vermerk 7071 steht nur in dieser Datei.\n'));
    try {
      const abort = new AbortController();
      const reindex = a.host.index(folder(), { full: true, signal: abort.signal, onProgress: () => abort.abort() });
      const watcherRun = a.host.index(folder(), { paths: [rel] });
      assert.equal((await reindex).cancelled, true, 'the Reindex was cancelled');
      const watched = await watcherRun;
      assert.notEqual(watched.cancelled, true, 'the watcher update ran to its end');
      const engine = await a.host.engine(folder());
      assert.ok((await engine.store.listFiles()).some((f) => f.path === rel && f.status === 'indexed'), `${rel} is indexed`);
    } finally {
      await vscode.workspace.fs.delete(fileUri(rel));
      await a.host.index(folder(), { paths: [rel] });
    }
  });

  it('honours a changed docsRag.exclude setting (the file leaves the index) and files.exclude', async () => {
    const a = await api();
    const config = vscode.workspace.getConfiguration('docsRag');
    const filesConfig = vscode.workspace.getConfiguration('files');
    const indexed = async () => {
      const engine = await a.host.engine(folder());
      return new Set((await engine.store.listFiles()).map((f) => f.path));
    };
    try {
      await config.update('exclude', [...(config.get<string[]>('exclude') ?? []), '**/notes.txt'], vscode.ConfigurationTarget.Workspace);
      await waitUntil('notes.txt to leave the index', async () => !(await indexed()).has('notes.txt'), 60_000, 500);
      await filesConfig.update('exclude', { '**/docs': true }, vscode.ConfigurationTarget.Workspace);
      await waitUntil('docs/ to leave the index (files.exclude)', async () => ![...(await indexed())].some((p) => p.startsWith('docs/')), 60_000, 500);
    } finally {
      await config.update('exclude', undefined, vscode.ConfigurationTarget.Workspace);
      await filesConfig.update('exclude', undefined, vscode.ConfigurationTarget.Workspace);
    }
    await waitUntil('notes.txt and docs/ back in the index', async () => {
      const p = await indexed();
      return p.has('notes.txt') && p.has('docs/urlaub.md');
    }, 60_000, 500);
  });

  it('a burst of index-setting changes is work in progress: idle() waits for its background run, and no run starts after', async () => {
    const a = await api();
    await a.host.idle();
    const config = vscode.workspace.getConfiguration('docsRag');
    // Background runs ('scan'); the watcher's own runs for the changed .vscode/settings.json are not what this is about.
    const runs: string[] = [];
    const sub = a.host.worker.onDidStartRun(({ what }) => what === 'scan' && runs.push(what));
    try {
      for (const mb of [40, 41, 42]) await config.update('maxFileSizeMB', mb, vscode.ConfigurationTarget.Workspace);
      await config.update('maxFileSizeMB', undefined, vscode.ConfigurationTarget.Workspace);
      await waitUntil('the changed settings to be applied with a background run', async () => {
        await a.host.idle();
        return runs.length > 0;
      });
      const seen = runs.length;
      // Before EngineHost.reconfigure, each change queued its own reopen + run, and idle() did not wait for them.
      await sleep(2000);
      assert.equal(runs.length, seen, `${runs.length - seen} background run(s) started after idle() had returned`);
      assert.equal(a.host.state.kind, 'idle');
    } finally {
      sub.dispose();
    }
  });
});
