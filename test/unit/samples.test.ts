// The sample folder shipped in the repository (samples/): the README's first command indexes it and asks a question.
// Run through the real CLI in a child process (real loaders for Markdown, PDF and DOCX, real LanceDB in a temp dir).
// Also: suites that need ../shared fail in one line without it.
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, runCliSource, runNode } from '../helpers/run';

const SAMPLES = path.join(ROOT, 'samples');

const run = runNode;
const cli = (args: string[]) => runCliSource(args);
const lastJson = (stdout: string) => JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, any>;

function files(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

describe('samples/: the README first command', function () {
  this.timeout(300_000);
  let folder: string;
  before(() => {
    // A copy, so the index (<folder>/.docs-rag) is never written into the repository.
    folder = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'docs-rag-samples-')), 'samples');
    fs.cpSync(SAMPLES, folder, { recursive: true, filter: (src) => !src.includes(`${path.sep}.docs-rag`) });
  });
  after(() => folder && fs.rmSync(path.dirname(folder), { recursive: true, force: true }));

  it('holds Markdown, PDF and DOCX in German and English, each listed in SOURCES.md with its size and hash', () => {
    const docs = files(SAMPLES).filter((f) => f !== 'SOURCES.md' && !f.startsWith('.docs-rag/'));
    const ext = (e: string) => docs.filter((f) => f.endsWith(e)).length;
    assert.ok(ext('.md') >= 3 && ext('.pdf') >= 1 && ext('.docx') >= 1, docs.join(', '));
    assert.ok(docs.some((f) => f.startsWith('gesetze/')) && docs.some((f) => f.startsWith('cargo-book/')));
    const sources = fs.readFileSync(path.join(SAMPLES, 'SOURCES.md'), 'utf8');
    for (const f of docs) {
      const bytes = fs.readFileSync(path.join(SAMPLES, f));
      const row = sources.split('\n').find((l) => l.startsWith(`| \`${f}\``));
      assert.ok(row, `${f} is listed in samples/SOURCES.md`);
      assert.ok(row.includes(`| ${bytes.length} |`), `${f}: size`);
      assert.ok(row.includes(createHash('sha256').update(bytes).digest('hex').slice(0, 16)), `${f}: hash`);
      assert.ok(bytes.length < 200_000, `${f} is small`);
    }
    assert.match(sources, /§ 5 Abs\. 1 UrhG/);
    assert.match(sources, /MIT OR Apache-2\.0/);
  });

  it('indexes every sample and answers a German and an English question with citations', async () => {
    const idx = await cli(['index', folder, '--json']);
    assert.equal(idx.code, 0, idx.stderr);
    const r = lastJson(idx.stdout);
    assert.deepEqual(r.errors, []);
    assert.equal(r.files, files(SAMPLES).filter((f) => !f.startsWith('.docs-rag/')).length, 'every file, PDF and DOCX included');

    // The README's question: § 3 BUrlG, lines 45–48.
    const de = await cli(['ask', 'Wie viele Werktage beträgt der Urlaub mindestens?', '--folder', folder, '--json']);
    assert.equal(de.code, 0, de.stderr);
    const a = lastJson(de.stdout);
    assert.equal(a.mode, 'extractive');
    assert.match(a.answer, /mindestens 24 Werktage/);
    assert.deepEqual([a.citations[0].path, a.citations[0].startLine, a.citations[0].endLine], ['gesetze/burlg.md', 45, 48]);
    const lines = fs.readFileSync(path.join(folder, 'gesetze/burlg.md'), 'utf8').split('\n').slice(44, 48).join('\n');
    assert.match(lines, /Der Urlaub beträgt jährlich mindestens 24 Werktage/);

    // English, answered from the PDF (a page citation).
    const en = await cli(['ask', 'How do I set up GitHub Actions for a Cargo project?', '--folder', folder, '--json']);
    assert.equal(en.code, 0, en.stderr);
    const b = lastJson(en.stdout);
    assert.equal(b.citations[0].path, 'cargo-book/guide/continuous-integration.pdf');
    assert.ok(Number.isInteger(b.citations[0].page) && b.citations[0].page >= 1);

    // German, answered from the DOCX (a verbatim quote).
    const docx = await cli(['ask', 'Wie lange wird das Arbeitsentgelt im Krankheitsfall fortgezahlt?', '--folder', folder, '--json']);
    const c = lastJson(docx.stdout);
    assert.equal(c.citations[0].path, 'gesetze/entgfg.docx');
    assert.ok(typeof c.citations[0].quote === 'string' && c.citations[0].quote.length > 0);
  });
});

describe('suites that need ../shared', function () {
  this.timeout(120_000);
  it('fail in one line that says what is missing when it is not there, not with a stack trace', async () => {
    const missing = path.join(os.tmpdir(), `docs-rag-no-shared-${process.pid}`);
    const env = { ...process.env, DOCS_RAG_SHARED: missing };
    const mocha = path.join(ROOT, 'node_modules/mocha/bin/mocha.js');
    const r = await run([mocha, '--no-config', '-r', 'tsx/cjs', '--extension', 'ts', '--reporter', 'spec', 'test/unit/ingest.html.test.ts', 'test/unit/search.pipeline.test.ts'], env);
    assert.notEqual(r.code, 0);
    const out = r.stdout + r.stderr;
    assert.match(out, new RegExp(`SharedDataMissing: needs ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/eval/realdocs \\(.*set DOCS_RAG_SHARED`));
    assert.match(out, /SharedDataMissing: needs .*\/eval\/workspace /);
    assert.doesNotMatch(out, /^\s+at /m, 'no stack trace');
    assert.doesNotMatch(out, /ENOENT/);
  });
});
