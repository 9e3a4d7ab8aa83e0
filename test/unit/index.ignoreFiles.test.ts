// Ignore files (.gitignore, .ignore, .git/info/exclude) in the path filter, the walker, hinted runs and a real index.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_EXCLUDE, DEFAULT_INCLUDE } from '../../src/rag/config';
import { openEngine } from '../../src/rag/engine';
import { createIgnoreRules, ignoreFileMatters, isIgnoreFile, parentIgnoreFiles, parentIgnoreFolders } from '../../src/rag/index/ignoreFiles';
import { createPathFilter } from '../../src/rag/index/pathFilter';
import { indexFolder } from '../../src/rag/index/indexer';
import { statPaths, walkFolder } from '../../src/rag/index/walk';

function write(root: string, rel: string, text = 'x'): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

describe('index: ignore files', function () {
  this.timeout(120_000);
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-ignore-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  it('reads .gitignore and .ignore per folder, nearest rules first, as git does', () => {
    write(root, '.gitignore', 'build/\n*.log.md\n!keep.log.md\n/top-only.md\n');
    write(root, 'docs/.gitignore', 'draft-*.md\n!draft-final.md\n');
    write(root, 'docs/api/.ignore', 'generated/\n');
    write(root, 'site/.gitignore', '*\n!*/\n!index.md\n');
    const rules = createIgnoreRules(root);
    const ignored = (rel: string, isDir = false) => rules.ignored(rel, isDir);
    assert.equal(ignored('build', true), true);
    assert.equal(ignored('build/out.md'), true);
    assert.equal(ignored('docs/build/x.md'), true, 'a pattern without a slash applies at every depth');
    assert.equal(ignored('a.log.md'), true);
    assert.equal(ignored('docs/keep.log.md'), false, 'a negation in the same file keeps it');
    assert.equal(ignored('top-only.md'), true);
    assert.equal(ignored('docs/top-only.md'), false, 'a leading slash anchors the pattern at its own folder');
    assert.equal(ignored('docs/draft-1.md'), true);
    assert.equal(ignored('draft-1.md'), false, "a subfolder's rules do not reach above it");
    assert.equal(ignored('docs/draft-final.md'), false);
    assert.equal(ignored('docs/api/generated/ref.html'), true, '.ignore files count too');
    assert.equal(ignored('site/page.md'), true);
    assert.equal(ignored('site/index.md'), false, 'the nearest file decides: its negation wins over its own "*"');
    assert.equal(ignored('readme.md'), false);
    // Case as git's core.ignorecase: exact on Linux.
    if (process.platform === 'linux') assert.equal(ignored('Build', true), false);
  });

  it('keeps a file ignored when its folder is, whatever deeper rules say (git cannot re-include it either)', () => {
    write(root, '.gitignore', 'vendor/\n');
    write(root, 'vendor/.gitignore', '!important.md\n');
    const rules = createIgnoreRules(root);
    assert.equal(rules.ignored('vendor/important.md', false), true);
  });

  it('a folder inside a repository follows the ignore files above it up to the repository root, below its own', () => {
    // repo/.git, repo/.gitignore, repo/packages/.gitignore, repo/packages/docs = the folder opened alone.
    fs.mkdirSync(path.join(root, 'repo/.git/info'), { recursive: true });
    write(root, 'repo/.git/info/exclude', 'secret/\n');
    write(root, 'repo/.gitignore', '_build/\n*.tmp.md\n/packages/docs/top.md\n');
    write(root, 'repo/packages/.gitignore', 'docs/generated/\n');
    write(root, 'repo/packages/docs/.gitignore', '!keep.tmp.md\n');
    // Above the repository: never read.
    write(root, '.gitignore', '*.md\n');
    const folder = path.join(root, 'repo/packages/docs');
    assert.deepEqual(parentIgnoreFolders(folder), [path.join(root, 'repo'), path.join(root, 'repo/packages')]);
    assert.deepEqual(parentIgnoreFiles(folder), [
      path.join(root, 'repo/.git/info/exclude'), path.join(root, 'repo/.gitignore'), path.join(root, 'repo/.ignore'),
      path.join(root, 'repo/packages/.gitignore'), path.join(root, 'repo/packages/.ignore'),
    ]);
    const rules = createIgnoreRules(folder);
    const ignored = (rel: string, isDir = false) => rules.ignored(rel, isDir);
    assert.equal(ignored('_build', true), true, "the repository root's .gitignore");
    assert.equal(ignored('guide/_build/index.md'), true);
    assert.equal(ignored('generated', true), true, 'a .gitignore between the root and the folder');
    assert.equal(ignored('a.tmp.md'), true);
    assert.equal(ignored('keep.tmp.md'), false, "the folder's own negation wins over the rules above it");
    assert.equal(ignored('top.md'), true, 'a pattern anchored at the repository root');
    assert.equal(ignored('guide/top.md'), false);
    assert.equal(ignored('secret/plan.md'), true, "the repository's .git/info/exclude");
    assert.equal(ignored('readme.md'), false, 'nothing above the repository applies');
    // The repository root itself reads only its own files, as before; outside a repository nothing above is read.
    assert.deepEqual(parentIgnoreFolders(path.join(root, 'repo')), []);
    fs.mkdirSync(path.join(root, 'plain/docs'), { recursive: true });
    assert.deepEqual(parentIgnoreFolders(path.join(root, 'plain/docs')), []);
    assert.equal(createIgnoreRules(path.join(root, 'plain/docs')).ignored('readme.md', false), false);
    // A path filter without ignore files watches none.
    assert.deepEqual(createPathFilter(folder, { include: DEFAULT_INCLUDE, exclude: [], useIgnoreFiles: false }).parentIgnoreFiles, []);
    assert.equal(createPathFilter(folder, { include: DEFAULT_INCLUDE, exclude: [], useIgnoreFiles: true }).parentIgnoreFiles.length, 5);
  });

  it('a folder that the rules above it ignore was opened on purpose: those rules do not apply to it', () => {
    fs.mkdirSync(path.join(root, 'repo/.git'), { recursive: true });
    write(root, 'repo/.gitignore', 'site/\n*.html\n');
    const rules = createIgnoreRules(path.join(root, 'repo/site'));
    assert.equal(rules.ignored('index.md', false), false);
    assert.equal(rules.ignored('page.html', false), false, 'none of the rules above: the folder itself matched one');
    // Also when a folder between is ignored, whatever a deeper file re-includes (git would not).
    write(root, 'repo/.gitignore', 'vendor/\n*.html\n');
    write(root, 'repo/vendor/.gitignore', '!lib/\n');
    assert.equal(createIgnoreRules(path.join(root, 'repo/vendor/lib')).ignored('page.html', false), false);
    assert.equal(createIgnoreRules(path.join(root, 'repo/docs')).ignored('page.html', false), true, 'a folder not ignored follows them');
  });

  it('reads the repository-wide .git/info/exclude, below the folder\'s own .gitignore', () => {
    write(root, '.git/info/exclude', 'private/\nnotes.md\n');
    write(root, '.gitignore', '!notes.md\n');
    const rules = createIgnoreRules(root);
    assert.equal(rules.ignored('private/plan.md', false), true);
    assert.equal(rules.ignored('notes.md', false), false);
  });

  it('names the files whose change alters the selection', () => {
    for (const rel of ['.gitignore', 'docs/.gitignore', 'a/b/.ignore', '.git/info/exclude']) assert.equal(isIgnoreFile(rel), true, rel);
    for (const rel of ['gitignore.md', 'docs/.gitignore.md', '.git/config']) assert.equal(isIgnoreFile(rel), false, rel);
    // Only where the index can enter: a tool rewriting .venv/.gitignore or node_modules/x/.gitignore changes nothing indexed.
    write(root, '.gitignore', '.venv/\n');
    const filter = createPathFilter(root, { include: DEFAULT_INCLUDE, exclude: DEFAULT_EXCLUDE, useIgnoreFiles: true });
    const matters = (rel: string) => ignoreFileMatters(rel, (dir) => filter.entersDir(dir));
    for (const rel of ['.gitignore', 'docs/.gitignore', 'a/b/.ignore', '.git/info/exclude']) assert.equal(matters(rel), true, rel);
    for (const rel of ['node_modules/x/.gitignore', '.venv/.gitignore', '.venv/lib/.gitignore']) assert.equal(matters(rel), false, rel);
  });

  it('walkFolder and statPaths leave ignored files out only when asked to', async () => {
    for (const f of ['a.md', 'target/doc/index.html', 'docs/b.md', 'docs/generated/c.html', 'venv/lib/site/README.md']) write(root, f);
    write(root, '.gitignore', 'target/\nvenv/\n');
    write(root, 'docs/.gitignore', 'generated/\n');
    const base = { include: DEFAULT_INCLUDE, exclude: DEFAULT_EXCLUDE };
    assert.deepEqual((await walkFolder(root, { ...base, useIgnoreFiles: true })).map((e) => e.path), ['a.md', 'docs/b.md']);
    assert.deepEqual((await walkFolder(root, base)).map((e) => e.path), ['a.md', 'docs/b.md', 'docs/generated/c.html', 'target/doc/index.html', 'venv/lib/site/README.md']);
    const hinted = await statPaths(root, ['target/doc/index.html', 'docs', 'a.md'], { ...base, useIgnoreFiles: true });
    assert.deepEqual(hinted.entries.map((e) => e.path), ['a.md', 'docs/b.md']);
    assert.ok(hinted.scope.has('target/doc/index.html'), 'a hinted path that is now ignored stays in scope, so its record is removed');
  });

  it('a real index leaves ignored documents out, drops them when a rule is added and takes them back when it goes', async () => {
    write(root, 'guide.md', '# Guide\n\nThe release checklist names every step before a tag is pushed.\n');
    write(root, 'build/site/guide.html', '<html><body><h1>Guide</h1><p>The release checklist names every step before a tag is pushed.</p></body></html>');
    write(root, 'notes/ideas.md', '# Ideas\n\nA quarterly retrospective of the release checklist.\n');
    write(root, '.gitignore', 'build/\n');
    const engine = await openEngine({ folder: root });
    try {
      const first = await indexFolder(engine);
      assert.equal(first.added, 2);
      assert.equal(first.ignored, 1, 'build/ counted once, as a folder');
      const paths = async () => (await engine.store.listFiles()).map((f) => f.path).sort();
      assert.deepEqual(await paths(), ['guide.md', 'notes/ideas.md']);

      write(root, '.gitignore', 'build/\nnotes/\n');
      const second = await indexFolder(engine);
      assert.equal(second.removed, 1);
      assert.equal(second.ignored, 2);
      assert.equal((await indexFolder(engine, { paths: ['notes'] })).ignored, undefined, 'a hinted run does not count');
      assert.equal(engine.store.meta()?.lastRun?.ignored, 2, "the index keeps the last walk's count across hinted runs");
      assert.deepEqual(await paths(), ['guide.md']);

      fs.rmSync(path.join(root, '.gitignore'));
      const third = await indexFolder(engine);
      assert.equal(third.added, 2);
      assert.equal(third.ignored, undefined);
      assert.equal(engine.store.meta()?.lastRun?.ignored, undefined);
      assert.deepEqual(await paths(), ['build/site/guide.html', 'guide.md', 'notes/ideas.md']);
    } finally {
      await engine.close();
    }
    const off = await openEngine({ folder: root, storeDir: path.join(root, '.docs-rag-off'), config: { ingest: { useIgnoreFiles: false } } });
    try {
      write(root, '.gitignore', '*.md\n');
      await indexFolder(off);
      assert.deepEqual((await off.store.listFiles()).map((f) => f.path).sort(), ['build/site/guide.html', 'guide.md', 'notes/ideas.md'], 'useIgnoreFiles: false indexes everything');
    } finally {
      await off.close();
    }
  });

  it('docs-rag index honours ignore files unless --no-ignore-files', () => {
    write(root, 'docs/a.md', '# A\n\nErster Text.\n');
    write(root, 'site/a.html', '<p>Erster Text, erzeugt.</p>');
    write(root, '.gitignore', 'site/\n');
    const cli = (store: string, ...flags: string[]) => {
      const r = spawnSync(process.execPath, ['--import', 'tsx', path.resolve(__dirname, '../../src/cli.ts'), 'index', root, '--store', path.join(root, store), '--json', ...flags], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      return JSON.parse(r.stdout.trim().split('\n').pop()!) as { files: number; updated: number; removed: number };
    };
    const pick = (r: { files: number; updated: number; removed: number }) => [r.files, r.updated, r.removed];
    assert.equal(cli('.store-a').files, 1);
    assert.equal(cli('.store-b', '--no-ignore-files').files, 2);
    // The index records it: a run without the flag keeps both documents; --ignore-files honours the rules again.
    assert.deepEqual(pick(cli('.store-b')), [2, 0, 0]);
    assert.deepEqual(pick(cli('.store-b', '--ignore-files')), [1, 0, 1]);
    // The summary says what was left out, and what to do about it.
    const human = spawnSync(process.execPath, ['--import', 'tsx', path.resolve(__dirname, '../../src/cli.ts'), 'index', root, '--store', path.join(root, '.store-c')], { encoding: 'utf8' });
    assert.match(human.stdout, /1 document or folder was left out by \.gitignore \/ \.ignore files \(--no-ignore-files indexes them too\)\./);
    const status = spawnSync(process.execPath, ['--import', 'tsx', path.resolve(__dirname, '../../src/cli.ts'), 'status', '--folder', root, '--store', path.join(root, '.store-c')], { encoding: 'utf8' });
    assert.match(status.stdout, /Left out by \.gitignore \/ \.ignore files at the last walk: 1 document\(s\) and folder\(s\)/);
  });
});
