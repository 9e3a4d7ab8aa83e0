// `docs-rag status` tells how to repair or complete an index with a command: that command must name the same store as
// the status command did, or it would build a second index elsewhere. Real CLI, real LanceDB.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openEngine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';
import { readMeta, writeMeta } from '../../src/rag/store/meta';
import { SCHEMA_VERSION } from '../../src/rag/store';
import { shellWord } from '../../src/rag/text/printable';
import { runCliSource } from '../helpers/run';

describe('docs-rag status: repair hints carry the flags used', function () {
  this.timeout(180_000);
  let base: string;

  beforeEach(() => (base = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-hints-'))));
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('after a killed run with --store, the repair hint names that store', async () => {
    const folder = path.join(base, 'my docs');
    const store = path.join(base, 'elsewhere');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'note.md'), '# Note\n\nThe boiler is serviced every October.\n');
    const engine = await openEngine({ folder, storeDir: store });
    try {
      await indexFolder(engine);
    } finally {
      await engine.close();
    }
    // A run that died: its mark stays in meta.json with the pid of a process that is gone.
    const gone = spawnSync(process.execPath, ['-e', 'process.pid']).pid!;
    writeMeta(store, { ...readMeta(store)!, runInProgress: { startedAt: Date.now(), pid: gone } });
    const r = await runCliSource(['status', '--folder', folder, '--store', store]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.includes(`The next run repairs the index: docs-rag index '${folder}' --store ${store}`), r.stdout);
    const missing = await runCliSource(['status', '--folder', folder, '--store', path.join(base, 'none')]);
    assert.ok(missing.stderr.includes(`Build it with: docs-rag index '${folder}' --store ${path.join(base, 'none')}`), missing.stderr);
  });

  it('an index written by another schema version: status says so with the rebuild command, search with the same', async () => {
    const folder = path.join(base, 'docs');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'note.md'), '# Note\n\nThe boiler is serviced every October.\n');
    const engine = await openEngine({ folder });
    try {
      await indexFolder(engine);
    } finally {
      await engine.close();
    }
    const store = path.join(folder, '.docs-rag');
    writeMeta(store, { ...readMeta(store)!, schemaVersion: SCHEMA_VERSION - 1 });
    const status = await runCliSource(['status', '--folder', folder]);
    assert.equal(status.code, 0, status.stderr);
    assert.ok(status.stdout.includes(`Written by another version of Docs RAG: searched as empty until the next run rebuilds it: docs-rag index ${folder}`), status.stdout);
    const json = await runCliSource(['status', '--folder', folder, '--json']);
    assert.equal(JSON.parse(json.stdout).schemaOutdated, true);
    const search = await runCliSource(['search', 'boiler', '--folder', folder]);
    assert.equal(search.code, 1);
    assert.ok(search.stderr.includes(`was written by another version of Docs RAG. Rebuild it: docs-rag index ${folder}`), search.stderr);
    const rebuilt = await runCliSource(['index', folder, '--json']);
    assert.equal(rebuilt.code, 0, rebuilt.stderr);
    const found = await runCliSource(['search', 'boiler', '--folder', folder]);
    assert.equal(found.code, 0, found.stderr);
    assert.ok(found.stdout.includes('note.md'), found.stdout);
  });

  it('without --folder, search and status use the index of the working folder or the nearest folder above it', async () => {
    const folder = path.join(base, 'my docs');
    const sub = path.join(folder, 'deep', 'er');
    fs.mkdirSync(sub, { recursive: true });
    fs.writeFileSync(path.join(folder, 'note.md'), '# Note\n\nThe boiler is serviced every October.\n');
    // Nothing indexed yet: no folder to fall back on, and the error says how to get one.
    const none = await runCliSource(['search', 'boiler'], undefined, sub);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /--folder <folder> is required: .* hold no index \(docs-rag index <folder> builds one\)/);
    // A hint names a folder with a space as one shell word.
    const missing = await runCliSource(['search', 'boiler', '--folder', folder]);
    assert.equal(missing.code, 1);
    assert.ok(missing.stderr.includes(`Build it first: docs-rag index '${folder}'\n`), missing.stderr);
    assert.equal((await runCliSource(['index', folder, '--json'])).code, 0);
    const found = await runCliSource(['search', 'boiler', '--json'], undefined, sub);
    assert.equal(found.code, 0, found.stderr);
    assert.equal(JSON.parse(found.stdout).results[0].path, 'note.md');
    const status = await runCliSource(['status', '--json'], undefined, folder);
    assert.equal(status.code, 0, status.stderr);
    assert.equal(JSON.parse(status.stdout).folder, folder);
    assert.ok(JSON.parse(status.stdout).passages.total > 0, status.stdout);
    // --store names no folder: the folder must be given.
    const store = await runCliSource(['search', 'boiler', '--store', path.join(folder, '.docs-rag')], undefined, sub);
    assert.equal(store.code, 2);
    assert.match(store.stderr, /--folder <folder> is required/);
  });

  it('status groups the digits of its counts (a large index is read at a glance); --json keeps plain numbers', async () => {
    const folder = path.join(base, 'big');
    fs.mkdirSync(folder);
    const sections = Array.from({ length: 1100 }, (_, i) => `## Section ${i}\n\nThe clause number ${i} sets rule ${i * 7}.\n`).join('\n');
    fs.writeFileSync(path.join(folder, 'rules.md'), `# Rules\n\n${sections}`);
    assert.equal((await runCliSource(['index', folder, '--json'])).code, 0);
    const json = JSON.parse((await runCliSource(['status', '--folder', folder, '--json'])).stdout);
    assert.ok(json.passages.total >= 1000, `${json.passages.total} passages`);
    const text = await runCliSource(['status', '--folder', folder]);
    assert.equal(text.code, 0, text.stderr);
    assert.ok(text.stdout.includes(`Passages: ${json.passages.total.toLocaleString('en')} (`), text.stdout);
    assert.match(text.stdout, /Passages: \d{1,3}(,\d{3})+ \(/);
  });

  it('paths become one shell word each', () => {
    assert.equal(shellWord('/tmp/plain-path_1.x'), '/tmp/plain-path_1.x');
    assert.equal(shellWord("/tmp/it's here"), `'/tmp/it'\\''s here'`);
    assert.equal(shellWord('/tmp/$(rm -rf ~)'), `'/tmp/$(rm -rf ~)'`);
  });
});
