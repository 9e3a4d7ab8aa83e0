// ParserPool: real worker threads running the real loaders; deadlines kill a thread that is stuck in synchronous code.
import { strict as assert } from 'assert';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import * as path from 'path';
import * as esbuild from 'esbuild';
import { ParserPool, formatOf } from '../../src/rag/ingest';
import { RECYCLE_AFTER_BYTES } from '../../src/rag/ingest/pool';
import { DEFAULT_OCR } from '../../src/rag/ingest/ocr';
import { LoadError } from '../../src/rag/types';
import { REALDOCS } from './ingestHelpers';
import { needsShared } from '../helpers/shared';

const ROOT = path.resolve(__dirname, '../..');
const opts = { timeoutMs: 30_000, maxFileSizeMB: 50 };

async function settle<T>(p: Promise<T>): Promise<{ value?: T; error?: unknown; ms: number }> {
  const t0 = Date.now();
  try {
    return { value: await p, ms: Date.now() - t0 };
  } catch (error) {
    return { error, ms: Date.now() - t0 };
  }
}

describe('formatOf', () => {
  it('maps extensions case-insensitively and refuses others', () => {
    assert.equal(formatOf('a/b/README.MD'), 'md');
    assert.equal(formatOf('x.markdown'), 'md');
    assert.equal(formatOf('x.htm'), 'html');
    assert.equal(formatOf('x.html'), 'html');
    assert.equal(formatOf('x.txt'), 'txt');
    assert.equal(formatOf('x.pdf'), 'pdf');
    assert.equal(formatOf('x.docx'), 'docx');
    assert.equal(formatOf('x.pptx'), 'pptx');
    assert.equal(formatOf('x.xlsx'), 'xlsx');
    assert.equal(formatOf('x.doc'), null);
    assert.equal(formatOf('Makefile'), null);
  });
});

