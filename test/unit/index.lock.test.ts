import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openEngine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';
import { readMeta, writeMeta } from '../../src/rag/store/meta';
import { WRITER_LOCK_FILE, processStartTime } from '../../src/rag/index/writerLock';

describe('indexer: one run per index across processes, recovery after a killed run', function () {
  this.timeout(120_000);
  let folder: string;
  beforeEach(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-lock-'));
    fs.writeFileSync(path.join(folder, 'a.md'), '# A\n\nSome text about locks and crash recovery in an index.\n');
  });
  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('refuses to run while another live process is indexing, and repairs after a dead one', async () => {
    const engine = await openEngine({ folder });
    try {
      await indexFolder(engine);
      const store = engine.storeDir;
      const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
      try {
        // A live process holds the writer lock: a run that may not wait is refused, naming it.
        fs.writeFileSync(
          path.join(store, WRITER_LOCK_FILE),
          JSON.stringify({ pid: other.pid, procStart: processStartTime(other.pid!), host: os.hostname(), since: Date.now(), purpose: 'indexing' }),
        );
        writeMeta(store, { ...readMeta(store)!, runInProgress: { startedAt: Date.now(), pid: other.pid! } });
        await assert.rejects(indexFolder(engine, { wait: false }), /Another docs-rag process \(pid \d+, indexing since .*\) is writing this index/);
      } finally {
        other.kill('SIGKILL');
        await new Promise((r) => other.once('exit', r));
      }
      // The other process is gone: its mark means it was killed, so this run repairs first.
      const r = await indexFolder(engine);
      assert.equal(r.recovered, true);
      assert.equal(r.files, 1);
      assert.equal(readMeta(store)?.runInProgress, undefined);
      const again = await indexFolder(engine);
      assert.equal(again.recovered, undefined);
    } finally {
      await engine.close();
    }
  });
});
