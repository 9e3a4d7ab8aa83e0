// One writer per store across processes: the lock file, concurrent `docs-rag index` runs, and the repair of a store that
// already holds duplicate passages (as two unlocked writers of an older version left it).
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as lancedb from '@lancedb/lancedb';
import { openEngine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';
import {
  WRITER_LOCK_FILE,
  FOREIGN_STALE_MS,
  WriterLockBusyError,
  acquireWriterLock,
  isAlive,
  processStartTime,
  readHolder,
} from '../../src/rag/index/writerLock';
import { explainStoreError } from '../../src/rag/store/errors';
import { ROOT, runCliBundle } from '../helpers/run';


function writeDocs(folder: string, n: number): void {
  for (let i = 0; i < n; i++) {
    const body = Array.from({ length: 12 }, (_, j) => `Paragraph ${j} of document ${i} talks about topic ${(i * 7 + j) % 13} and lock number ${i}.`).join('\n\n');
    fs.writeFileSync(path.join(folder, `doc-${i}.md`), `# Document ${i}\n\n## Part A\n\n${body}\n\n## Part B\n\n${body.toUpperCase()}\n`);
  }
}

const runCli = (args: string[]) => runCliBundle(args);

async function passageIds(storeDir: string): Promise<string[]> {
  const db = await lancedb.connect(storeDir);
  try {
    const table = await db.openTable('passages');
    const rows = await table.query().select(['id']).toArray();
    table.close();
    return rows.map((r) => String(r.id)).sort();
  } finally {
    db.close();
  }
}

describe('store errors: one sentence instead of LanceDB\'s raw text', () => {
  it('explains conflicts and missing parts with a next step, and keeps other messages', () => {
    const raw =
      "lance error: Retryable commit conflict for version 4: This CreateIndex transaction was preempted by concurrent transaction Append at version 4. Please retry., /usr/local/cargo/registry/src/lance-10.0.0/src/io/commit.rs:646:26";
    const conflict = explainStoreError(new Error(raw), '/x/.docs-rag');
    assert.match(conflict, /^Another writer changed the index \(\/x\/\.docs-rag\) .* run the command again\.$/);
    assert.doesNotMatch(conflict, /\.rs:|lance error/);
    const missing = explainStoreError(new Error("Table 'files' exists but could not be loaded: Dataset at path files.lance was not found, /a/b.rs:1:2"));
    assert.match(missing, /--full/);
    assert.equal(explainStoreError(new Error('folder not found: /nope')), 'folder not found: /nope');
  });
});

describe('writer lock: one writer per store across processes', function () {
  this.timeout(300_000);
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-wlock-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('is taken atomically, refused to a second taker while held, reclaimed from a dead holder', async () => {
    const store = path.join(tmp, 'store');
    const release = await acquireWriterLock(store, { purpose: 'test' });
    const holder = readHolder(store);
    assert.equal(holder?.pid, process.pid);
    assert.equal(holder?.procStart, processStartTime(process.pid));
    // The same store from another engine of this process waits too; with wait: false it is refused with the holder named.
    await assert.rejects(acquireWriterLock(store, { wait: false }), (err: unknown) => {
      assert.ok(err instanceof WriterLockBusyError);
      assert.match((err as Error).message, new RegExp(`pid ${process.pid}`));
      return true;
    });
    release();
    assert.equal(fs.existsSync(path.join(store, WRITER_LOCK_FILE)), false);

    // A lock left by a killed process is reclaimed.
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.once('exit', r));
    fs.writeFileSync(path.join(store, WRITER_LOCK_FILE), JSON.stringify({ pid: dead.pid, host: os.hostname(), since: 1, purpose: 'indexing' }));
    const again = await acquireWriterLock(store, { wait: false });
    assert.equal(readHolder(store)?.pid, process.pid);
    again();

    // A lock whose pid was reused by another process (other start time) is stale too.
    fs.writeFileSync(
      path.join(store, WRITER_LOCK_FILE),
      JSON.stringify({ pid: process.pid === 1 ? 2 : 1, procStart: 'not-the-start-time', host: os.hostname(), since: 1, purpose: 'indexing' }),
    );
    const third = await acquireWriterLock(store, { wait: false });
    third();
  });

  it('a lock of another host is taken over only once its holder stopped touching it; a holder touches its lock', async () => {
    const store = path.join(tmp, 'store');
    fs.mkdirSync(store);
    const lock = path.join(store, WRITER_LOCK_FILE);
    // Its pid may well exist here: another host's processes are never looked at, only the lock file's age.
    fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, host: `${os.hostname()}-elsewhere`, since: 1, purpose: 'indexing' }));
    await assert.rejects(acquireWriterLock(store, { wait: false }), (err: unknown) => {
      assert.ok(err instanceof WriterLockBusyError);
      assert.match((err as Error).message, /on .*-elsewhere.*taken over 2 minutes after its last sign of life/);
      return true;
    });
    const old = new Date(Date.now() - FOREIGN_STALE_MS - 60_000);
    fs.utimesSync(lock, old, old);
    const release = await acquireWriterLock(store, { wait: false, heartbeatMs: 50 });
    assert.equal(readHolder(store)?.host, os.hostname());
    // The new holder's heartbeat: its lock file's mtime moves forward again after being set back.
    fs.utimesSync(lock, old, old);
    const until = Date.now() + 10_000;
    while (fs.statSync(lock).mtimeMs < Date.now() - 5_000 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    assert.ok(fs.statSync(lock).mtimeMs > Date.now() - 5_000, 'the holder touched its lock');
    release();
    assert.equal(fs.existsSync(lock), false);
  });

  it('a live holder in another process makes a run wait (or fail with --no-wait), then the run completes', async () => {
    const folder = path.join(tmp, 'docs');
    fs.mkdirSync(folder);
    writeDocs(folder, 3);
    const store = path.join(tmp, 'store');
    // Another process takes the lock and holds it until told (a line on its stdin): no timing involved.
    const holder = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `const { acquireWriterLock } = require(${JSON.stringify(path.join(ROOT, 'src/rag/index/writerLock.ts'))});` +
          `acquireWriterLock(${JSON.stringify(store)}, { purpose: 'indexing' }).then((release) => { process.stdout.write('held\\n'); process.stdin.once('data', () => { release(); process.exit(0); }); });`,
      ],
      { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => holder.stdout.on('data', (d) => String(d).includes('held') && resolve()));
    const refused = await runCli(['index', folder, '--store', store, '--no-wait']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Another docs-rag process \(pid \d+, indexing since .*\) is writing this index/);
    // A run that may wait says so; the holder lets go once it does, and the run completes.
    const waiting = spawn(process.execPath, [path.join(ROOT, 'dist/cli.js'), 'index', folder, '--store', store, '--json'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    waiting.stdout.on('data', (d) => (stdout += d));
    waiting.stderr.on('data', (d) => {
      stderr += d;
      if (/waiting for it to finish/.test(stderr)) holder.stdin.write('go\n');
    });
    const code = await new Promise<number | null>((r) => waiting.once('exit', r));
    assert.equal(code, 0, stderr);
    assert.match(stderr, /waiting for it to finish/);
    assert.equal(JSON.parse(stdout.trim().split('\n').pop()!).files, 3);
    await new Promise((r) => (holder.exitCode === null ? holder.once('exit', r) : r(null)));
  });

  it('ten pairs of concurrent `docs-rag index` runs end with exactly the passages of a clean build, no raw LanceDB message', async () => {
    const folder = path.join(tmp, 'docs');
    fs.mkdirSync(folder);
    writeDocs(folder, 8);
    const clean = path.join(tmp, 'clean');
    const c = await runCli(['index', folder, '--store', clean, '--json']);
    assert.equal(c.code, 0, c.stderr);
    const cleanIds = await passageIds(clean);
    assert.ok(cleanIds.length > 30);
    for (let pair = 0; pair < 10; pair++) {
      const store = path.join(tmp, `store-${pair}`);
      const [a, b] = await Promise.all([
        runCli(['index', folder, '--store', store, '--json']),
        runCli(['index', folder, '--store', store, '--json']),
      ]);
      for (const r of [a, b]) {
        assert.equal(r.code, 0, `pair ${pair}: ${r.stderr}`);
        assert.doesNotMatch(r.stderr, /lance error|\.rs:\d+|commit conflict/i, `pair ${pair}: ${r.stderr}`);
      }
      assert.deepEqual(await passageIds(store), cleanIds, `pair ${pair}: passages differ from a clean build`);
      // The detached maintenance a run leaves works on in the store: it ends before the store goes.
      for (const r of [a, b]) {
        const pid = (JSON.parse(r.stdout.trim().split('\n').pop()!) as { backgroundMaintenance?: { pid?: number } }).backgroundMaintenance?.pid;
        for (let waited = 0; pid !== undefined && isAlive(pid) && waited < 120_000; waited += 100) await new Promise((res) => setTimeout(res, 100));
      }
      fs.rmSync(store, { recursive: true, force: true });
    }
  });

  it('`docs-rag index` runs beside a running `docs-rag mcp --watch` end with exactly the passages of a clean build', async () => {
    const folder = path.join(tmp, 'docs');
    fs.mkdirSync(folder);
    writeDocs(folder, 8);
    const store = path.join(tmp, 'store');
    // The server's catch-up run starts at once, together with the first `docs-rag index`.
    const server = spawn(process.execPath, [path.join(ROOT, 'dist/cli.js'), 'mcp', '--folder', folder, '--store', store, '--watch'], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let serverErr = '';
    server.stderr.on('data', (d) => (serverErr += d));
    server.stdout.resume();
    const cliErr: string[] = [];
    try {
      for (let round = 0; round < 5; round++) {
        if (round > 0) {
          // Changes the watcher sees (it runs after its 500 ms quiet time) while another `docs-rag index` runs.
          fs.appendFileSync(path.join(folder, `doc-${round}.md`), `\n## Round ${round}\n\nA new paragraph about watcher round ${round} and locks.\n`);
          fs.writeFileSync(path.join(folder, `new-${round}.md`), `# New ${round}\n\nA document added in round ${round} beside the watcher.\n`);
          if (round === 3) fs.rmSync(path.join(folder, 'doc-7.md'));
          await new Promise((r) => setTimeout(r, 450));
        }
        const r = await runCli(['index', folder, '--store', store, '--json']);
        cliErr.push(r.stderr);
        assert.equal(r.code, 0, `round ${round}: ${r.stderr}`);
      }
      // The catch-up run has happened (it always logs), so the two processes did write the same store.
      const deadline = Date.now() + 60_000;
      while (!/index updated/.test(serverErr) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.match(serverErr, /index updated/);
    } finally {
      server.stdin.end();
      await new Promise((r) => (server.exitCode === null ? server.once('exit', r) : r(null)));
    }
    for (const text of [serverErr, ...cliErr]) assert.doesNotMatch(text, /lance error|\.rs:\d+|commit conflict/i, text);
    const clean = path.join(tmp, 'clean');
    const c = await runCli(['index', folder, '--store', clean, '--json']);
    assert.equal(c.code, 0, c.stderr);
    assert.deepEqual(await passageIds(store), await passageIds(clean));
  });

  it('a store that already holds duplicate passages is repaired by the next run and says so', async () => {
    const folder = path.join(tmp, 'docs');
    fs.mkdirSync(folder);
    writeDocs(folder, 4);
    const store = path.join(tmp, 'store');
    let engine = await openEngine({ folder, storeDir: store });
    await indexFolder(engine);
    await engine.close();
    const cleanIds = await passageIds(store);
    // What two unlocked writers of an older version left behind: the same file's rows appended twice.
    const db = await lancedb.connect(store);
    const table = await db.openTable('passages');
    const dupes = await table.query().where("path = 'doc-1.md'").toArrow();
    assert.ok(dupes.numRows > 3);
    await table.add(dupes);
    table.close();
    db.close();
    assert.equal((await passageIds(store)).length, cleanIds.length + dupes.numRows);

    engine = await openEngine({ folder, storeDir: store });
    try {
      const r = await indexFolder(engine);
      assert.equal(r.recovered, true);
      assert.ok((r.repairedPassages ?? 0) >= dupes.numRows, `repaired ${r.repairedPassages}`);
      assert.ok(r.warnings?.some((w) => /duplicates/.test(w)));
    } finally {
      await engine.close();
    }
    assert.deepEqual(await passageIds(store), cleanIds);
  });
});

