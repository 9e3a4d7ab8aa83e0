// Seconds per scanned page: the three image-only realdocs PDFs through one ParserPool worker (first file includes the
// worker and tesseract start-up), no OCR cache. Run: npx tsx bench/ocrPages.ts
import { ParserPool } from '../src/rag/ingest';
(async () => {
  const pool = new ParserPool(1);
  for (const f of ['linn', 'masks', 'c02-22']) {
    const t = Date.now(); const c0 = process.cpuUsage();
    const d = await pool.parse(`/work/shared/eval/realdocs/pdf/${f}.pdf`, { timeoutMs: 300000, maxFileSizeMB: 50, ocr: { enabled: true, languages: 'deu+eng', maxPages: 50 } });
    const c = process.cpuUsage(c0);
    console.log(`${f}.pdf: ${((Date.now() - t) / 1000).toFixed(1)} s wall, ${((c.user + c.system) / 1e6).toFixed(1)} CPU-s (all threads), ocrPages ${d.metadata.ocrPages}, mean confidence ${d.metadata.ocrConfidence}, ${d.blocks.length} blocks`);
  }
  await pool.close();
})();
