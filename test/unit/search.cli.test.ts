// `docs-rag search` end to end: index a copy of real workspace files with the CLI, search with --json, and check
// the result contract — for Markdown results the returned line range holds the returned text.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WORKSPACE, needsShared } from '../helpers/shared';

const ROOT = path.resolve(__dirname, '../..');
const WS = WORKSPACE;

function cli(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli.ts'), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
const lastJson = (out: string) => JSON.parse(out.trim().split('\n').pop()!);
const words = (s: string) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

describe('docs-rag search (CLI, real index)', function () {
  needsShared('eval/workspace');
  this.timeout(180_000);
  let folder: string;
  const files = [
    'gesetze/kschg.md',
    'gesetze/burlg.md',
    'gesetze/arbzg.pdf',
    'cargo-book/reference/profiles.pdf',
    'cargo-book/reference/workspaces.docx',
    'cargo-book/reference/publishing.md',
    'cargo-book/reference/config.md',
  ];

  before(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'search-cli-'));
    for (const f of files) {
      fs.mkdirSync(path.dirname(path.join(folder, f)), { recursive: true });
      fs.copyFileSync(path.join(WS, f), path.join(folder, f));
    }
    const r = cli(['index', folder, '--json']);
    assert.equal(r.code, 0, r.stderr);
  });
  after(() => folder && fs.rmSync(folder, { recursive: true, force: true }));

  it('returns ranked results whose Markdown line ranges hold the returned text', () => {
    let checked = 0;
    for (const q of ['Kündigungsschutzklage Frist drei Wochen', 'yank a published version', 'Urlaub Übertragung nächstes Kalenderjahr', 'registry token config']) {
      const r = cli(['search', q, '--folder', folder, '--k', '10', '--json']);
      assert.equal(r.code, 0, r.stderr);
      const { results } = lastJson(r.stdout) as { results: Record<string, unknown>[] };
      assert.ok(results.length > 0, `results for ${q}`);
      for (const h of results) {
        assert.ok(files.includes(h.path as string), `relative path: ${h.path}`);
        assert.equal(typeof h.text, 'string');
        assert.equal(typeof h.score, 'number');
        assert.ok([0, 1, 2].includes(h.level as number));
        assert.equal(typeof h.heading, 'string');
        if ((h.path as string).endsWith('.md')) {
          const lines = fs.readFileSync(path.join(folder, h.path as string), 'utf8').split('\n');
          const s = h.startLine as number;
          const e = h.endLine as number;
          assert.ok(Number.isInteger(s) && Number.isInteger(e) && s >= 1 && e >= s && e <= lines.length, `range ${s}-${e}`);
          const range = new Set(words(lines.slice(s - 1, e).join('\n')));
          const missing = words(h.text as string).filter((w) => !range.has(w));
          assert.deepEqual(missing, [], `${h.path}:${s}-${e} holds the text`);
          checked++;
        } else if ((h.path as string).endsWith('.pdf')) {
          assert.ok(Number.isInteger(h.page) && (h.page as number) >= 1, 'PDF results carry a page');
          assert.equal(h.startLine, undefined);
        } else if ((h.path as string).endsWith('.docx')) {
          assert.equal(typeof h.quote, 'string', 'DOCX results carry a quote');
          assert.ok((h.text as string).replace(/\s+/g, ' ').includes((h.quote as string).replace(/\s+/g, ' ')), 'the quote is verbatim from the text');
        }
      }
    }
    assert.ok(checked >= 10, `checked ${checked} Markdown results`);
  });

  it('finds the § 4 KSchG deadline for a German query and a yank passage for an English one', () => {
    const de = lastJson(cli(['search', 'Frist für die Kündigungsschutzklage', '--folder', folder, '--json']).stdout).results as { path: string; text: string }[];
    assert.ok(de.slice(0, 3).some((h) => h.path === 'gesetze/kschg.md' && /drei Wochen/.test(h.text)));
    const en = lastJson(cli(['search', 'cargo yank', '--folder', folder, '--json']).stdout).results as { path: string; text: string }[];
    assert.ok(en.slice(0, 3).some((h) => h.path === 'cargo-book/reference/publishing.md' && /yank/i.test(h.text)));
  });

  it('--trace adds the spans (names, durations, counts) and no document text', () => {
    const r = cli(['search', 'codegen-units release profile', '--folder', folder, '--json', '--trace']);
    assert.equal(r.code, 0, r.stderr);
    const out = lastJson(r.stdout) as { results: { text: string }[]; trace: { name: string; ms: number }[] };
    const names = out.trace.map((s) => s.name);
    for (const n of ['analysis', 'embedding', 'full-text', 'vector', 'fusion', 'augmentation', 'budget']) assert.ok(names.includes(n), n);
    assert.ok(out.trace.every((s) => typeof s.ms === 'number'));
    const traceText = JSON.stringify(out.trace);
    assert.ok(!out.results.some((h) => traceText.includes(h.text.slice(0, 40))));
    const human = cli(['search', 'codegen-units release profile', '--folder', folder, '--trace']);
    assert.match(human.stdout, /full-text\s+[\d.]+ ms/);
  });

  it('bad input: a missing index or bad flags give a clear message and a non-zero exit, never a crash', () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'search-empty-'));
    const r = cli(['search', 'x', '--folder', empty]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /docs-rag index/);
    assert.equal(cli(['search', 'x', '--folder', folder, '--k', 'zero']).code, 2);
    const bad = cli(['search', 'x', '--folder', folder, '--config', 'nope']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /Use one of: .*bm25/);
    // A folder that does not exist is named as such (it was reported as read-only, with a store in the user's cache).
    for (const command of [['search', 'x'], ['ask', 'Wie lange?'], ['status']]) {
      const missing = cli([...command, '--folder', path.join(empty, 'nope')]);
      assert.equal(missing.code, 2, `${command[0]}: ${missing.stderr}`);
      assert.match(missing.stderr, /folder not found: .*nope/);
      assert.doesNotMatch(missing.stderr, /read-only/);
    }
    fs.rmSync(empty, { recursive: true, force: true });
  });
});
