// Test images of a scanned page (not a spec file): realdocs' linn.pdf (an image-only manual page) rendered with
// pdf.js + @napi-rs/canvas and cut into strips, encoded as PNG/JPEG; and a hand-built PDF mixing a text page with a
// scanned (image-only) page.
import { readFileSync } from 'fs';
import * as path from 'path';
import { createIsomorphicCanvasFactory, getDocumentProxy } from 'unpdf';
import { REALDOCS } from './ingestHelpers';

export const LINN = path.join(REALDOCS, 'pdf/linn.pdf');

interface Strip {
  png: Buffer;
  jpeg: Buffer;
}

let rendered: Promise<{ full: Buffer; top: Strip; features: Strip }> | null = null;

/** linn.pdf page 1 at 2× (1224 × 1584): the full page as PNG, plus two strips (the intro, the feature list). */
export function linnImages(): Promise<{ full: Buffer; top: Strip; features: Strip }> {
  rendered ??= (async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const canvasModule = require('@napi-rs/canvas') as typeof import('@napi-rs/canvas');
    const CanvasFactory = await createIsomorphicCanvasFactory(async () => canvasModule);
    const doc = await getDocumentProxy(new Uint8Array(readFileSync(LINN)), { verbosity: 0, CanvasFactory } as Parameters<typeof getDocumentProxy>[1]);
    const page = await doc.getPage(1);
    const viewport = page.getViewport({ scale: 2 });
    const canvas = canvasModule.createCanvas(Math.ceil(viewport.width), Math.ceil(viewport.height));
    const ctx = canvas.getContext('2d');
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    await page.render({ canvas, canvasContext: ctx, viewport } as unknown as Parameters<typeof page.render>[0]).promise;
    await doc.destroy();
    const strip = async (y: number, h: number): Promise<Strip> => {
      const c = canvasModule.createCanvas(canvas.width, h);
      c.getContext('2d').drawImage(canvas, 0, y, canvas.width, h, 0, 0, canvas.width, h);
      return { png: await c.encode('png'), jpeg: await c.encode('jpeg', 90) };
    };
    return { full: await canvas.encode('png'), top: await strip(150, 140), features: await strip(262, 270) };
  })();
  return rendered;
}

/** A two-page PDF: page 1 has a text layer, page 2 only paints the given JPEG (a scan). */
export function mixedPdf(pageOneText: string, jpeg: Buffer, width: number, height: number): Buffer {
  const objects: Buffer[] = [];
  const text = `BT /F1 14 Tf 72 720 Td (${pageOneText.replace(/[()\\]/g, '\\$&')}) Tj ET`;
  const w = 540;
  const h = Math.round((w * height) / width);
  const draw = `q ${w} 0 0 ${h} 36 ${760 - h} cm /Im1 Do Q`;
  objects.push(Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'));
  objects.push(Buffer.from('<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>'));
  objects.push(Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 6 0 R >>'));
  objects.push(Buffer.from('<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 7 0 R >> >> /Contents 8 0 R >>'));
  objects.push(Buffer.from('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>'));
  objects.push(Buffer.from(`<< /Length ${text.length} >>\nstream\n${text}\nendstream`));
  objects.push(
    Buffer.concat([
      Buffer.from(`<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length ${jpeg.length} >>\nstream\n`),
      jpeg,
      Buffer.from('\nendstream'),
    ]),
  );
  objects.push(Buffer.from(`<< /Length ${draw.length} >>\nstream\n${draw}\nendstream`));
  const parts: Buffer[] = [Buffer.from('%PDF-1.4\n')];
  const offsets: number[] = [];
  let at = parts[0].length;
  objects.forEach((body, i) => {
    offsets.push(at);
    const obj = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    parts.push(obj);
    at += obj.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n`, '0000000000 65535 f \n', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`));
  return Buffer.concat(parts);
}

/** Width and height of a PNG (IHDR). */
export function pngSize(png: Buffer): { width: number; height: number } {
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
