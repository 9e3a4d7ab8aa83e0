// "Open original" hands a file to the operating system's viewer; the path comes from a URI anyone can build. The pure
// check (index/pathFilter originalFile) lets through only a regular file of a format the index reads, selected by the
// index's filter, whose real path (links resolved) stays inside the folder. Real files and links in a temp dir.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_EXCLUDE, DEFAULT_INCLUDE } from '../../src/rag/config';
import { createPathFilter, originalFile } from '../../src/rag/index/pathFilter';

describe('views: which original file may be opened', () => {
  let base: string;
  let folder: string;

  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-original-')));
    folder = path.join(base, 'folder');
    fs.mkdirSync(path.join(folder, 'docs'), { recursive: true });
    fs.mkdirSync(path.join(folder, 'node_modules'));
    fs.writeFileSync(path.join(folder, 'docs', 'report.pdf'), '%PDF-1.4\n');
    fs.writeFileSync(path.join(folder, 'run.sh'), '#!/bin/sh\n');
    fs.writeFileSync(path.join(folder, 'node_modules', 'x.pdf'), '%PDF-1.4\n');
    fs.writeFileSync(path.join(base, 'secret.pdf'), '%PDF-1.4\n');
    fs.symlinkSync(path.join(base, 'secret.pdf'), path.join(folder, 'leak.pdf'));
    fs.symlinkSync(path.join(folder, 'run.sh'), path.join(folder, 'disguised.pdf'));
    fs.symlinkSync('docs/report.pdf', path.join(folder, 'alias.pdf'));
    fs.mkdirSync(path.join(folder, 'dir.pdf'));
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  const check = (rel: string) => originalFile(folder, rel, createPathFilter(folder, { include: DEFAULT_INCLUDE, exclude: DEFAULT_EXCLUDE, useIgnoreFiles: true }));

  it('opens a document of the index, by its real path', () => {
    assert.deepEqual(check('docs/report.pdf'), { abs: path.join(folder, 'docs', 'report.pdf') });
    assert.deepEqual(check('docs/../docs/report.pdf'), { abs: path.join(folder, 'docs', 'report.pdf') });
    // A link inside the folder resolves to its target, which is opened.
    assert.deepEqual(check('alias.pdf'), { abs: path.join(folder, 'docs', 'report.pdf') });
  });

  it('refuses paths out of the folder, links out of it, kinds the index does not read, and what is not a file', () => {
    assert.deepEqual(check('../secret.pdf'), { refused: 'it is not inside the workspace folder' });
    assert.deepEqual(check(path.join(base, 'secret.pdf')), { refused: 'it is not inside the workspace folder' });
    assert.deepEqual(check('leak.pdf'), { refused: 'it is a link that leads out of the workspace folder' });
    assert.deepEqual(check('run.sh'), { refused: 'it is not a document the index reads' });
    assert.deepEqual(check('node_modules/x.pdf'), { refused: 'it is not a document the index reads' });
    assert.deepEqual(check('gone.pdf'), { refused: 'it does not exist' });
    assert.deepEqual(check('dir.pdf'), { refused: 'it is not a regular file' });
    // A .pdf name that is a link to a script: the real file is not a PDF of the folder's index.
    assert.ok('refused' in check('disguised.pdf'));
  });
});
