// Bad input never crashes a loader: random bytes, and valid packages of the wrong kind, give a document or a LoadError.
import { strict as assert } from 'assert';
import { randomBytes } from 'crypto';
import { readFileSync } from 'fs';
import * as path from 'path';
import { parseBytes } from '../../src/rag/ingest';
import { LoadError, type DocFormat } from '../../src/rag/types';
import { REALDOCS } from './ingestHelpers';
import { needsShared } from '../helpers/shared';

const FORMATS: DocFormat[] = ['md', 'txt', 'html', 'pdf', 'docx', 'pptx', 'xlsx'];

async function outcome(bytes: Uint8Array, format: DocFormat): Promise<'doc' | LoadError> {
  try {
    await parseBytes(bytes, format, `x.${format}`);
    return 'doc';
  } catch (err) {
    if (err instanceof LoadError) return err;
    throw new Error(`${format}: threw ${String(err)} instead of a LoadError`);
  }
}

/** Deterministic pseudo-random bytes (xorshift32). */
function seededBytes(seed: number, n: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed * 2654435761 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

describe('loader robustness', function () {
  needsShared('eval/realdocs');
  this.timeout(60_000);

  it('random bytes give a per-file LoadError: binary data (text formats), corrupt or no text (binary formats)', async () => {
    // Fixed seeds (a run that fails can be repeated), plus a few fresh random inputs each run.
    const inputs = [...[1, 2, 3, 4, 5, 6, 7, 8].map((seed) => seededBytes(seed, 4096 + seed * 500)), ...[0, 1, 2].map((i) => randomBytes(4096 + i * 1000))];
    // Noise that once made linkedom's title getter throw a TypeError (no documentElement).
    inputs.push(readFileSync(path.join(__dirname, '../fixtures/ingest/noise-without-markup.html')));
    for (const [i, bytes] of inputs.entries()) {
      for (const format of FORMATS) {
        const o = await outcome(bytes, format);
        if (['pdf', 'docx', 'pptx', 'xlsx'].includes(format)) {
          assert.ok(o instanceof LoadError, `${format}: random bytes parsed as a document`);
          assert.ok(['corrupt', 'no-text'].includes(o.kind), `${format}: ${o.kind} ${o.message}`);
        } else if (i < inputs.length - 1) {
          // Random bytes under a text name are binary data, not text in some legacy code page.
          assert.ok(o instanceof LoadError, `${format}: random bytes parsed as a document`);
          assert.equal(o.kind, 'unsupported');
          assert.match(o.message, /binary data, not text/);
        }
      }
    }
  });

  it('text formats: UTF-16 without a byte order mark is decoded; binary data under a text name is refused; form feeds and escapes are text', async () => {
    const german = '# Urlaub\n\nDer Urlaub beträgt jährlich mindestens 24 Werktage.\n';
    for (const [enc, bytes] of [['le', Buffer.from(german, 'utf16le')], ['be', Buffer.from(german, 'utf16le').swap16()]] as const) {
      const doc = await parseBytes(bytes, 'md', 'u.md');
      const text = doc.blocks.map((b) => b.text).join('\n');
      assert.match(text, /Der Urlaub beträgt jährlich mindestens 24 Werktage\./, `UTF-16${enc.toUpperCase()}: ${text}`);
      assert.ok(!text.includes('\0'));
    }
    // A PNG renamed to .txt: its header has zero bytes.
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), Buffer.from('IHDR'), Buffer.alloc(200, 7)]);
    await assert.rejects(parseBytes(png, 'txt', 'image.txt'), (err: unknown) => err instanceof LoadError && err.kind === 'unsupported' && /binary data/.test(err.message));
    // A stray NUL in a long text does not make it binary.
    const log = Buffer.from(`Page one\fPage two \x1b[1mbold\x1b[0m and more words in the text.\0\n${'A line of ordinary words.\n'.repeat(100)}`, 'utf8');
    const doc = await parseBytes(log, 'txt', 'log.txt');
    assert.match(doc.blocks.map((b) => b.text).join(' '), /Page two/);
  });

  it('an Office package of the wrong kind is a per-file outcome, not a crash', async () => {
    const xlsx = readFileSync(path.join(REALDOCS, 'xlsx/testEXCEL.xlsx'));
    const docx = readFileSync(path.join(REALDOCS, 'docx/testWORD_various.docx'));
    const asDocx = await outcome(xlsx, 'docx');
    assert.ok(asDocx instanceof LoadError && asDocx.kind === 'corrupt', String(asDocx));
    const asPptx = await outcome(xlsx, 'pptx');
    assert.ok(asPptx instanceof LoadError && asPptx.kind === 'no-text', String(asPptx));
    const asXlsx = await outcome(docx, 'xlsx');
    assert.ok(asXlsx instanceof LoadError && asXlsx.kind === 'no-text', String(asXlsx));
  });

  it('a legacy binary Office file under an OOXML name is "unsupported" with the fix, not "password-protected"', async () => {
    // An OLE2/CFB header without an EncryptedPackage stream (what a renamed .doc looks like).
    const cfb = new Uint8Array(2048);
    cfb.set([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
    const o = await outcome(cfb, 'docx');
    assert.ok(o instanceof LoadError);
    assert.equal(o.kind, 'unsupported');
    assert.match(o.message, /legacy binary Office file \(\.doc\).*save it as \.docx/);
  });
});
