// End-to-end tests of `docs-rag index` and `docs-rag status`: the real CLI in a child process, real loaders, real LanceDB.
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openStore, VECTOR_INDEX_MIN_ROWS } from '../../src/rag/store';
import { startFakeOllama } from '../helpers/ollamaServer';
import { REALDOCS, WORKSPACE } from '../crash/snapshot';
import { needsShared } from '../helpers/shared';

const ROOT = path.resolve(__dirname, '../..');

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json?: Record<string, unknown>;
}

/** Makes a copied tree writable (the shared data is read-only, and so are its copies). */
function writable(dir: string): void {
  fs.chmodSync(dir, 0o755);
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) writable(p);
    else fs.chmodSync(p, 0o644);
  }
}

function cli(args: string[], o: { bundle?: boolean } = {}): Promise<CliResult> {
  const argv = o.bundle ? [path.join(ROOT, 'dist/cli.js'), ...args] : ['--import', 'tsx', path.join(ROOT, 'src/cli.ts'), ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const last = stdout.trim().split('\n').pop() ?? '';
      let json: Record<string, unknown> | undefined;
      try {
        json = JSON.parse(last) as Record<string, unknown>;
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

const tmp = (p: string) => fs.mkdtempSync(path.join(os.tmpdir(), p));

describe('docs-rag index / status (CLI end to end)', function () {
  needsShared('eval/workspace', 'eval/realdocs');
  this.timeout(300_000);
  let folder: string;

  beforeEach(() => {
    folder = tmp('docs-rag-cli-');
    fs.mkdirSync(path.join(folder, 'gesetze'));
    for (const f of ['gesetze/tzbfg.md', 'gesetze/entgfg.docx', 'cargo-book/faq.md']) fs.copyFileSync(path.join(WORKSPACE, f), path.join(folder, f.replace('cargo-book/', '')));
    fs.writeFileSync(path.join(folder, 'broken.pdf'), '%PDF-1.4\n%%EOF\n');
  });
  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  it('indexes a folder into <folder>/.docs-rag, prints the JSON summary, and status reports it', async () => {
    const r = await cli(['index', folder, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.json, `last stdout line is JSON: ${r.stdout}`);
    assert.equal(r.json.files, 3);
    assert.ok((r.json.chunks as number) > 10);
    assert.equal(r.json.unchanged, 0);
    assert.ok(typeof r.json.ms === 'number');
    const errors = r.json.errors as { path: string; reason: string }[];
    assert.deepEqual(errors.map((e) => e.path), ['broken.pdf']);
    assert.match(errors[0].reason, /PDF/);
    assert.ok(fs.existsSync(path.join(folder, '.docs-rag', 'meta.json')));

    const again = await cli(['index', folder, '--json']);
    assert.equal(again.json?.unchanged, 4);
    assert.equal(again.json?.chunks, r.json.chunks);
    assert.equal((again.json?.errors as unknown[]).length, 1, 'the broken file is still reported');

    const st = await cli(['status', '--folder', folder, '--json']);
    assert.equal(st.code, 0, st.stderr);
    const s = st.json as { files: Record<string, number>; passages: Record<string, number>; embedder: { id: string }; lastRun: object; problems: { path: string }[] };
    assert.equal(s.files.indexed, 3);
    assert.equal(s.files.error, 1);
    assert.equal(s.passages.total, r.json.chunks);
    assert.equal(s.passages.L0, 3);
    assert.equal(s.passages.L0 + s.passages.L1 + s.passages.L2, s.passages.total);
    assert.equal(s.embedder.id, 'builtin');
    assert.ok(s.lastRun);
    assert.deepEqual(s.problems.map((p) => p.path), ['broken.pdf']);
    // The reference graph: TzBfG's "§ 2 Absatz 1 des Entgeltfortzahlungsgesetzes" resolves into the EntgFG document.
    const g = st.json as { links: number; linksByKind: Record<string, number>; unresolvedLinks: number };
    assert.ok(g.links > 0 && g.linksByKind.reference > 0, JSON.stringify(g));
    assert.equal(g.links, Object.values(g.linksByKind).reduce((a, b) => a + b, 0));
    assert.ok(g.unresolvedLinks > 0, 'references to laws outside the folder stay unresolved');
    const human = await cli(['status', '--folder', folder]);
    assert.match(human.stdout, /Links: \d+ \(link \d+, reference [1-9]/);
    assert.match(human.stdout, /Passages: \d+ \(L0 documents 3/);
    assert.equal((st.json as { vectorIndex: unknown }).vectorIndex, null, 'too few passages for a vector index');
    assert.match(human.stdout, /Vector search: exact \(below 5,000 passages no vector index is needed\)/);
    assert.match(human.stdout, /broken\.pdf: /);
    const humanIndex = await cli(['index', folder]);
    assert.match(humanIndex.stdout, /Indexed: 3 documents/);
  });

  it('--ocr off / --ocr-langs: an image gets the per-file reason; bad values are usage errors', async () => {
    const dir = tmp('docs-rag-cli-ocr-');
    // A valid PNG header (16 × 16): the header check passes, then OCR is off.
    const png = Buffer.alloc(64);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 16, 0, 0, 0, 16]).copy(png);
    fs.writeFileSync(path.join(dir, 'scan.png'), png);
    fs.writeFileSync(path.join(dir, 'note.md'), '# Note\n\nA short note about the scanner.\n');
    const r = await cli(['index', dir, '--ocr', 'off', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const errors = r.json?.errors as { path: string; reason: string }[];
    assert.deepEqual(errors.map((e) => e.path), ['scan.png']);
    assert.match(errors[0].reason, /OCR is turned off/);
    // The index records the setting: a run without the flag keeps it (nothing is redone), status says so.
    const plain = await cli(['index', dir, '--json']);
    assert.equal(plain.code, 0, plain.stderr);
    assert.deepEqual([plain.json?.updated, plain.json?.unchanged], [0, 2], plain.stdout);
    assert.match((plain.json?.errors as { reason: string }[])[0].reason, /OCR is turned off/);
    assert.match((await cli(['status', '--folder', dir])).stdout, /Settings: .*OCR off, parse timeout 30 s, no enrichment/);
    // One OCR flag changes that one setting: the languages are new, OCR stays off.
    assert.equal((await cli(['index', dir, '--ocr-langs', 'eng'])).code, 0);
    const st = (await cli(['status', '--folder', dir, '--json'])).json as { settings: { ingest: { ocr: object } } };
    assert.deepEqual(st.settings.ingest.ocr, { enabled: false, languages: 'eng', maxPages: 50 });
    assert.equal((await cli(['index', dir, '--ignore-files', '--no-ignore-files'])).code, 2, 'both values of one setting');
    assert.equal((await cli(['index', dir, '--ocr', 'maybe'])).code, 2);
    assert.equal((await cli(['index', dir, '--ocr-langs', 'deu;rm -rf'])).code, 2);
    assert.equal((await cli(['index', dir, '--ocr-max-pages', '-1'])).code, 2);
    for (const bad of ['0', 'soon', '99999']) {
      const r = await cli(['index', dir, '--parse-timeout', bad]);
      assert.equal(r.code, 2, bad);
      assert.match(r.stderr, /--parse-timeout takes seconds from 1 to 3600/);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('bad usage exits 2; an unreachable Ollama exits 1 with the fix; status without an index says how to build it', async () => {
    assert.equal((await cli(['index'])).code, 2);
    assert.equal((await cli(['index', folder, '--bogus'])).code, 2);
    assert.equal((await cli(['index', folder, '--embedder', 'magic'])).code, 2);
    assert.equal((await cli(['index', path.join(folder, 'nope')])).code, 2);
    const aFile = await cli(['index', path.join(folder, 'faq.md')]);
    assert.equal(aFile.code, 2);
    assert.match(aFile.stderr, /faq\.md is a file, not a folder: give the folder that holds it/);
    const empty = tmp('docs-rag-cli-empty-');
    fs.writeFileSync(path.join(empty, 'notes.log'), 'not a document kind');
    const none = await cli(['index', empty]);
    assert.equal(none.code, 0, none.stderr);
    assert.match(none.stdout, /Nothing to index: no file of a kind docs-rag reads \(Markdown, text, HTML, PDF/);
    assert.doesNotMatch(none.stdout, /Keyword search was ready|Vectors: 0 of 0/);
    fs.rmSync(empty, { recursive: true, force: true });
    const down = await cli(['index', folder, '--embedder', 'ollama', '--ollama-host', 'http://127.0.0.1:9', '--json']);
    assert.equal(down.code, 1);
    assert.match(down.stderr, /ollama serve/);
    const st = await cli(['status', '--folder', folder]);
    assert.equal(st.code, 1);
    assert.match(st.stderr, /docs-rag index/);
  });

  it('indexes with an Ollama embedder over HTTP (the real client) and then keeps using it', async () => {
    const ollama = await startFakeOllama({ models: ['nomic-embed-text'] });
    try {
      const store = tmp('docs-rag-cli-store-');
      const r = await cli(['index', folder, '--store', store, '--embedder', 'ollama', '--ollama-host', ollama.url, '--json']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.json?.files, 3);
      assert.ok(ollama.requests.filter((q) => q.path === '/api/embed').length > 0);
      const st = await cli(['status', '--folder', folder, '--store', store, '--json']);
      assert.equal((st.json?.embedder as { id: string; model: string }).id, 'ollama');
      // Switching back to builtin re-embeds everything.
      const back = await cli(['index', folder, '--store', store, '--embedder', 'builtin', '--json']);
      assert.equal(back.json?.reembedded, true);
      assert.equal(back.json?.files, 3);
      fs.rmSync(store, { recursive: true, force: true });
    } finally {
      await ollama.close();
    }
  });

  it('--enrich contextual asks the Ollama model for passage contexts that become searchable; bad --enrich is a usage error', async () => {
    // The model's context names a word found in no document, so `search` finding it proves the passages were enriched.
    const ollama = await startFakeOllama({ chat: (req) => (/situates a passage/.test(req.messages[0]?.content ?? '') ? 'Zusammenhang: Quokkaregel' : 'Summary.') });
    try {
      const store = tmp('docs-rag-cli-enrich-');
      const r = await cli(['index', folder, '--store', store, '--enrich', 'contextual', '--enrich-model', 'llama3.2', '--ollama-host', ollama.url, '--json']);
      assert.equal(r.code, 0, r.stderr);
      assert.ok(ollama.requests.some((q) => q.path === '/api/chat' && q.body?.model === 'llama3.2'), 'the enrichment model was asked');
      const found = await cli(['search', 'Quokkaregel', '--folder', folder, '--store', store, '--config', 'bm25', '--json']);
      assert.equal(found.code, 0, found.stderr);
      const results = (found.json?.results ?? []) as { text: string }[];
      assert.ok(results.length > 0, 'found through the model-written context');
      assert.ok(results.every((x) => !x.text.includes('Quokkaregel')), 'the shown text stays the original');
      // A run without --enrich keeps the recorded enrichment: nothing is redone, the contexts stay searchable.
      const kept = await cli(['index', folder, '--store', store, '--ollama-host', ollama.url, '--json']);
      assert.equal(kept.code, 0, kept.stderr);
      assert.deepEqual([kept.json?.updated, kept.json?.unchanged], [0, 4], kept.stdout);
      assert.match((await cli(['status', '--folder', folder, '--store', store])).stdout, /enrichment contextual \(llama3\.2\)/);
      // --enrich off redoes the documents without it.
      const off = await cli(['index', folder, '--store', store, '--enrich', 'off', '--json']);
      assert.equal(off.code, 0, off.stderr);
      assert.equal(off.json?.updated, 3, off.stdout);
      const gone = await cli(['search', 'Quokkaregel', '--folder', folder, '--store', store, '--config', 'bm25', '--json']);
      assert.equal((gone.json?.results as unknown[]).length, 0);
      const bad = await cli(['index', folder, '--store', store, '--enrich', 'everything']);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--enrich takes contextual, summaries/);
      fs.rmSync(store, { recursive: true, force: true });
    } finally {
      await ollama.close();
    }
  });

  it('indexes every document of the shared workspace with no errors', async () => {
    const store = tmp('docs-rag-cli-ws-');
    const r = await cli(['index', WORKSPACE, '--store', store, '--embedder', 'builtin', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const docs = fs.readdirSync(WORKSPACE, { recursive: true }).map(String).filter((f) => /\.(md|pdf|docx)$/.test(f));
    assert.deepEqual(r.json?.errors, []);
    assert.equal(r.json?.files, docs.length);
    assert.ok(docs.filter((d) => d.startsWith('cargo-book') || d.startsWith('gesetze')).length >= 68);
    fs.rmSync(store, { recursive: true, force: true });
  });

  const RECOGNISED_BY_OCR = new Set(['pdf/c02-22.pdf', 'pdf/linn.pdf', 'pdf/masks.pdf']);
  it('indexes realdocs: every file indexed or listed with the reason its MANIFEST row expects', async () => {
    // Two runs, so no assertion depends on the machine's speed: the image-only PDFs are recognised by OCR in a folder of
    // their own with a deadline no load reaches (--parse-timeout 600; the default 30 s per page is a product default, not
    // what this test checks); every other file, the hazardous ones included, with the default deadline.
    const rest = tmp('docs-rag-cli-real-');
    const scans = tmp('docs-rag-cli-scans-');
    fs.cpSync(REALDOCS, rest, { recursive: true });
    writable(rest);
    for (const file of RECOGNISED_BY_OCR) {
      fs.mkdirSync(path.dirname(path.join(scans, file)), { recursive: true });
      fs.renameSync(path.join(rest, file), path.join(scans, file));
    }
    const store = tmp('docs-rag-cli-real-store-');
    const scanStore = tmp('docs-rag-cli-scans-store-');
    const r = await cli(['index', rest, '--store', store, '--json']);
    assert.equal(r.code, 0, r.stderr);
    const o = await cli(['index', scans, '--store', scanStore, '--parse-timeout', '600', '--json']);
    assert.equal(o.code, 0, o.stderr);
    assert.equal(o.json?.files, RECOGNISED_BY_OCR.size);
    const errors = new Map([...(r.json?.errors as { path: string; reason: string }[]), ...(o.json?.errors as { path: string; reason: string }[])].map((e) => [e.path, e.reason]));
    const rows = fs.readFileSync(path.join(REALDOCS, 'MANIFEST.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));
    const st = await cli(['status', '--folder', rest, '--store', store, '--json']);
    assert.equal(st.code, 0, st.stderr);
    const indexedCount = (st.json?.files as { indexed: number }).indexed;
    let indexed = 0;
    for (const [file, , , , expected, contains] of rows) {
      const reason = errors.get(file);
      if (file.startsWith('hazardous/')) continue; // indexed, or a timeout / empty result: both allowed
      if (RECOGNISED_BY_OCR.has(file)) {
        // The MANIFEST says "OCR needed"; with OCR (issue 10) these image-only PDFs are indexed.
        assert.equal(reason, undefined, `${file} should be indexed by OCR, got: ${reason}`);
        indexed++;
      } else if (/must fail/.test(expected)) {
        assert.ok(reason, `${file} must be in errors`);
        if (/password/i.test(expected) || /protected/i.test(file)) assert.match(reason, /password-protected/, file);
      } else if (/no text|no real text|no extractable/i.test(expected)) {
        assert.match(reason ?? '', /no extractable text/, file);
      } else if (contains) {
        assert.equal(reason, undefined, `${file} should be indexed, got: ${reason}`);
        indexed++;
      }
    }
    assert.ok(indexed >= 30 && indexedCount + RECOGNISED_BY_OCR.size >= indexed, `indexed ${indexed}`);
    for (const dir of [rest, scans, store, scanStore]) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the bundled CLI (dist/cli.js) indexes too', async function () {
    const build = await new Promise<number | null>((resolve) => {
      const c = spawn(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: 'ignore' });
      c.on('close', resolve);
    });
    assert.equal(build, 0);
    const r = await cli(['index', folder, '--json'], { bundle: true });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.json?.files, 3);
  });
});

/**
 * `docs-rag index <folder> --store <store> --json` from source as the leader of a process group of its own (as a shell
 * makes a command), without MALLOC_ARENA_MAX so that it relaunches; its output collects in `out`.
 */
function startIndex(folder: string, store: string) {
  const env = { ...process.env };
  delete env.MALLOC_ARENA_MAX;
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/cli.ts'), 'index', folder, '--store', store, '--json'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d) => (out.stdout += d));
  child.stderr.on('data', (d) => (out.stderr += d));
  const closed = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, out, closed };
}

describe('docs-rag index stopped by SIGINT (on Linux the command runs the indexing in a relaunched child)', function () {
  this.timeout(120_000);
  const cases: [string, boolean][] = [
    ['a SIGINT sent to the command alone (kill -INT <pid>)', false],
    ["a terminal's Ctrl+C (SIGINT to the command's process group)", true],
  ];
  for (const [what, toGroup] of cases) {
    it(`${what} stops the run once: exit 130, a summary, an index that opens with its records and passages matching`, async () => {
      const folder = tmp('docs-rag-sigint-');
      const store = path.join(folder, '.store');
      try {
        for (let i = 0; i < 600; i++) fs.writeFileSync(path.join(folder, `note-${i}.md`), `# Note ${i}\n\nWorking time and rest breaks, case ${i}.\n\n## More\n\nAnother paragraph ${i}.\n`);
        const { child, out, closed } = startIndex(folder, store);
        // Signalled while it writes (it holds the writer lock from its first file to its last write).
        const lock = path.join(store, 'writer.lock');
        for (let waited = 0; !fs.existsSync(lock); waited += 10) {
          assert.ok(waited < 60_000, `the run never took the writer lock: ${out.stderr}`);
          await new Promise((r) => setTimeout(r, 10));
        }
        process.kill(toGroup ? -child.pid! : child.pid!, 'SIGINT');
        const code = await closed;
        assert.equal(code, 130, out.stderr);
        assert.equal(out.stderr.split('stopping after the files in progress').length - 1, 1, `one stop, not a second Ctrl+C: ${out.stderr}`);
        const summary = JSON.parse(out.stdout.trim().split('\n').pop()!) as { cancelled?: boolean; files: number };
        assert.equal(summary.cancelled, true);
        assert.ok(summary.files < 600, `stopped before the end: ${summary.files} files`);
        const s = await openStore(store);
        try {
          const records = (await s.listFiles()).filter((f) => f.status === 'indexed');
          assert.equal(await s.countPassages(), records.reduce((n, f) => n + f.passages, 0));
        } finally {
          await s.close();
        }
      } finally {
        fs.rmSync(folder, { recursive: true, force: true });
      }
    });
  }

  it("a terminal's Ctrl+Z (SIGTSTP to the command's group) stops the relaunched run too, and SIGCONT (fg) continues both to the end", async () => {
    if (process.platform !== 'linux') return; // the relaunch is Linux-only
    const folder = tmp('docs-rag-sigtstp-');
    const store = path.join(folder, '.store');
    const state = (pid: number) => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
    const childOf = (pid: number) => Number(fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)[0]);
    try {
      for (let i = 0; i < 600; i++) fs.writeFileSync(path.join(folder, `note-${i}.md`), `# Note ${i}\n\nWorking time and rest breaks, case ${i}.\n`);
      const { child, out, closed } = startIndex(folder, store);
      const lock = path.join(store, 'writer.lock');
      for (let waited = 0; !fs.existsSync(lock); waited += 10) {
        assert.ok(waited < 60_000, `the run never took the writer lock: ${out.stderr}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      const run = childOf(child.pid!);
      assert.ok(run > 0, 'the relaunched child');
      process.kill(-child.pid!, 'SIGTSTP');
      const until = async (what: string, ok: () => boolean) => {
        for (let waited = 0; !ok(); waited += 20) {
          assert.ok(waited < 10_000, what);
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      await until('both stopped', () => state(child.pid!) === 'T' && state(run) === 'T');
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(state(run), 'T', 'the run stays stopped');
      process.kill(-child.pid!, 'SIGCONT');
      assert.equal(await closed, 0, out.stderr);
      const summary = JSON.parse(out.stdout.trim().split('\n').pop()!) as { files: number; cancelled?: boolean };
      assert.equal(summary.files, 600);
      assert.equal(summary.cancelled, undefined);
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('Ctrl+C during the maintenance after a run (its steps are children of the run) stops that child too: exit 130 and a warning that the next run does it', async () => {
    const folder = tmp('docs-rag-sigint-vi-');
    const store = path.join(folder, '.store');
    const stepProcesses = () =>
      fs.readdirSync('/proc').filter((pid) => {
        try {
          const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
          return cmd.includes('--maintenance-step') && cmd.includes(store);
        } catch {
          return false;
        }
      });
    try {
      // Enough passages for a vector index (VECTOR_INDEX_MIN_ROWS).
      const section = (i: number, k: number) => `## Part ${k}\n\nClause ${k} of note ${i}: working time, rest breaks and leave, paragraph ${i * 7 + k}.\n`;
      for (let i = 0; i < 1400; i++) fs.writeFileSync(path.join(folder, `note-${i}.md`), `# Note ${i}\n\n${[1, 2, 3, 4, 5, 6, 7].map((k) => section(i, k)).join('\n')}`);
      const { child, out, closed } = startIndex(folder, store);
      let exited = false;
      void closed.then(() => (exited = true));
      while (stepProcesses().length === 0) {
        assert.ok(!exited, `the run ended without a maintenance step: ${out.stdout}\n${out.stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      process.kill(-child.pid!, 'SIGINT');
      const code = await closed;
      assert.equal(code, 130, out.stderr);
      assert.match(out.stderr, /Stopped during the index maintenance/);
      const summary = JSON.parse(out.stdout.trim().split('\n').pop()!) as { cancelled?: boolean; chunks: number };
      assert.equal(summary.cancelled, true);
      assert.ok(summary.chunks >= VECTOR_INDEX_MIN_ROWS, `${summary.chunks} passages`);
      assert.deepEqual(stepProcesses(), [], 'the step was stopped with the command');
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});
