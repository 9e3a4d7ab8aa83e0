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

describe('loader robustness', function () {
  needsShared('eval/realdocs');
  this.timeout(60_000);

  it('random bytes give a document (text formats) or a per-file LoadError (binary formats)', async () => {
    for (let seed = 0; seed < 3; seed++) {
      const bytes = randomBytes(4096 + seed * 1000);
      for (const format of FORMATS) {
        const o = await outcome(bytes, format);
        if (['pdf', 'docx', 'pptx', 'xlsx'].includes(format)) {
          assert.ok(o instanceof LoadError, `${format}: random bytes parsed as a document`);
          assert.ok(['corrupt', 'no-text'].includes(o.kind), `${format}: ${o.kind} ${o.message}`);
        }
      }
    }
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
