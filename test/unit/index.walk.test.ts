import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_EXCLUDE, DEFAULT_INCLUDE } from '../../src/rag/config';
import { planChanges } from '../../src/rag/index/plan';
import { hashFile } from '../../src/rag/index/fileHash';
import { statPaths, walkFolder } from '../../src/rag/index/walk';
import { WriteQueue } from '../../src/rag/index/writeQueue';
import type { FileRecord } from '../../src/rag/store/types';

function write(root: string, rel: string, text = 'x'): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

describe('index: walk, plan, write queue', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-walk-'));
    for (const f of ['a.md', 'docs/b.PDF', 'docs/deep/c.docx', 'notes.txt', 'code.ts', 'node_modules/x/readme.md', '.git/d.md', '.docs-rag/e.md', 'store/f.md', 'drafts/g.md'])
      write(root, f);
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('walks included files with relative "/" paths, skipping excluded folders and the store wherever it is', async () => {
    const entries = await walkFolder(root, { include: DEFAULT_INCLUDE, exclude: [...DEFAULT_EXCLUDE, 'drafts/**'], storeDir: path.join(root, 'store') });
    assert.deepEqual(entries.map((e) => e.path), ['a.md', 'docs/b.PDF', 'docs/deep/c.docx', 'notes.txt']);
    assert.equal(entries[0].size, 1);
    assert.ok(entries[0].mtimeMs > 0);
    assert.equal(entries[2].abs, path.join(root, 'docs', 'deep', 'c.docx'));
  });

  it('statPaths looks only at the hinted files and folders', async () => {
    const o = { include: DEFAULT_INCLUDE, exclude: DEFAULT_EXCLUDE };
    const { entries, scope } = await statPaths(root, ['a.md', path.join(root, 'docs'), 'gone.md', 'node_modules/x/readme.md'], o);
    assert.deepEqual(entries.map((e) => e.path), ['a.md', 'docs/b.PDF', 'docs/deep/c.docx']);
    assert.ok(scope.has('gone.md') && scope.has('docs'));
  });

  it('plans add / update / remove / unchanged from size and mtime, and scopes removals to the hint', async () => {
    const walked = await walkFolder(root, { include: DEFAULT_INCLUDE, exclude: DEFAULT_EXCLUDE, storeDir: path.join(root, '.docs-rag') });
    const rec = (p: string, over: Partial<FileRecord> = {}): FileRecord => {
      const e = walked.find((w) => w.path === p);
      return { path: p, size: e?.size ?? 1, mtimeMs: e?.mtimeMs ?? 1, hash: 'h', status: 'indexed', reason: '', passages: 1, pipelineKey: 'builtin:m', indexedAt: 0, ...over };
    };
    const records = [rec('a.md'), rec('notes.txt', { size: 99 }), rec('docs/b.PDF', { pipelineKey: 'ollama:x' }), rec('old.md'), rec('store/f.md')];
    const plan = planChanges(walked, records, { pipelineKey: 'builtin:m' });
    assert.deepEqual(plan.add.map((c) => c.entry.path), ['docs/deep/c.docx', 'drafts/g.md']);
    assert.deepEqual(plan.update.map((c) => c.entry.path).sort(), ['docs/b.PDF', 'notes.txt']);
    assert.deepEqual(plan.unchanged.map((r) => r.path).sort(), ['a.md', 'store/f.md']);
    assert.deepEqual(plan.remove, ['old.md']);
    assert.equal(planChanges(walked, records, { pipelineKey: 'builtin:m', full: true }).unchanged.length, 0);
    const scoped = planChanges([], records, { pipelineKey: 'builtin:m', scope: new Set(['docs']) });
    assert.deepEqual(scoped.remove, ['docs/b.PDF']);
  });

  it('hashFile is the sha256 of the content', async () => {
    write(root, 'h.txt', 'hello');
    assert.equal(await hashFile(path.join(root, 'h.txt')), '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824');
  });

  it('the write queue runs jobs one at a time, in order, and survives a failing job', async () => {
    const q = new WriteQueue();
    const log: string[] = [];
    const job = (name: string, ms: number, fail = false) => () =>
      new Promise<string>((resolve, reject) => {
        log.push(`start ${name}`);
        setTimeout(() => {
          log.push(`end ${name}`);
          if (fail) reject(new Error(name));
          else resolve(name);
        }, ms);
      });
    const results = await Promise.allSettled([q.run(job('run', 30)), q.run(job('watch', 5, true)), q.run(job('optimize', 1))]);
    assert.deepEqual(log, ['start run', 'end run', 'start watch', 'end watch', 'start optimize', 'end optimize']);
    assert.equal(results[1].status, 'rejected');
    assert.equal(results[2].status, 'fulfilled');
    await q.idle();
    assert.equal(q.pending, 0);
  });
});
