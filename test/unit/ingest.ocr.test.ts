// OCR (tesseract.js, offline) of scanned PDF pages and images, through the real ParserPool and the indexer:
// images and a mixed PDF are found by phrases that exist only in their pixels; pixel bombs and corrupt images end as
// per-file reasons; the OCR cache means a second run (or a renamed copy) recognises nothing; the deadline holds.
import { strict as assert } from 'assert';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import * as path from 'path';
import { detectLanguage } from '../../src/rag/text/language';
import { openEngine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';
import { ParserPool, formatOf } from '../../src/rag/ingest';
import { readImageHeader } from '../../src/rag/ingest/imageHeader';
import { DEFAULT_OCR, findTessdata, type OcrOptions } from '../../src/rag/ingest/ocr';
import { createRetriever } from '../../src/rag/search';
import { formatLocation } from '../../src/rag/answer/citations';
import { LoadError, type ParsedDocument } from '../../src/rag/types';
import { flatText } from './ingestHelpers';
import { linnImages, mixedPdf, pngSize, toBmp, toTiff, toWebp } from './ocrHelpers';

const INTRO = 'state-of-the-art composition and performance tool';
const FEATURES = 'Each of the 100 sequences contains 32 simultaneous';
const TEXT_PAGE = 'Quarterly maintenance schedule for the pumping station';

async function settle(p: Promise<ParsedDocument>): Promise<{ doc?: ParsedDocument; error?: unknown }> {
  try {
    return { doc: await p };
  } catch (error) {
    return { error };
  }
}

function pngHeader(width: number, height: number): Buffer {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  b[24] = 8;
  b[25] = 6;
  return b;
}

describe('OCR: scanned pages and images', function () {
  this.timeout(600_000);
  const dir = mkdtempSync(path.join(tmpdir(), 'docs-rag-ocr-'));
  const ws = path.join(dir, 'ws');
  // The same cache folder the indexer uses for this workspace: the index run below reuses what the parse tests read.
  const cacheDir = path.join(ws, '.docs-rag', 'ocr-cache');
  const ocr: OcrOptions = { ...DEFAULT_OCR, cacheDir };
  // Generous per-page deadline: the machine is shared; the deadline itself is tested separately.
  const opts = { timeoutMs: 300_000, maxFileSizeMB: 50, ocr };
  let pool: ParserPool;

  before(async () => {
    mkdirSync(ws, { recursive: true });
    const images = await linnImages();
    writeFileSync(path.join(ws, 'scan-intro.png'), images.top.png);
    writeFileSync(path.join(ws, 'scan-features.jpg'), images.features.jpeg);
    const { width, height } = pngSize(images.features.png);
    writeFileSync(path.join(ws, 'mixed.pdf'), mixedPdf(TEXT_PAGE, images.features.jpeg, width, height));
    pool = new ParserPool(1);
  });
  after(async () => {
    await pool.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the image header without decoding (PNG, JPEG) and maps image extensions to the image format', async () => {
    const images = await linnImages();
    assert.deepEqual(readImageHeader(images.top.png), { type: 'png', ...pngSize(images.top.png) });
    assert.deepEqual(readImageHeader(images.top.jpeg), { type: 'jpeg', ...pngSize(images.top.png) });
    for (const ext of ['png', 'jpg', 'jpeg', 'tif', 'tiff', 'webp', 'bmp', 'PNG']) assert.equal(formatOf(`a/b.${ext}`), 'image', ext);
  });

  it('a PNG of a scanned page: recognised text with its confidence, the first line as quote; first run recognises', async () => {
    const doc = await pool.parse(path.join(ws, 'scan-intro.png'), opts);
    assert.equal(doc.format, 'image');
    assert.ok(flatText(doc).includes(INTRO), flatText(doc));
    assert.equal(doc.metadata.ocrCachedPages, '0');
    for (const b of doc.blocks) {
      assert.ok(typeof b.loc.ocrConfidence === 'number' && b.loc.ocrConfidence > 0 && b.loc.ocrConfidence <= 100, JSON.stringify(b.loc));
      assert.ok(b.loc.quote && b.text.startsWith(b.loc.quote.slice(0, 20)), JSON.stringify(b));
    }
  });

  it('a JPEG of a scanned page is recognised', async () => {
    const doc = await pool.parse(path.join(ws, 'scan-features.jpg'), opts);
    assert.ok(flatText(doc).includes(FEATURES), flatText(doc));
  });

  it('a mixed PDF: the text page keeps its text layer, only the scanned page is recognised, with its page', async () => {
    const doc = await pool.parse(path.join(ws, 'mixed.pdf'), opts);
    assert.equal(doc.metadata.ocrPages, '1');
    const page1 = doc.blocks.filter((b) => b.loc.page === 1);
    const page2 = doc.blocks.filter((b) => b.loc.page === 2);
    assert.ok(page1.some((b) => b.text.includes(TEXT_PAGE)));
    assert.ok(page1.every((b) => b.loc.ocrConfidence === undefined), 'the text page was OCRed');
    assert.ok(page2.length > 0 && page2.every((b) => typeof b.loc.ocrConfidence === 'number'));
    assert.ok(page2.map((b) => b.text).join(' ').includes(FEATURES));
  });

  it('the cache: a second parse, and a renamed copy, recognise nothing and give the same text', async () => {
    const first = await pool.parse(path.join(ws, 'scan-intro.png'), opts);
    copyFileSync(path.join(ws, 'scan-intro.png'), path.join(dir, 'renamed.png'));
    const renamed = await pool.parse(path.join(dir, 'renamed.png'), opts);
    for (const doc of [first, renamed]) {
      assert.equal(doc.metadata.ocrCachedPages, '1');
      assert.equal(flatText(doc), flatText(first));
    }
    const pdf = await pool.parse(path.join(ws, 'mixed.pdf'), opts);
    assert.equal(pdf.metadata.ocrCachedPages, '1');
  });

  it('indexing: each image and the scanned page are found by a phrase only in their pixels; citations say OCR', async () => {
    const engine = await openEngine({ folder: ws });
    try {
      const res = await indexFolder(engine);
      assert.equal(res.errors.length, 0, JSON.stringify(res.errors));
      const retriever = createRetriever(engine, { config: 'default', detect: detectLanguage });
      for (const [phrase, file] of [
        ['LinnSequencer state-of-the-art composition and performance tool', 'scan-intro.png'],
        ['100 sequences 32 simultaneous polyphonic tracks', 'scan-features.jpg'],
      ]) {
        const r = await retriever.retrieve(phrase, { k: 5, context: false });
        const hit = r.hits.find((h) => h.passage.path === file);
        assert.ok(hit, `${file} not found by "${phrase}": ${r.hits.map((h) => h.passage.path).join(', ')}`);
        assert.equal(hit.passage.format, 'image');
        assert.ok(typeof hit.passage.loc.ocrConfidence === 'number');
        assert.match(formatLocation(hit.passage), /recognised text \(OCR, confidence \d+%\)/);
      }
      const r = await retriever.retrieve('100 sequences 32 simultaneous polyphonic tracks', { k: 10, context: false });
      const pdfHit = r.hits.find((h) => h.passage.path === 'mixed.pdf' && h.passage.level === 2);
      assert.ok(pdfHit, r.hits.map((h) => `${h.passage.path} L${h.passage.level}`).join(', '));
      // The short text page packs into the same passage as the scan (as two text pages would): the range covers page 2.
      const { page, pageEnd } = pdfHit.passage.loc;
      assert.ok(page !== undefined && page <= 2 && (pageEnd ?? page) >= 2, JSON.stringify(pdfHit.passage.loc));
      assert.ok(typeof pdfHit.passage.loc.ocrConfidence === 'number', 'the passage does not say it holds recognised text');
    } finally {
      await engine.close();
    }
  });

  it('TIFF, WebP and BMP of the same scan are read too (header dimensions checked first)', async () => {
    const images = await linnImages();
    const size = pngSize(images.top.png);
    for (const [name, bytes] of [
      ['scan.tif', await toTiff(images.top.png)],
      ['scan.webp', await toWebp(images.top.png)],
      ['scan.bmp', await toBmp(images.top.png)],
    ] as const) {
      const header = readImageHeader(bytes);
      assert.deepEqual(header && { width: header.width, height: header.height }, size, name);
      writeFileSync(path.join(dir, name), bytes);
      const s = await settle(pool.parse(path.join(dir, name), opts));
      assert.ok(s.doc, `${name}: ${String(s.error)}`);
      assert.ok(flatText(s.doc).includes(INTRO), `${name}: ${flatText(s.doc)}`);
    }
  });

  it('a pixel bomb (a PNG header claiming 100000 × 100000 pixels) is refused before decoding', async () => {
    writeFileSync(path.join(dir, 'bomb.png'), Buffer.concat([pngHeader(100_000, 100_000), Buffer.alloc(64)]));
    const s = await settle(pool.parse(path.join(dir, 'bomb.png'), opts));
    assert.ok(s.error instanceof LoadError, String(s.error));
    assert.equal(s.error.kind, 'too-large');
    assert.match(s.error.message, /100000 × 100000 pixels .* OCR limit .*\(not decoded\)/);
  });

  it('corrupt images: an unknown header, and a PNG whose data is cut off, end as per-file corrupt reasons', async () => {
    writeFileSync(path.join(dir, 'noise.png'), Buffer.from('this is not an image at all, just text'));
    const images = await linnImages();
    writeFileSync(path.join(dir, 'cut.png'), images.top.png.subarray(0, 200));
    for (const name of ['noise.png', 'cut.png']) {
      const s = await settle(pool.parse(path.join(dir, name), opts));
      assert.ok(s.error instanceof LoadError, `${name}: ${String(s.error)}`);
      assert.equal(s.error.kind, 'corrupt', `${name}: ${s.error.message}`);
    }
    // The pool still works after them.
    const doc = await pool.parse(path.join(ws, 'scan-intro.png'), opts);
    assert.ok(flatText(doc).includes(INTRO));
  });

  it('OCR off, or traineddata missing: a clear per-file reason, never a crash', async () => {
    const off = await settle(pool.parse(path.join(dir, 'renamed.png'), { ...opts, ocr: { ...ocr, enabled: false } }));
    assert.ok(off.error instanceof LoadError && off.error.kind === 'no-text' && /OCR is turned off/.test(off.error.message), String(off.error));
    const empty = mkdtempSync(path.join(dir, 'tessdata-'));
    const missing = await settle(pool.parse(path.join(dir, 'renamed.png'), { ...opts, ocr: { ...ocr, cacheDir: undefined, langPath: empty } }));
    assert.ok(missing.error instanceof LoadError && missing.error.kind === 'no-text', String(missing.error));
    assert.match(missing.error.message, /deu\.traineddata, eng\.traineddata not found .* scripts\/ocr\/traineddata\.sh/);
    // A mixed PDF keeps its text page and warns about the scanned one.
    const pdf = await pool.parse(path.join(ws, 'mixed.pdf'), { ...opts, ocr: { ...ocr, cacheDir: undefined, langPath: empty } });
    assert.ok(flatText(pdf).includes(TEXT_PAGE));
    assert.ok(pdf.warnings.some((w) => /scanned pages were not read: .*traineddata/.test(w)), pdf.warnings.join('; '));
  });

  it('maxPages caps the recognised pages of a file', async () => {
    const doc = await pool.parse(path.join(ws, 'mixed.pdf'), { ...opts, ocr: { ...ocr, maxPages: 0 } });
    assert.ok(doc.blocks.every((b) => b.loc.page === 1));
    assert.ok(doc.warnings.some((w) => /only the first 0 of 1 scanned pages/.test(w)), doc.warnings.join('; '));
  });

  it('the deadline: OCR past it ends as a per-file timeout and the next file still parses', async () => {
    // Nothing cached for this copy's languages: recognition has to run, and a 1 ms deadline cannot be met.
    const s = await settle(pool.parse(path.join(ws, 'scan-features.jpg'), { ...opts, timeoutMs: 1, ocr: { ...ocr, cacheDir: undefined } }));
    assert.ok(s.error instanceof LoadError, String(s.error));
    assert.equal(s.error.kind, 'timeout');
    const doc = await pool.parse(path.join(ws, 'scan-intro.png'), opts);
    assert.ok(flatText(doc).includes(INTRO));
  });

  it('findTessdata finds the shipped deu and eng traineddata', () => {
    assert.ok(findTessdata(['deu', 'eng']));
  });
});

describe('ParserPool: the deadline restarts for each recognised page', function () {
  this.timeout(60_000);
  it('a worker that announces an OCR page and then hangs is killed with the OCR reason; the pool serves on', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'docs-rag-ocr-pool-'));
    try {
      // A stand-in worker: announces a page (as parseWorker does before each recognised page), then never answers;
      // for a file named ok.md it answers at once.
      const worker = path.join(dir, 'worker.js');
      writeFileSync(
        worker,
        `const { parentPort } = require('worker_threads');
         parentPort.on('message', (req) => {
           if (req.absPath.endsWith('ok.md')) return parentPort.postMessage({ id: req.id, ok: true, doc: { format: 'md', blocks: [], metadata: {}, warnings: [] } });
           parentPort.postMessage({ id: req.id, deadline: 'page' });
           setInterval(() => {}, 1000);
         });`,
      );
      writeFileSync(path.join(dir, 'scan.png'), 'x');
      writeFileSync(path.join(dir, 'ok.md'), 'x');
      const pool = new ParserPool(1, { workerPath: worker });
      try {
        const s = await settle(pool.parse(path.join(dir, 'scan.png'), { timeoutMs: 3000, maxFileSizeMB: 1 }));
        assert.ok(s.error instanceof LoadError, String(s.error));
        assert.equal(s.error.kind, 'timeout');
        assert.equal(s.error.message, 'recognising a page (OCR) took longer than 3 s; skipped');
        const ok = await pool.parse(path.join(dir, 'ok.md'), { timeoutMs: 3000, maxFileSizeMB: 1 });
        assert.equal(ok.format, 'md');
      } finally {
        await pool.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