describe('ParserPool', function () {
  needsShared('eval/realdocs');
  this.timeout(120_000);
  let dir: string;
  let bigMarkdown: string;

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'docs-rag-pool-'));
    // ~25 MB of real statute text: markdown-it needs seconds of synchronous CPU for it (no await in between).
    const gg = readFileSync(path.join(REALDOCS, 'md/GG.md'), 'utf8');
    bigMarkdown = path.join(dir, 'huge.md');
    writeFileSync(bigMarkdown, gg.repeat(140));
  });
  after(() => dir && rmSync(dir, { recursive: true, force: true }));

  it('kills a worker stuck in synchronous parsing at the deadline while the other worker keeps serving', async () => {
    const pool = new ParserPool(2);
    try {
      // Warm both workers so start-up time does not count against the deadline.
      await Promise.all([pool.parse(path.join(REALDOCS, 'md/AGG.md'), opts), pool.parse(path.join(REALDOCS, 'md/ArbZG.md'), opts)]);
      const stuck = settle(pool.parse(bigMarkdown, { timeoutMs: 800, maxFileSizeMB: 100 }));
      const other = settle(pool.parse(path.join(REALDOCS, 'pdf/ArbZG.pdf'), opts));
      const [s, o] = await Promise.all([stuck, other]);
      assert.ok(s.error instanceof LoadError, `expected a timeout, got ${s.value ? 'a document' : String(s.error)}`);
      assert.equal(s.error.kind, 'timeout');
      assert.equal(s.error.message, 'parsing took longer than 0.8 s; skipped');
      assert.ok(s.ms < 800 + 1500, `deadline overshot: ${s.ms} ms`);
      assert.ok(o.value && o.value.blocks.length > 100, `concurrent parse failed: ${String(o.error)}`);
      // The killed worker is replaced: the pool keeps working with full parallelism.
      const after = await Promise.all([pool.parse(path.join(REALDOCS, 'md/GG.md'), opts), pool.parse(path.join(REALDOCS, 'docx/ArbZG.docx'), opts)]);
      assert.ok(after.every((d) => d.blocks.length > 100));
    } finally {
      await pool.close();
    }
  });

  it('cancels a running parse through the AbortSignal and stays usable', async () => {
    const pool = new ParserPool(1);
    try {
      const controller = new AbortController();
      const running = settle(pool.parse(bigMarkdown, { timeoutMs: 60_000, maxFileSizeMB: 100, signal: controller.signal }));
      setTimeout(() => controller.abort(), 300);
      const r = await running;
      assert.ok(r.error instanceof Error && !(r.error instanceof LoadError), String(r.error));
      assert.ok(r.ms < 300 + 1500, `abort took ${r.ms} ms`);
      const doc = await pool.parse(path.join(REALDOCS, 'md/AGG.md'), opts);
      assert.equal(doc.title, 'Allgemeines Gleichbehandlungsgesetz');
    } finally {
      await pool.close();
    }
  });

  it('refuses files over the size limit, unknown types and missing files with per-file reasons', async () => {
    const pool = new ParserPool(1);
    try {
      const tooLarge = await settle(pool.parse(path.join(REALDOCS, 'md/GG.md'), { timeoutMs: 5000, maxFileSizeMB: 0.1 }));
      assert.ok(tooLarge.error instanceof LoadError);
      assert.equal(tooLarge.error.kind, 'too-large');
      assert.equal(tooLarge.error.message, 'file is 0.2 MB, larger than the limit of 0.1 MB; skipped (raise maxFileSizeMB to index it)');
      const unknown = await settle(pool.parse(path.join(REALDOCS, 'README.md').replace('.md', '.rtf'), opts));
      assert.ok(unknown.error instanceof LoadError && unknown.error.kind === 'unsupported', String(unknown.error));
      const missing = await settle(pool.parse(path.join(dir, 'gone.pdf'), opts));
      assert.ok(missing.error instanceof LoadError && missing.error.kind === 'corrupt', String(missing.error));
      assert.match(missing.error.message, /ENOENT/);
      const empty = path.join(dir, 'empty.md');
      writeFileSync(empty, '');
      const e = await settle(pool.parse(empty, opts));
      assert.ok(e.error instanceof LoadError && e.error.kind === 'no-text', String(e.error));
    } finally {
      await pool.close();
    }
  });

  it('reports a parse that exceeds the worker memory limit as too-large and replaces the worker', async () => {
    const pool = new ParserPool(1, { maxMemoryMb: 48 });
    try {
      const r = await settle(pool.parse(bigMarkdown, { timeoutMs: 60_000, maxFileSizeMB: 100 }));
      assert.ok(r.error instanceof LoadError, String(r.error));
      assert.equal(r.error.kind, 'too-large');
      assert.equal(r.error.message, "parsing needed more memory than the parser's limit of 48 MB; skipped");
      const doc = await pool.parse(path.join(REALDOCS, 'md/AGG.md'), opts);
      assert.ok(doc.blocks.length > 100);
    } finally {
      await pool.close();
    }
  });

  it('warm() starts one worker ahead of the first parse, which then runs on it; a second warm() starts none', async () => {
    const pool = new ParserPool(2);
    try {
      pool.warm();
      pool.warm();
      assert.equal(pool.spawned, 1);
      const doc = await pool.parse(path.join(REALDOCS, 'md/AGG.md'), opts);
      assert.ok(doc.blocks.length > 100);
      assert.equal(pool.spawned, 1, 'the first parse ran on the warm worker');
    } finally {
      await pool.close();
    }
  });

  it('replaces a worker after it parsed a large file (its grown heap goes back), and keeps it after small ones', async () => {
    const pool = new ParserPool(1);
    try {
      const agg = path.join(REALDOCS, 'md/AGG.md');
      const large = path.join(dir, 'large.md');
      writeFileSync(large, readFileSync(agg, 'utf8').repeat(Math.ceil(RECYCLE_AFTER_BYTES / readFileSync(agg).length) + 1));
      await pool.parse(agg, opts);
      await pool.parse(agg, opts);
      assert.equal(pool.spawned, 1, 'small files share one worker');
      const doc = await pool.parse(large, opts);
      assert.ok(doc.blocks.length > 100);
      await pool.parse(agg, opts);
      assert.equal(pool.spawned, 2, 'the worker that parsed the large file was replaced');
    } finally {
      await pool.close();
    }
  });

  it('says how to fix a missing worker build', () => {
    assert.throws(() => new ParserPool(1, { workerPath: path.join(dir, 'nope/parseWorker.js') }), /parser worker not found .*npm run build/);
  });

  it('rejects queued parses when closed', async () => {
    const pool = new ParserPool(1);
    const first = settle(pool.parse(bigMarkdown, { timeoutMs: 60_000, maxFileSizeMB: 100 }));
    const queued = settle(pool.parse(path.join(REALDOCS, 'md/AGG.md'), opts));
    await new Promise((r) => setTimeout(r, 100));
    await pool.close();
    const [a, b] = await Promise.all([first, queued]);
    assert.ok(a.error instanceof Error && b.error instanceof Error);
    await assert.rejects(pool.parse(path.join(REALDOCS, 'md/AGG.md'), opts), /closed/);
  });

  it('starts parses in the order they were called (a later call with a quicker stat never overtakes an earlier one)', async () => {
    // The stat of each call runs on the libuv thread pool, where two stats finish in either order (about 1 adjacent pair in
    // 100 here). Queued after its stat, a later call could take the worker first; with one worker the order is visible.
    const files = Array.from({ length: 300 }, (_, i) => {
      const f = path.join(dir, `order-${i}.md`);
      writeFileSync(f, `# Document ${i}\n\nParagraph number ${i} of the ordering test.\n`);
      return f;
    });
    const pool = new ParserPool(1);
    try {
      await pool.parse(files[0], opts);
      const order: number[] = [];
      await Promise.all(files.map((f, i) => pool.parse(f, opts).then(() => order.push(i))));
      assert.deepEqual(order, files.map((_, i) => i));
    } finally {
      await pool.close();
    }
  });

  it('runs the esbuild-bundled worker (dist/parseWorker.js) for every format', async () => {
    const out = path.join(dir, 'dist');
    // Same options as esbuild.mjs for the worker entry.
    await esbuild.build({
      entryPoints: [path.join(ROOT, 'src/rag/ingest/parseWorker.ts')],
      outfile: path.join(out, 'parseWorker.js'),
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      external: ['vscode', '@lancedb/lancedb', 'apache-arrow', 'tesseract.js', '@napi-rs/canvas'],
      logLevel: 'silent',
    });
    const pool = new ParserPool(2, { workerPath: path.join(out, 'parseWorker.js') });
    try {
      const files = ['pdf/ArbZG.pdf', 'docx/ArbZG.docx', 'md/ArbZG.md', 'html/heise.html', 'pptx/testPPT_various.pptx', 'xlsx/testEXCEL.xlsx'];
      const docs = await Promise.all(files.map((f) => pool.parse(path.join(REALDOCS, f), opts)));
      assert.deepEqual(docs.map((d) => d.format), ['pdf', 'docx', 'md', 'html', 'pptx', 'xlsx']);
      assert.ok(docs.every((d) => d.blocks.length > 0));
      // OCR off here: this copy of the bundle lives outside the repository, where tesseract.js (external) does not resolve.
      const scan = await settle(pool.parse(path.join(REALDOCS, 'pdf/c02-22.pdf'), { ...opts, ocr: { ...DEFAULT_OCR, enabled: false } }));
      assert.ok(scan.error instanceof LoadError && scan.error.message === 'no extractable text (OCR needed; OCR is turned off: docsRag.ocr.enabled / --ocr on)', String(scan.error));
    } finally {
      await pool.close();
    }
  });
});
