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

/** RGBA pixels of a PNG (decoded with @napi-rs/canvas). */
async function pixels(png: Buffer): Promise<{ width: number; height: number; data: Uint8ClampedArray }> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createCanvas, loadImage } = require('@napi-rs/canvas') as typeof import('@napi-rs/canvas');
  const img = await loadImage(png);
  const c = createCanvas(img.width, img.height);
  const ctx = c.getContext('2d');
  ctx.drawImage(img, 0, 0);
  return { width: img.width, height: img.height, data: ctx.getImageData(0, 0, img.width, img.height).data };
}

/** An uncompressed 24-bit BMP of a PNG. */
export async function toBmp(png: Buffer): Promise<Buffer> {
  const { width, height, data } = await pixels(png);
  const row = Math.ceil((width * 3) / 4) * 4;
  const b = Buffer.alloc(54 + row * height);
  b.write('BM', 0, 'latin1');
  b.writeUInt32LE(b.length, 2);
  b.writeUInt32LE(54, 10);
  b.writeUInt32LE(40, 14);
  b.writeInt32LE(width, 18);
  b.writeInt32LE(height, 22);
  b.writeUInt16LE(1, 26);
  b.writeUInt16LE(24, 28);
  b.writeUInt32LE(row * height, 34);
  for (let y = 0; y < height; y++) {
    const out = 54 + (height - 1 - y) * row;
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      b[out + x * 3] = data[i + 2];
      b[out + x * 3 + 1] = data[i + 1];
      b[out + x * 3 + 2] = data[i];
    }
  }
  return b;
}

/** An uncompressed 8-bit greyscale TIFF (little-endian, one strip) of a PNG. */
export async function toTiff(png: Buffer): Promise<Buffer> {
  const { width, height, data } = await pixels(png);
  const entries: Array<[number, number, number]> = [
    [256, 3, width], [257, 3, height], [258, 3, 8], [259, 3, 1], [262, 3, 1], [273, 4, 0], [277, 3, 1], [278, 3, height], [279, 4, width * height],
  ];
  const ifd = 8;
  const start = ifd + 2 + entries.length * 12 + 4;
  const b = Buffer.alloc(start + width * height);
  b.write('II', 0, 'latin1');
  b.writeUInt16LE(42, 2);
  b.writeUInt32LE(ifd, 4);
  b.writeUInt16LE(entries.length, ifd);
  entries.forEach(([tag, type, value], k) => {
    const e = ifd + 2 + k * 12;
    b.writeUInt16LE(tag, e);
    b.writeUInt16LE(type, e + 2);
    b.writeUInt32LE(1, e + 4);
    const v = tag === 273 ? start : value;
    if (type === 3) b.writeUInt16LE(v, e + 8);
    else b.writeUInt32LE(v, e + 8);
  });
  for (let p = 0; p < width * height; p++) b[start + p] = Math.round((data[p * 4] + data[p * 4 + 1] + data[p * 4 + 2]) / 3);
  return b;
}

/** WebP of a PNG (lossless-ish quality 95, @napi-rs/canvas). */
export async function toWebp(png: Buffer): Promise<Buffer> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createCanvas, loadImage } = require('@napi-rs/canvas') as typeof import('@napi-rs/canvas');
  const img = await loadImage(png);
  const c = createCanvas(img.width, img.height);
  c.getContext('2d').drawImage(img, 0, 0);
  return c.encode('webp', 95);
}
