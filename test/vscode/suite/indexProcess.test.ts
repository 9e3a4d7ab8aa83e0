// The extension indexes in its own process (dist/indexWorker.js, forked with IPC): the child holds the store's writer
// lock, the extension host searches while a job runs, and a child killed mid-run is reported, the index still answers
// and the next run completes with exactly the passages of the first build. "Mid-run" is made deterministic by
// stopping the child (SIGSTOP) at its first progress report, before it is searched beside or killed.
import * as assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import { api, fileUri, folder, quiet } from './helpers';

const BULK = 'bulk-process';
const BULK_FILES = 120;

async function bulkFiles(): Promise<number> {
  const a = await api();
  const files = await (await a.host.engine(folder())).store.listFiles();
  return files.filter((f) => f.path.startsWith(`${BULK}/`)).length;
}

function lockHolder(storeDir: string): number | undefined {
  try {
    return (JSON.parse(readFileSync(path.join(storeDir, 'writer.lock'), 'utf8')) as { pid?: number }).pid;
  } catch {
    return undefined;
  }
}

describe('indexing process', () => {
  let firstChunks = 0;

  before(async () => {
    const a = await api();
    await a.startup;
    await a.host.idle();
    await fs.mkdir(fileUri(BULK).fsPath, { recursive: true });
    for (let i = 0; i < BULK_FILES; i++) {
      const body = Array.from({ length: 6 }, (_, p) => `Absatz ${p} von Band ${i}: Der Pegelstand ${i * 7 + p} des Flusses wird täglich gemessen und im Register vermerkt.`).join('\n\n');
      await fs.writeFile(fileUri(`${BULK}/band-${i}.md`).fsPath, `# Band ${i}\n\n${body}\n`);
    }
    // The watcher indexes the new files; its runs end before the tests measure the host's state and passage counts.
    await quiet(a, 'the watcher indexed the bulk files', async () => (await bulkFiles()) === BULK_FILES);
  });

  after(async () => {
    const a = await api();
    await a.host.idle();
    await fs.rm(fileUri(BULK).fsPath, { recursive: true, force: true });
    await a.host.index(folder(), { paths: [BULK] });
    await quiet(a, 'the bulk files left the index', async () => (await bulkFiles()) === 0);
  });

  it('runs every index job in a child process that holds the writer lock, and search answers while a job runs', async () => {
    const a = await api();
    await a.host.idle();
    const storeDir = a.host.storeDirFor(folder());
    let seen: { child?: number; lock?: number; hits?: string[]; busy?: boolean; cmdline?: string[] } | undefined;
    let checking: Promise<void> | undefined;
    const result = await a.host.index(folder(), {
      full: true,
      onProgress: (p) => {
        if (checking || p.phase === 'done') return;
        const child = a.host.worker.pid!;
        // The job stops where it is (writer lock held, run unfinished) while this host searches.
        process.kill(child, 'SIGSTOP');
        checking = (async () => {
          try {
            const { hits } = await a.service.search('Resturlaub', { k: 5 });
            const cmdline = readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0');
            seen = { child, lock: lockHolder(storeDir), hits: hits.map((h) => h.hit.passage.path), busy: a.host.busy(), cmdline };
          } finally {
            process.kill(child, 'SIGCONT');
          }
        })();
      },
    });
    await checking;
    assert.ok(seen, 'the run reported progress');
    assert.ok(seen.child && seen.child !== process.pid, `the index job ran in pid ${seen.child}, not in the extension host (${process.pid})`);
    assert.equal(seen.lock, seen.child, 'the child holds the writer lock during the job');
    // The indexing process runs with the indexing node flags (small V8 semi-spaces), not the extension host's.
    assert.ok(seen.cmdline?.includes('--max-semi-space-size=2'), `indexing process command line: ${seen.cmdline?.join(' ')}`);
    assert.ok(seen.busy, 'the job was still going on while the search answered');
    assert.ok(seen.hits?.includes('docs/urlaub.md'), `search answered during the job: ${seen.hits?.join(', ')}`);
    assert.deepEqual(result.errors, []);
    assert.ok(result.files >= BULK_FILES, `documents: ${result.files}`);
    firstChunks = result.chunks;
    assert.equal(await (await a.host.engine(folder())).store.countPassages(), firstChunks);
  });

  it('reports a child killed during a reindex; the index still answers and the next run completes', async () => {
    const a = await api();
    await a.host.idle();
    let killed: number | undefined;
    const run = a.host.index(folder(), {
      full: true,
      onProgress: (p) => {
        if (killed || p.phase === 'done') return;
        killed = a.host.worker.pid!;
        process.kill(killed, 'SIGSTOP');
        process.kill(killed, 'SIGKILL');
      },
    });
    await assert.rejects(run, /indexing process killed by SIGKILL/);
    assert.ok(killed);
    assert.equal(a.host.state.kind, 'error', 'the crash is the host state (status bar)');
    assert.match(a.host.state.kind === 'error' ? a.host.state.message : '', /SIGKILL/);
    const report = await vscode.commands.executeCommand<string>('docsRag.status');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    assert.match(report ?? '', /indexing process killed by SIGKILL/);

    // The index opens and answers from what was committed.
    const { hits } = await a.service.search('Resturlaub', { k: 5 });
    assert.ok(hits.some((h) => h.hit.passage.path === 'docs/urlaub.md'), 'search answers after the crash');

    // The next run starts a new child and ends with exactly the passages of the first build; the crash leaves the status
    // once it is done. (A watcher update may start a run of its own beside it: the host is idle after both.)
    const runs: string[] = [];
    const sub = a.host.worker.onDidStartRun(({ what }) => runs.push(what));
    try {
      const again = await a.host.index(folder(), {});
      assert.notEqual(a.host.worker.pid, killed, 'a new indexing process');
      assert.deepEqual(again.errors, []);
      assert.notEqual(a.host.state.kind, 'error', 'the crash is no longer the state after a run completed');
      await a.host.idle();
      assert.equal(a.host.state.kind, 'idle', `runs started since the crash: ${runs.join('; ')}`);
    } finally {
      sub.dispose();
    }
    assert.equal(await (await a.host.engine(folder())).store.countPassages(), firstChunks);
  });
});
