// A team's shared index (docsRag.store = s3://…): the builder's CLI writes it into the S3 API server the runner started
// (test/vscode/runner/s3.ts); this window reads it read-only. Its folder is then neither watched nor indexed, searches
// answer from the builder's index, and "Reindex documents" takes the builder's newest run instead of indexing.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import { EXTENSION_ID, api, fileUri, folder, sleep, waitUntil } from './helpers';

const URI = 's3://team/ws';

describe('a team index in object storage (docsRag.store)', () => {
  let builder: string;
  const config = () => vscode.workspace.getConfiguration('docsRag', folder().uri);

  /** The builder's run: the CLI as a CI job runs it, into the bucket. */
  async function build(): Promise<{ files: number }> {
    const cli = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist/cli.js');
    const run = await promisify(execFile)(process.execPath, [cli, 'index', builder, '--store', URI, '--maintenance', 'wait', '--json'], {
      // Its own cache, as on the CI machine: on one machine the builder and the member would share the store's mirror.
      env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', XDG_CACHE_HOME: `${builder}-cache` },
    });
    return JSON.parse(run.stdout.trim().split('\n').pop()!) as { files: number };
  }

  async function searchPaths(query: string): Promise<string[]> {
    return (await searchHits(query)).map((h) => h.path);
  }

  async function searchHits(query: string): Promise<{ path: string; label: string }[]> {
    const { hits } = await (await api()).service.search(query, { k: 10 });
    return hits.map((h) => ({ path: h.hit.passage.path, label: h.label }));
  }

  before(async function () {
    this.timeout(300_000);
    assert.ok(process.env.AWS_ENDPOINT_URL, 'the runner starts the S3 API server and sets AWS_ENDPOINT_URL');
    await (await api()).host.idle();
    builder = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-rag-team-builder-'));
    await fs.cp(path.join(folder().uri.fsPath, 'docs'), path.join(builder, 'docs'), { recursive: true });
    await fs.writeFile(path.join(builder, 'docs/teamwissen.md'), '# Teamwissen\n\nDas Quokkateamwissen 5150 steht nur im Ordner des Builds.\n');
    const r = await build();
    assert.ok(r.files >= 2, `the builder indexed ${r.files} files`);
  });

  after(async function () {
    this.timeout(120_000);
    await config().update('store', undefined, vscode.ConfigurationTarget.Workspace);
    await (await api()).host.idle();
    await fs.rm(builder, { recursive: true, force: true });
    await fs.rm(`${builder}-cache`, { recursive: true, force: true });
  });

  it('answers from the builder\'s index; a file saved in the folder starts no index run', async function () {
    this.timeout(180_000);
    const a = await api();
    let runs = 0;
    const sub = a.host.onDidIndex(() => runs++);
    const rel = 'docs/nur-lokal-team.md';
    try {
      await config().update('store', URI, vscode.ConfigurationTarget.Workspace);
      await a.host.idle();
      assert.equal(a.host.storeDirFor(folder()), URI);
      await waitUntil('the builder-only file in search results', async () => (await searchPaths('Quokkateamwissen 5150')).includes('docs/teamwissen.md'), 60_000, 500);
      // Citations open this folder's files: one the folder does not have is marked, one it has unchanged is not.
      const team = (await searchHits('Quokkateamwissen 5150')).find((h) => h.path === 'docs/teamwissen.md')!;
      assert.match(team.label, /not in your folder/);
      const own = (await searchHits('Urlaub')).find((h) => h.path === 'docs/urlaub.md');
      assert.ok(own && !/your copy|not in your folder/.test(own.label), own?.label);
      await fs.writeFile(fileUri(rel).fsPath, '# Lokal\n\nDer Kiwi-Vermerk 8086 steht nur in diesem Fenster.\n');
      // Longer than the watcher's debounce and maximum wait: a watched folder would have started its run by now.
      await sleep(6000);
      await a.host.idle();
      assert.equal(runs, 0, 'an index run started for a folder that reads a team index');
      assert.ok(!(await searchPaths('Kiwi-Vermerk 8086')).includes(rel), 'a local file reached the team index');
    } finally {
      sub.dispose();
      await fs.rm(fileUri(rel).fsPath, { force: true });
    }
  });

  it('"Reindex documents" takes the builder\'s newest run instead of indexing', async function () {
    this.timeout(180_000);
    const a = await api();
    const lastRun = async () => (await a.host.status()).find((s) => s.folder.uri.toString() === folder().uri.toString())?.lastRun?.finishedAt ?? 0;
    const before = await lastRun();
    assert.ok(before > 0, 'the team index shows the builder\'s run');
    await fs.writeFile(path.join(builder, 'docs/zweite-runde.md'), '# Runde\n\nDer Kea-Beschluss 2026 kam mit dem zweiten Lauf.\n');
    await fs.appendFile(path.join(builder, 'docs/urlaub.md'), '\n\nDer Takahe-Zusatz 1948 gilt nur in der Fassung des Builds.\n');
    await build();
    let runs = 0;
    const sub = a.host.onDidIndex(() => runs++);
    try {
      // The reader keeps the run it opened with until the refresh (on a schedule, or by the command).
      assert.equal(await lastRun(), before);
      await vscode.commands.executeCommand('docsRag.reindex');
      const after = await waitUntil('the builder\'s second run', async () => ((await lastRun()) > before ? lastRun() : undefined), 60_000, 500);
      assert.ok(after > before);
      assert.ok((await searchPaths('Kea-Beschluss 2026')).includes('docs/zweite-runde.md'));
      const changed = (await searchHits('Takahe-Zusatz 1948')).find((h) => h.path === 'docs/urlaub.md');
      assert.match(changed?.label ?? '', /your copy differs from the indexed one/);
      assert.equal(runs, 0, 'Reindex ran the indexer on a team index');
    } finally {
      sub.dispose();
    }
  });
});
