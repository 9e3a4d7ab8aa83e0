// File watching: a new document is indexed, a deleted one forgotten, a renamed one moves; a burst of many files
// coalesces into few index runs; a .gitignore's rules take documents out and give them back; a saved edit is searchable
// before the background maintenance it leaves starts. Real file system events from the VS Code server.
import * as assert from 'node:assert/strict';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { api, fileUri, folder, waitUntil } from './helpers';

async function indexedPaths(): Promise<Set<string>> {
  const a = await api();
  const engine = await a.host.engine(folder());
  return new Set((await engine.store.listFiles()).filter((f) => f.status === 'indexed').map((f) => f.path));
}

async function searchPaths(query: string): Promise<string[]> {
  const { hits } = await (await api()).service.search(query, { k: 10 });
  return hits.map((h) => h.hit.passage.path);
}

describe('file watcher', () => {
  before(async () => {
    await (await api()).host.idle();
  });

  it('indexes a new file and forgets it when deleted', async () => {
    const rel = 'docs/neu-quokka.md';
    await fs.writeFile(fileUri(rel).fsPath, '# Quokka\n\nDer Quokka-Bericht 4711 beschreibt das Wombat-Protokoll im Detail.\n');
    await waitUntil('the new file in search results', async () => (await searchPaths('Quokka-Bericht Wombat-Protokoll')).includes(rel), 30_000, 500);
    await fs.unlink(fileUri(rel).fsPath);
    await waitUntil('the deleted file gone from the index', async () => !(await indexedPaths()).has(rel), 30_000, 500);
    assert.ok(!(await searchPaths('Quokka-Bericht Wombat-Protokoll')).includes(rel));
  });

  it('a saved edit is searchable before any background maintenance starts; that maintenance follows the run', async () => {
    const storeDir = (await (await api()).host.engine(folder())).storeDir;
    type Meta = { lastRun?: { finishedAt: number }; maintenance?: { running?: { startedAt: number }; lastStep?: { kind: string; startedAt: number } } };
    const meta = async (): Promise<Meta> => JSON.parse(await fs.readFile(path.join(storeDir, 'meta.json'), 'utf8')) as Meta;
    const rel = 'docs/reihenfolge-ibis.md';
    const saved = Date.now();
    await fs.writeFile(fileUri(rel).fsPath, '# Reihenfolge\n\nDas Ibis-Protokoll 6174 regelt die Reihenfolge der Wartung.\n');
    try {
      await waitUntil('the edit in search results', async () => (await searchPaths('Ibis-Protokoll 6174')).includes(rel), 30_000, 50);
      const atSearchable = await meta();
      // No maintenance step for this change has started (or runs) by the time the change is found.
      assert.ok((atSearchable.maintenance?.lastStep?.startedAt ?? 0) < saved, JSON.stringify(atSearchable.maintenance));
      assert.ok((atSearchable.maintenance?.running?.startedAt ?? 0) < saved, JSON.stringify(atSearchable.maintenance));
      // The change left maintenance (its rows outside the indexes, its links uncounted): it runs after the run.
      const after = await waitUntil('background maintenance after the edit', async () => {
        const m = await meta();
        return (m.maintenance?.lastStep?.startedAt ?? 0) > saved ? m : undefined;
      }, 120_000, 250);
      assert.ok(after.lastRun && after.maintenance!.lastStep!.startedAt >= after.lastRun.finishedAt, JSON.stringify(after));
    } finally {
      await fs.rm(fileUri(rel).fsPath, { force: true });
      await waitUntil('the file gone from the index', async () => !(await indexedPaths()).has(rel), 30_000, 500);
    }
  });

  it('follows a rename', async () => {
    const from = 'docs/alt-name.md';
    const to = 'docs/neuer-name.md';
    await fs.writeFile(fileUri(from).fsPath, '# Umbenennung\n\nDas Kakapo-Verfahren 0815 regelt die Umbenennung von Dateien.\n');
    await waitUntil('the file indexed', async () => (await indexedPaths()).has(from), 30_000, 500);
    await fs.rename(fileUri(from).fsPath, fileUri(to).fsPath);
    await waitUntil('the index following the rename', async () => {
      const p = await indexedPaths();
      return p.has(to) && !p.has(from);
    }, 30_000, 500);
    assert.deepEqual([...new Set(await searchPaths('Kakapo-Verfahren 0815'))].filter((x) => x.includes('name.md')), [to]);
    await fs.unlink(fileUri(to).fsPath);
    await waitUntil('cleanup', async () => !(await indexedPaths()).has(to), 30_000, 500);
  });

  it('follows documents whose extension is upper-case (the walker\'s case-insensitive include globs): create and edit', async () => {
    const rel = 'docs/Report.MD';
    await fs.writeFile(fileUri(rel).fsPath, '# Bericht\n\nDer Pelikan-Bericht 3141 beschreibt die Kranich-Zählung.\n');
    try {
      await waitUntil('Report.MD in search results', async () => (await searchPaths('Pelikan-Bericht Kranich-Zählung')).includes(rel), 30_000, 500);
      await fs.writeFile(fileUri(rel).fsPath, '# Bericht\n\nDer Flamingo-Bericht 2718 beschreibt die Reiher-Zählung.\n');
      await waitUntil('the edit of Report.MD in search results', async () => (await searchPaths('Flamingo-Bericht Reiher-Zählung')).includes(rel), 30_000, 500);
    } finally {
      await fs.rm(fileUri(rel).fsPath, { force: true });
      await waitUntil('Report.MD gone from the index', async () => !(await indexedPaths()).has(rel), 30_000, 500);
    }
  });

  it('forgets the documents of a deleted folder whose name has a dot (v1.2/)', async () => {
    const dir = fileUri('v1.2').fsPath;
    await fs.mkdir(path.join(dir, 'sub'), { recursive: true });
    await fs.writeFile(path.join(dir, 'guide.md'), '# Version 1.2\n\nDie Albatros-Anleitung 1234 gilt für Version 1.2.\n');
    await fs.writeFile(path.join(dir, 'sub', 'notes.md'), '# Notizen\n\nDie Albatros-Notizen 5678 gehören zur Version 1.2.\n');
    await waitUntil('v1.2/ indexed', async () => {
      const p = await indexedPaths();
      return p.has('v1.2/guide.md') && p.has('v1.2/sub/notes.md');
    }, 30_000, 500);
    await fs.rm(dir, { recursive: true, force: true });
    await waitUntil('the documents of v1.2/ gone from the index', async () => ![...(await indexedPaths())].some((p) => p.startsWith('v1.2/')), 30_000, 500);
  });

  it('coalesces a burst of 300 new files into a few runs', async () => {
    const a = await api();
    const dir = path.join(folder().uri.fsPath, 'burst');
    await fs.mkdir(dir, { recursive: true });
    let batches = 0;
    const sub = a.watcher.onDidQueue(() => batches++);
    try {
      await Promise.all(
        Array.from({ length: 300 }, (_, i) => fs.writeFile(path.join(dir, `note-${i}.md`), `# Notiz ${i}\n\nBurst-Notiz Nummer ${i} über das Thema Stapelverarbeitung.\n`)),
      );
      await waitUntil('all 300 burst files indexed', async () => {
        const p = await indexedPaths();
        return Array.from({ length: 300 }, (_, i) => `burst/note-${i}.md`).every((r) => p.has(r));
      }, 120_000, 1000);
      assert.ok(batches >= 1 && batches <= 5, `the watcher queued ${batches} runs for 300 files`);
    } finally {
      sub.dispose();
      await fs.rm(dir, { recursive: true, force: true });
      await waitUntil('burst files removed', async () => ![...(await indexedPaths())].some((p) => p.startsWith('burst/')), 60_000, 1000);
    }
  });

  it('follows a .gitignore: a folder it ignores leaves the index, and comes back when the rule goes', async () => {
    const a = await api();
    const dir = fileUri('generated').fsPath;
    const gitignore = fileUri('.gitignore').fsPath;
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, 'api.md'), '# API\n\nDie Pinguin-Schnittstelle 9090 wird aus dem Code erzeugt.\n');
    try {
      await waitUntil('generated/api.md indexed', async () => (await indexedPaths()).has('generated/api.md'), 30_000, 500);
      await fs.writeFile(gitignore, '# build output\ngenerated/\n');
      await waitUntil('generated/api.md gone once .gitignore ignores it', async () => !(await indexedPaths()).has('generated/api.md'), 30_000, 500);
      assert.ok(!(await searchPaths('Pinguin-Schnittstelle 9090')).includes('generated/api.md'));
      // An edit under the ignored folder starts no run.
      let batches = 0;
      const sub = a.watcher.onDidQueue(() => batches++);
      try {
        await fs.writeFile(path.join(dir, 'api.md'), '# API\n\nDie Pinguin-Schnittstelle 9091 wird neu erzeugt.\n');
        await new Promise((r) => setTimeout(r, 1500));
        assert.equal(batches, 0);
      } finally {
        sub.dispose();
      }
      await fs.unlink(gitignore);
      await waitUntil('generated/api.md back once the rule is gone', async () => (await indexedPaths()).has('generated/api.md'), 30_000, 500);
    } finally {
      await fs.rm(gitignore, { force: true });
      await fs.rm(dir, { recursive: true, force: true });
      await waitUntil('generated/ removed', async () => !(await indexedPaths()).has('generated/api.md'), 30_000, 500);
    }
  });

  it('follows a .gitignore above the workspace folder, in its repository root (VS Code watches it outside the folder)', async () => {
    const dir = fileUri('generated-above').fsPath;
    const gitignore = path.join(path.dirname(folder().uri.fsPath), '.gitignore');
    assert.ok(existsSync(path.join(path.dirname(gitignore), '.git')), 'the runner puts the workspace in a repository');
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, 'api.md'), '# API\n\nDie Otter-Schnittstelle 7070 wird aus dem Code erzeugt.\n');
    try {
      await waitUntil('generated-above/api.md indexed', async () => (await indexedPaths()).has('generated-above/api.md'), 30_000, 500);
      await fs.writeFile(gitignore, 'generated-above/\n');
      await waitUntil('generated-above/api.md gone once the .gitignore above ignores it', async () => !(await indexedPaths()).has('generated-above/api.md'), 30_000, 500);
      await fs.unlink(gitignore);
      await waitUntil('generated-above/api.md back once that rule is gone', async () => (await indexedPaths()).has('generated-above/api.md'), 30_000, 500);
    } finally {
      await fs.rm(gitignore, { force: true });
      await fs.rm(dir, { recursive: true, force: true });
      await waitUntil('generated-above/ removed', async () => !(await indexedPaths()).has('generated-above/api.md'), 30_000, 500);
    }
  });

  it('ignores files outside the include globs', async () => {
    const a = await api();
    let batches = 0;
    const sub = a.watcher.onDidQueue(() => batches++);
    try {
      await fs.writeFile(fileUri('ignored.log').fsPath, 'not a document');
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(batches, 0);
    } finally {
      sub.dispose();
      await fs.unlink(fileUri('ignored.log').fsPath);
    }
  });
});

