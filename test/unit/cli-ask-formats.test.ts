// `docs-rag ask --json` on real PDF and DOCX files from the shared eval workspace: every citation carries a page (PDF) or
// a quote (DOCX), and that location's text — read independently with unpdf / mammoth — holds the cited passage.
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import mammoth from 'mammoth';
import { extractText, getDocumentProxy } from 'unpdf';
import { SHARED, needsShared } from '../helpers/shared';

const ROOT = path.resolve(__dirname, '../..');
const GESETZE = path.join(SHARED, 'eval/workspace/gesetze');

/** Letters and digits only, lower case: immune to hyphenation, line breaks and spacing. */
const squash = (s: string) => s.normalize('NFC').toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
const wordsOf = (s: string) => s.normalize('NFC').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

function ask(folder: string, question: string): Record<string, any> {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli.ts'), 'ask', question, '--folder', folder, '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, OLLAMA_HOST: '' },
  });
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

describe('cli: docs-rag ask citations on PDF and DOCX', function () {
  needsShared('eval/workspace/gesetze');
  this.timeout(180_000);
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-ask-formats-'));
    for (const f of ['arbzg.pdf', 'entgfg.docx']) fs.copyFileSync(path.join(GESETZE, f), path.join(dir, f));
  });
  after(() => dir && fs.rmSync(dir, { recursive: true, force: true }));

  it('PDF citations name pages whose text holds every word of the passage', async () => {
    const out = ask(dir, 'Wie lange muss die Ruhezeit nach Beendigung der täglichen Arbeitszeit mindestens sein?');
    const pdf = out.citations.filter((c: { path: string }) => c.path === 'arbzg.pdf');
    assert.ok(pdf.length >= 1, JSON.stringify(out.citations.map((c: { path: string }) => c.path)));
    const doc = await getDocumentProxy(new Uint8Array(fs.readFileSync(path.join(dir, 'arbzg.pdf'))));
    const { text: pages } = await extractText(doc, { mergePages: false });
    assert.ok(pdf.some((c: { text: string }) => /elf Stunden/.test(c.text)), 'the Ruhezeit passage is cited');
    for (const c of pdf) {
      assert.equal(typeof c.page, 'number');
      assert.equal(c.startLine, undefined);
      const last = c.pageEnd ?? c.page;
      const pageText = squash(pages.slice(c.page - 1, last).join(' '));
      const missing = wordsOf(c.text).filter((w) => !pageText.includes(squash(w)));
      assert.deepEqual(missing, [], `page ${c.page}-${last} lacks words of citation ${c.n}`);
    }
  });

  it('DOCX citations carry a verbatim quote that is in the document and in the passage', async () => {
    const out = ask(dir, 'Wie lange wird das Arbeitsentgelt im Krankheitsfall fortgezahlt?');
    const docx = out.citations.filter((c: { path: string }) => c.path === 'entgfg.docx');
    assert.ok(docx.length >= 1);
    const { value } = await mammoth.extractRawText({ path: path.join(dir, 'entgfg.docx') });
    const full = squash(value);
    for (const c of docx) {
      assert.equal(typeof c.quote, 'string');
      assert.ok(c.quote.length >= 20, c.quote);
      assert.ok(full.includes(squash(c.quote)), `quote of citation ${c.n} is in the document`);
      assert.ok(squash(c.text).includes(squash(c.quote)), `quote of citation ${c.n} is in its passage`);
      const missing = wordsOf(c.text).filter((w) => !full.includes(squash(w)));
      assert.deepEqual(missing, []);
    }
  });
});
