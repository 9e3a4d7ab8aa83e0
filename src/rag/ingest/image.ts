// Image loader: PNG, JPEG, TIFF, WebP, BMP (and GIF) read by OCR. The header is checked before anything decodes the
// pixels (a pixel bomb claims huge dimensions in a small file); formats tesseract.js does not read itself (WebP, GIF)
// are converted to PNG with @napi-rs/canvas. Citation: the file, with a quote of the paragraph's first line.
import { LoadError, type ParsedDocument } from '../types';
import { readImageHeader, sniffImageType, type ImageType } from './imageHeader';
import { DEFAULT_OCR, MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE, fileHashOf, ocrBlocks, ocrStats, recognise, type OcrContext } from './ocr';
import { quoteOf } from './normalize';

/** Read by tesseract.js (Leptonica inside the WASM core) directly. */
const DIRECT: ReadonlySet<ImageType> = new Set<ImageType>(['png', 'jpeg', 'bmp', 'tiff']);

export async function parseImage(bytes: Uint8Array, ocr: OcrContext = DEFAULT_OCR): Promise<ParsedDocument> {
  const type = sniffImageType(bytes);
  if (!type) throw new LoadError('corrupt', 'cannot read the image: not a PNG, JPEG, TIFF, WebP, BMP or GIF file (unknown header); the file may be damaged');
  const header = readImageHeader(bytes);
  if (!header) throw new LoadError('corrupt', `cannot read the image: the ${type.toUpperCase()} header is damaged or incomplete`);
  const pixels = header.width * header.height;
  if (pixels > MAX_IMAGE_PIXELS || header.width > MAX_IMAGE_SIDE || header.height > MAX_IMAGE_SIDE) {
    const mp = (pixels / 1e6).toFixed(pixels >= 1e7 ? 0 : 1);
    throw new LoadError(
      'too-large',
      `image claims ${header.width} × ${header.height} pixels (${mp} MP), more than the OCR limit of ${MAX_IMAGE_PIXELS / 1e6} MP; skipped (not decoded)`,
    );
  }
  if (!ocr.enabled) throw new LoadError('no-text', 'no extractable text (an image; OCR is turned off: docsRag.ocr.enabled / --ocr on)');
  const ctx: OcrContext = { ...ocr, fileHash: ocr.fileHash ?? fileHashOf(bytes) };
  const cachedBefore = ocrStats.cached;
  const page = await recognise(ctx, 'img', async () => (DIRECT.has(type) ? Buffer.from(bytes) : toPng(bytes, type)));
  const blocks = ocrBlocks(page, (p) => ({ quote: quoteOf(p.lines[0].text) }));
  if (blocks.length === 0) throw new LoadError('no-text', `no extractable text (OCR found no readable text in the image; confidence ${page.confidence})`);
  return {
    format: 'image',
    blocks,
    metadata: { ocrPages: '1', ocrCachedPages: String(ocrStats.cached - cachedBefore), ocrConfidence: String(page.confidence), width: String(header.width), height: String(header.height), imageType: type },
    warnings: page.confidence < 60 ? [`recognised text (OCR) has a low mean confidence (${page.confidence}); search may miss words`] : [],
  };
}

async function toPng(bytes: Uint8Array, type: ImageType): Promise<Buffer> {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { loadImage, createCanvas } = require('@napi-rs/canvas') as typeof import('@napi-rs/canvas');
    const img = await loadImage(Buffer.from(bytes));
    const canvas = createCanvas(img.width, img.height);
    const context = canvas.getContext('2d');
    context.fillStyle = '#fff';
    context.fillRect(0, 0, img.width, img.height);
    context.drawImage(img, 0, 0);
    return await canvas.encode('png');
  } catch (err) {
    throw new LoadError('corrupt', `cannot decode the ${type.toUpperCase()} image (${(err as Error).message}); the file may be damaged`);
  }
}
