// An Office decompression bomb (an 8 MB .xlsx whose parts unpack to 1 GiB of zeros each) is one file's reason, not the
// end of the run: the real CLI indexes the folder in a child process, the other files are searchable, the bomb is
// reported, and what the bomb adds to the child's peak resident memory stays far below what unpacking it would take.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { constants as zlibConstants, createDeflateRaw, inflateRawSync } from 'node:zlib';
import { ROOT, runCliBundle } from '../helpers/run';
import { openZip, ZIP_LIMITS } from '../../src/rag/ingest/officeZip';
import { LoadError } from '../../src/rag/types';

const GiB = 1024 * 1024 * 1024;

/**
 * Raw DEFLATE of `size` zero bytes (a multiple of 16 MiB), built cheaply: 16 MiB of zeros deflated into non-final blocks
 * that end in a full flush (byte-aligned, no reference before their start) can be repeated as often as wanted, and the
 * stream's final empty block closes it.
 */
async function deflatedZeros(size: number): Promise<Buffer> {
  const z = createDeflateRaw({ level: 9 });
  const parts: Buffer[] = [];
  z.on('data', (d: Buffer) => parts.push(d));
  z.write(Buffer.alloc(16 * 1024 * 1024));
  await new Promise<void>((resolve) => z.flush(zlibConstants.Z_FULL_FLUSH, () => resolve()));
  const block = Buffer.concat(parts.splice(0));
  await new Promise((resolve, reject) => (z.on('end', resolve), z.on('error', reject), z.end()));
  return Buffer.concat([...Array.from({ length: size / (16 * 1024 * 1024) }, () => block), ...parts]);
}

/** A ZIP package (method 8, sizes as declared) of the given entries; CRCs are left zero (no reader here checks them). */
function zipOf(entries: { name: string; data: Buffer; size: number }[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(Math.min(e.size, 0xffffffff), 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, e.data);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(8, 10);
    c.writeUInt32LE(e.data.length, 20);
    c.writeUInt32LE(Math.min(e.size, 0xffffffff), 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(offset, 42);
    central.push(c, name);
    offset += 30 + name.length + e.data.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

describe('ingest: an Office decompression bomb', function () {
  this.timeout(600_000);
  let base: string;
  let bomb: Buffer;

  before(async () => {
    // One GiB of zeros deflates to about 1 MB; eight parts share those bytes: an 8 MB .xlsx unpacking to 8 GiB.
    const zeros = await deflatedZeros(GiB);
    // The generator is sound: a small repetition inflates to exactly its size.
    assert.equal(inflateRawSync(await deflatedZeros(64 * 1024 * 1024)).length, 64 * 1024 * 1024);
    bomb = zipOf(Array.from({ length: 8 }, (_, i) => ({ name: `xl/worksheets/sheet${i + 1}.xml`, data: zeros, size: GiB - 1 })));
  });
  beforeEach(() => (base = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-zipbomb-'))));
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  it('openZip refuses it as too large, by the inflated bytes and not the declared ones', () => {
    assert.throws(() => openZip(bomb, 'XLSX'), (err: unknown) => err instanceof LoadError && err.kind === 'too-large' && new RegExp(`more than ${ZIP_LIMITS.entryBytes / (1024 * 1024)} MB`).test(err.message));
    // Sizes that lie (declared small) change nothing: the bound counts what inflating produces.
    const liar = zipOf([{ name: 'a.xml', data: bomb.subarray(30 + 'xl/worksheets/sheet1.xml'.length, 30 + 'xl/worksheets/sheet1.xml'.length + 1000), size: 10 }]);
    assert.throws(() => openZip(liar, 'XLSX'), LoadError);
    assert.ok(ZIP_LIMITS.totalBytes < GiB);
  });

  it('the CLI run completes, the other files are searchable, the bomb has a reason, and peak memory stays bounded', async () => {
    const folder = path.join(base, 'folder');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'bomb.xlsx'), bomb);
    fs.writeFileSync(path.join(folder, 'rota.md'), '# Holiday rota\n\nThe holiday rota for the harbour office is kept by Mareike Oldenburg.\n');
    fs.writeFileSync(path.join(folder, 'notes.txt'), 'Kettle descaling happens every second Thursday in the kitchen.\n');
    // MALLOC_ARENA_MAX set: the CLI indexes in this child itself (no relaunch), so its peak is the run's peak.
    const peakMbOf = async (dir: string) => {
      const rssFile = path.join(base, 'maxrss');
      const env = { ...process.env, MALLOC_ARENA_MAX: '2', NODE_OPTIONS: `--require ${path.join(ROOT, 'test/helpers/maxRss.cjs')}`, DOCS_RAG_TEST_MAXRSS_FILE: rssFile };
      const run = await runCliBundle(['index', dir, '--json'], env);
      assert.equal(run.code, 0, run.stderr);
      return { run, peakMb: Number(fs.readFileSync(rssFile, 'utf8')) / 1024 };
    };
    // The same run without the bomb, in a folder of its own: what the run itself takes on this machine.
    const plain = path.join(base, 'plain');
    fs.mkdirSync(plain);
    for (const name of ['rota.md', 'notes.txt']) fs.copyFileSync(path.join(folder, name), path.join(plain, name));
    const without = await peakMbOf(plain);
    const { run, peakMb } = await peakMbOf(folder);
    const summary = JSON.parse(run.stdout.trim().split('\n').pop()!) as { files: number; errors: { path: string; reason: string }[] };
    assert.equal(summary.files, 2);
    assert.deepEqual(summary.errors.map((e) => e.path), ['bomb.xlsx']);
    assert.match(summary.errors[0].reason, /too large to read.*ZIP bomb/);
    // Unpacking one part alone takes 1 GiB (the whole file 8 GiB); refusing it costs at most a part's limit twice (the
    // inflated chunks and their concatenation) and the package's bytes.
    const added = peakMb - without.peakMb;
    const bound = (2 * ZIP_LIMITS.entryBytes) / (1024 * 1024) + 64;
    assert.ok(added < bound, `the bomb added ${Math.round(added)} MB to the run's peak (${Math.round(without.peakMb)} MB without it); bound ${bound} MB`);
    const search = await runCliBundle(['search', 'who keeps the holiday rota', '--folder', folder, '--json']);
    assert.equal(search.code, 0, search.stderr);
    const hits = (JSON.parse(search.stdout.trim().split('\n').pop()!) as { results: { path: string }[] }).results;
    assert.equal(hits[0]?.path, 'rota.md');
  });
});
