// Paths the globs select that are not readable files — a named pipe, a symbolic link that loops, a link to nothing —
// are never opened (a pipe would block the reader) and each gets a per-file reason that `status` shows, instead of
// vanishing silently. Real files, real FIFO and links, real indexer and LanceDB, the real CLI's status.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openEngine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';
import { runCliSource } from '../helpers/run';

describe('index: special files get a reason', function () {
  this.timeout(180_000);
  let base: string;
  let folder: string;

  before(function () {
    if (process.platform === 'win32') this.skip(); // no FIFOs or POSIX links to make there
  });
  beforeEach(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-special-'));
    folder = path.join(base, 'folder');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'note.md'), '# Note\n\nThe boiler is serviced every October.\n');
    execFileSync('mkfifo', [path.join(folder, 'pipe.md')]);
    fs.symlinkSync('loop-b.md', path.join(folder, 'loop-a.md'));
    fs.symlinkSync('loop-a.md', path.join(folder, 'loop-b.md'));
    fs.symlinkSync('missing.md', path.join(folder, 'dangling.md'));
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('a named pipe, a link loop and a dangling link are recorded as skipped with their reason, shown by status', async () => {
    const store = path.join(base, 'store');
    const engine = await openEngine({ folder, storeDir: store });
    let files;
    try {
      const result = await indexFolder(engine);
      assert.equal(result.files, 1);
      files = await engine.store.listFiles();
    } finally {
      await engine.close();
    }
    const reasons = Object.fromEntries(files.filter((r) => r.status !== 'indexed').map((r) => [r.path, `${r.status}: ${r.reason}`]));
    assert.deepEqual(reasons, {
      'dangling.md': 'skipped: a symbolic link to a file that does not exist; skipped',
      'loop-a.md': 'skipped: a symbolic link that loops (it leads back to itself); skipped',
      'loop-b.md': 'skipped: a symbolic link that loops (it leads back to itself); skipped',
      'pipe.md': 'skipped: not a regular file (a named pipe); skipped',
    });
    const status = await runCliSource(['status', '--folder', folder, '--store', store]);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /pipe\.md: not a regular file \(a named pipe\); skipped/);
    assert.match(status.stdout, /loop-a\.md: a symbolic link that loops/);
    // Once the pipe is a file, the next run indexes it.
    fs.rmSync(path.join(folder, 'pipe.md'));
    fs.writeFileSync(path.join(folder, 'pipe.md'), '# Pipe\n\nNow a plain note about the cellar pump.\n');
    const again = await openEngine({ folder, storeDir: store });
    try {
      await indexFolder(again);
      const pipe = (await again.store.listFiles()).find((r) => r.path === 'pipe.md');
      assert.equal(pipe?.status, 'indexed');
    } finally {
      await again.close();
    }
  });
});
