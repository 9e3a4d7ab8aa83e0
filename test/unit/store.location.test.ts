// The folder's own store (<folder>/.docs-rag) comes with the folder: when it is a symbolic link (`ln -s ../other
// folder/.docs-rag`) indexing must not write through it into another folder. A store named with --store is the user's
// choice and stays allowed. The real CLI in a child process, real files and links.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runCliSource } from '../helpers/run';
import { checkDefaultStore, StoreLocationError } from '../../src/rag/store/location';
import { openEngine } from '../../src/rag/engine';

describe('store location: a .docs-rag link out of the folder', function () {
  this.timeout(180_000);
  let base: string;
  let folder: string;
  let other: string;

  beforeEach(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-storelink-'));
    folder = path.join(base, 'folder');
    other = path.join(base, 'other');
    fs.mkdirSync(folder);
    fs.mkdirSync(other);
    fs.writeFileSync(path.join(folder, 'note.md'), '# Note\n\nThe boiler is serviced every October.\n');
    fs.writeFileSync(path.join(other, 'meta.json'), '{"mine": true}\n');
    fs.symlinkSync('../other', path.join(folder, '.docs-rag'));
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  const listing = (dir: string) => fs.readdirSync(dir).sort();

  it('`docs-rag index folder` is refused with a clear error and other/ is untouched', async () => {
    const r = await runCliSource(['index', folder, '--json']);
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, /\.docs-rag is a symbolic link to .*other, outside the folder.*--store DIR/);
    assert.deepEqual(listing(other), ['meta.json']);
    assert.equal(fs.readFileSync(path.join(other, 'meta.json'), 'utf8'), '{"mine": true}\n');
    const s = await runCliSource(['status', '--folder', folder]);
    assert.equal(s.code, 1);
    assert.match(s.stderr, /symbolic link/);
  });

  it('the engine refuses the linked default store too; an explicit --store is used as given', async () => {
    await assert.rejects(openEngine({ folder }), StoreLocationError);
    assert.deepEqual(listing(other), ['meta.json']);
    const chosen = path.join(base, 'chosen');
    fs.symlinkSync(path.join(base, 'chosen-target'), chosen);
    fs.mkdirSync(path.join(base, 'chosen-target'));
    fs.rmSync(path.join(folder, '.docs-rag'));
    const r = await runCliSource(['index', folder, '--store', chosen, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(fs.existsSync(path.join(base, 'chosen-target', 'meta.json')));
  });

  it('a link inside the store (e.g. its meta.json pointing out) is refused as well; a plain store passes', () => {
    fs.rmSync(path.join(folder, '.docs-rag'));
    fs.mkdirSync(path.join(folder, '.docs-rag'));
    assert.doesNotThrow(() => checkDefaultStore(folder, path.join(folder, '.docs-rag')));
    fs.symlinkSync(path.join(other, 'meta.json'), path.join(folder, '.docs-rag', 'meta.json'));
    assert.throws(() => checkDefaultStore(folder, path.join(folder, '.docs-rag')), /holds a symbolic link \(meta\.json\)/);
  });
});
