import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { DEFAULT_EXCLUDE, DEFAULT_INCLUDE } from '../../src/rag/config';
import { containedRelPath, createPathFilter } from '../../src/rag/index/pathFilter';

describe('index: the shared path filter (walker and watcher)', () => {
  const root = path.resolve('/tmp/ws');
  const filter = createPathFilter(root, { include: DEFAULT_INCLUDE, exclude: [...DEFAULT_EXCLUDE, 'drafts/**'], storeDir: path.join(root, 'store') });

  it('matches include globs case-insensitively, honours excludes and the store folder', () => {
    for (const rel of ['Report.PDF', 'docs/Guide.MD', 'a.md', 'v1.2/notes.txt']) assert.ok(filter.accepts(rel), rel);
    for (const rel of ['code.ts', 'node_modules/x/readme.md', '.git/a.md', 'store/f.md', 'drafts/g.md']) assert.ok(!filter.accepts(rel), rel);
    assert.ok(filter.entersDir('v1.2') && filter.entersDir('docs'));
    assert.ok(!filter.entersDir('node_modules') && !filter.entersDir('store') && !filter.entersDir('drafts'));
  });

  it('containedRelPath normalises ".." and refuses paths that leave the folder', () => {
    assert.equal(containedRelPath('docs/../ArbZG.docx'), 'ArbZG.docx');
    assert.equal(containedRelPath('./a.pdf'), 'a.pdf');
    for (const sep of ['/', '\\']) {
      for (const bad of ['../secret.pdf', 'docs/../../secret.pdf', '/etc/passwd', 'C:/x.pdf', '', '.', 'docs/..', 'a\0b']) {
        assert.equal(containedRelPath(bad, sep), undefined, JSON.stringify(bad));
      }
    }
    // Windows: '\' separates, so it is normalised and cannot climb out either.
    assert.equal(containedRelPath('docs\\sub\\a.pdf', '\\'), 'docs/sub/a.pdf');
    assert.equal(containedRelPath('..\\..\\etc\\passwd', '\\'), undefined);
  });

  it('containedRelPath keeps a POSIX name with a backslash as that name (the index stores it so)', () => {
    assert.equal(containedRelPath('back\\slash.md', '/'), 'back\\slash.md');
    // One name, inside the folder: no way out through it.
    assert.equal(containedRelPath('..\\..\\etc\\passwd', '/'), '..\\..\\etc\\passwd');
  });
});
