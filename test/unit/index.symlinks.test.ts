// Symbolic links: a link that leaves the folder must not bring an outside file into the index (and so into prompts) unless
// the user allows it (ingest.followExternalSymlinks / docsRag.index.followExternalSymlinks / --follow-external-symlinks).
// Links that stay inside the folder keep working. Real files, real links, real LanceDB.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_EXCLUDE, DEFAULT_INCLUDE } from '../../src/rag/config';
import { openEngine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';
import { statPaths, walkFolder } from '../../src/rag/index/walk';
import type { LanceStore } from '../../src/rag/store/lanceStore';

const o = { include: DEFAULT_INCLUDE, exclude: DEFAULT_EXCLUDE };

describe('index: symbolic links out of the folder', function () {
  this.timeout(120_000);
  let base: string;
  let root: string;
  let outside: string;

  beforeEach(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-links-'));
    root = path.join(base, 'folder');
    outside = path.join(base, 'private');
    fs.mkdirSync(path.join(root, 'docs'), { recursive: true });
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(root, 'docs/own.md'), '# Own notes\n\nThe team meets on Mondays to plan the sprint.\n');
    fs.writeFileSync(path.join(outside, 'secret.md'), '# Secret\n\nThe vault combination is zebra-kumquat-42.\n');
    fs.writeFileSync(path.join(outside, 'other.md'), '# Other\n\nAnother private zebra-kumquat note.\n');
    fs.symlinkSync(path.join(outside, 'secret.md'), path.join(root, 'secret-link.md'));
    fs.symlinkSync(outside, path.join(root, 'private-dir'));
    // Inside links: relative and absolute, to a file of the folder.
    fs.symlinkSync('docs/own.md', path.join(root, 'own-link.md'));
    fs.symlinkSync(path.join(root, 'docs/own.md'), path.join(root, 'docs/abs-link.md'));
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('the walk skips links that leave the folder and keeps links inside it', async () => {
    const entries = await walkFolder(root, o);
    assert.deepEqual(entries.map((e) => e.path), ['docs/abs-link.md', 'docs/own.md', 'own-link.md']);
    const all = await walkFolder(root, { ...o, followExternalSymlinks: true });
    assert.deepEqual(all.map((e) => e.path), ['docs/abs-link.md', 'docs/own.md', 'own-link.md', 'secret-link.md']);
  });

  it('watcher hints through a link out of the folder (the link, a linked folder, a file under it) find nothing', async () => {
    const hinted = await statPaths(root, ['secret-link.md', 'private-dir', 'private-dir/other.md', 'own-link.md'], o);
    assert.deepEqual(hinted.entries.map((e) => e.path), ['own-link.md']);
    const allowed = await statPaths(root, ['secret-link.md', 'private-dir/other.md'], { ...o, followExternalSymlinks: true });
    assert.deepEqual(allowed.entries.map((e) => e.path), ['private-dir/other.md', 'secret-link.md']);
  });

  it('an index run (full and hinted) never stores an outside file unless followExternalSymlinks is set', async () => {
    const engine = await openEngine({ folder: root, storeDir: path.join(base, 'store') });
    try {
      const r = await indexFolder(engine);
      assert.deepEqual(r.errors, []);
      assert.deepEqual((await engine.store.listFiles()).map((f) => f.path).sort(), ['docs/abs-link.md', 'docs/own.md', 'own-link.md']);
      await indexFolder(engine, { paths: ['secret-link.md', 'private-dir/other.md'] });
      const texts = (await (engine.store as LanceStore).scanPassages()).map((p) => p.text).join('\n');
      assert.ok(!texts.includes('zebra-kumquat'), 'an outside file reached the index');
      assert.ok(texts.includes('meets on Mondays'));
    } finally {
      await engine.close();
    }
    const allowed = await openEngine({ folder: root, storeDir: path.join(base, 'store'), config: { ingest: { followExternalSymlinks: true } } });
    try {
      await indexFolder(allowed);
      assert.ok((await allowed.store.listFiles()).some((f) => f.path === 'secret-link.md'));
    } finally {
      await allowed.close();
    }
  });

  it('docs-rag index follows outside links only with --follow-external-symlinks', () => {
    const cli = (store: string, ...flags: string[]) => {
      const r = spawnSync(process.execPath, ['--import', 'tsx', path.resolve(__dirname, '../../src/cli.ts'), 'index', root, '--store', path.join(base, store), '--json', ...flags], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(r.stdout.trim().split('\n').pop()!) as { files: number };
    };
    assert.equal(cli('plain').files, 3);
    assert.equal(cli('follow', '--follow-external-symlinks').files, 4);
  });
});
