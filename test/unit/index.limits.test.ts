// Files refused by a limit (too large for maxFileSizeMB, over the parseTimeoutMs deadline) are retried when that setting
// changes, and only then: the message tells the user to raise the limit, so raising it must work without touching the file.
// Real loaders, real parser workers, real LanceDB.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openEngine } from '../../src/rag/engine';
import { indexFolder, type IndexRunResult } from '../../src/rag/index/indexer';
import { textBombPdf } from '../slow/textBombPdf';

describe('indexer: records refused by a limit are retried when the limit changes', function () {
  this.timeout(300_000);
  let base: string;
  let folder: string;

  beforeEach(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-limits-'));
    folder = path.join(base, 'folder');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'small.md'), '# Small\n\nA short note about the holiday rota.\n');
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  async function run(ingest: Record<string, number>): Promise<IndexRunResult> {
    const engine = await openEngine({ folder, storeDir: path.join(base, 'store'), config: { ingest } });
    try {
      return await indexFolder(engine);
    } finally {
      await engine.close();
    }
  }

  it('a too-large file is indexed after maxFileSizeMB is raised (and skipped as unchanged while it is not)', async () => {
    // ~20 kB of Markdown against a limit of ~10 kB.
    const para = 'The large handbook explains the vacation policy in detail, section after section. ';
    fs.writeFileSync(path.join(folder, 'large.md'), `# Large handbook\n\n${Array.from({ length: 40 }, () => para.repeat(6)).join('\n\n')}\n`);
    const first = await run({ maxFileSizeMB: 0.01 });
    assert.deepEqual(first.errors.map((e) => e.path), ['large.md']);
    assert.match(first.errors[0].reason, /larger than the limit of 0\.01 MB; skipped \(raise maxFileSizeMB/);
    const same = await run({ maxFileSizeMB: 0.01 });
    assert.equal(same.unchanged, 2);
    assert.equal(same.errors.length, 1);
    const raised = await run({ maxFileSizeMB: 1 });
    assert.deepEqual(raised.errors, []);
    assert.equal(raised.files, 2);
    assert.equal(raised.updated, 1);
    assert.equal(raised.unchanged, 1);
  });

  it('a timed-out file is parsed again after parseTimeoutMs changes (and not while it is the same)', async () => {
    // Seconds of synchronous pdf.js work on any machine: far past deadlines of 0.1 s and 0.3 s.
    // Alone in the folder: such short deadlines also count the parser worker's start-up.
    fs.rmSync(path.join(folder, 'small.md'));
    fs.writeFileSync(path.join(folder, 'slow.pdf'), textBombPdf(6_000_000));
    const first = await run({ parseTimeoutMs: 100 });
    assert.deepEqual(first.errors, [{ path: 'slow.pdf', reason: 'parsing took longer than 0.1 s; skipped' }]);
    const same = await run({ parseTimeoutMs: 100 });
    assert.equal(same.unchanged, 1, 'a timed-out file is not parsed again under the same deadline');
    assert.equal(same.errors[0].reason, 'parsing took longer than 0.1 s; skipped');
    const changed = await run({ parseTimeoutMs: 300 });
    assert.equal(changed.unchanged, 0, 'the timed-out file is retried under the new deadline');
    assert.deepEqual(changed.errors, [{ path: 'slow.pdf', reason: 'parsing took longer than 0.3 s; skipped' }]);
    // The other limit changing does not retry it.
    const other = await run({ parseTimeoutMs: 300, maxFileSizeMB: 40 });
    assert.equal(other.unchanged, 1);
  });
});
