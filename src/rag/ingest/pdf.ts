// PDF loader on unpdf (pdf.js): text per page in reading order (two-column aware), hyphenation repaired, headings by
// font size. Every block knows its 1-based physical page.
import { createIsomorphicCanvasFactory, getDocumentProxy, getResolvedPDFJS } from 'unpdf';
import { LoadError, type Block, type ParsedDocument } from '../types';
import { DEFAULT_OCR, fileHashOf, messageOf, ocrBlocks, ocrStats, recognise, type OcrContext } from './ocr';
import { buildFragments, composeSpacingAccents, dropRunningLines, joinLines, orderFragments, vocabularyOf, type LineFragment, type PdfTextItem } from './pdfLayout';
import { collapseWhitespace, hasWords, normalizeUnicode } from './normalize';

interface RawTextItem {
  str?: string;
  transform?: number[];
  width?: number;
  height?: number;
  hasEOL?: boolean;
}

interface PageLines {
  page: number;
  lines: LineFragment[];
  /** Filled-in text form fields (AcroForm widgets): their values live in annotations, not in the page text. */
  formValues: string[];
  columns: 1 | 2;
  right: number;
  left: number;
}

function toItem(raw: RawTextItem): PdfTextItem | null {
  if (typeof raw.str !== 'string' || !raw.transform) return null;
  const [a, b, c, d, e, f] = raw.transform;
  const size = raw.height && raw.height > 0 ? raw.height : Math.hypot(c ?? 0, d ?? 0) || Math.hypot(a ?? 0, b ?? 0);
  return { str: raw.str, x: e ?? 0, y: f ?? 0, width: raw.width ?? 0, size, hasEOL: raw.hasEOL === true };
}

function pdfError(err: unknown): LoadError {
  const e = err as { name?: string; message?: string };
  if (e?.name === 'PasswordException') return new LoadError('password-protected', 'skipped: password-protected');
  const message = collapseWhitespace(e?.message ?? String(err));
  return new LoadError('corrupt', `cannot read PDF: ${message}${/[.!]$/.test(message) ? '' : '.'} The file may be damaged; re-export or re-download it`);
}

/** Median font size weighted by characters: the body text size. */
function bodySize(pages: PageLines[]): number {
  const sizes: Array<[number, number]> = [];
  for (const p of pages) for (const l of p.lines) sizes.push([Math.round(l.size * 10) / 10, l.text.length]);
  sizes.sort((x, y) => x[0] - y[0]);
  const total = sizes.reduce((s, [, n]) => s + n, 0);
  let acc = 0;
  for (const [size, n] of sizes) {
    acc += n;
    if (acc >= total / 2) return size;
  }
  return 10;
}

/** A page whose text layer has fewer letters than this, and that paints an image, is a scan: it is recognised by OCR. */
export const OCR_TEXT_THRESHOLD = 20;

export async function parsePdf(bytes: Uint8Array, ocr: OcrContext = DEFAULT_OCR): Promise<ParsedDocument> {
  let doc: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // Copy: pdf.js may take ownership of the buffer.
    doc = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0, stopAtErrors: false });
  } catch (err) {
    throw pdfError(err);
  }
  const warnings: string[] = [];
  const metadata: Record<string, string> = { pages: String(doc.numPages) };
  let title: string | undefined;
  try {
    const meta = await doc.getMetadata();
    const info = meta.info as Record<string, unknown> | undefined;
    if (info && typeof info.Title === 'string' && info.Title.trim()) title = normalizeUnicode(info.Title.trim());
    if (info && typeof info.Author === 'string' && info.Author.trim()) metadata.author = info.Author.trim();
  } catch {
    // Metadata is optional.
  }

  const pages: PageLines[] = [];
  let hasImages = false;
  let scanPages: number[] = [];
  try {
    for (let n = 1; n <= doc.numPages; n++) {
      let items: PdfTextItem[] = [];
      let formValues: string[] = [];
      let left = 0;
      let right = 612;
      try {
        const page = await doc.getPage(n);
        const [x0, , x1] = page.view;
        left = Math.min(x0, x1);
        right = Math.max(x0, x1);
        const content = await page.getTextContent();
        items = (content.items as RawTextItem[]).map(toItem).filter((i): i is PdfTextItem => i !== null);
        formValues = await textFieldValues(page);
        page.cleanup();
      } catch (err) {
        warnings.push(`page ${n} could not be read (${(err as Error).message}); skipped`);
      }
      const fragments = buildFragments(items.map((i) => ({ ...i, str: normalizeUnicode(i.str) }))).map((f) => ({ ...f, text: composeSpacingAccents(f.text) }));
      const { ordered, columns } = orderFragments(fragments, left, right);
      pages.push({ page: n, lines: ordered, formValues, columns, left, right });
    }
    // Scans: pages with (almost) no text layer that paint an image. Only those pages are rendered and recognised.
    const sparse = pages.filter((p) => letterCount(p) < OCR_TEXT_THRESHOLD).map((p) => p.page);
    if (sparse.length > 0) scanPages = await pagesWithImages(doc, sparse);
    hasImages = scanPages.length > 0;
  } finally {
    void doc.destroy();
  }

  const kept = dropRunningLines(pages.map((p) => p.lines));
  const blocks = pagesToBlocks(pages.map((p, i) => ({ ...p, lines: kept[i] })));
  let ocrReason: string | null = null;
  if (scanPages.length > 0) {
    const result = await recognisePages(bytes, scanPages, ocr, warnings);
    ocrReason = result.reason;
    if (result.blocks.length > 0) {
      blocks.push(...result.blocks);
      // Stable: text-layer blocks of a page stay before its recognised ones.
      blocks.sort((a, b) => (a.loc.page ?? 0) - (b.loc.page ?? 0));
      metadata.ocrPages = String(result.pages);
      // Of those, read from the OCR cache (not recognised again).
      metadata.ocrCachedPages = String(result.cached);
      metadata.ocrConfidence = String(result.confidence);
    }
  }
  const text = blocks.map((b) => b.text).join(' ');
  if (!hasWords(text)) {
    // Pages with images but no text are scans; a page with nothing on it is simply empty.
    throw new LoadError('no-text', hasImages ? (ocrReason ?? 'no extractable text (OCR needed)') : 'no extractable text');
  }
  const nonSpace = text.replace(/\s/g, '');
  const letters = (nonSpace.match(/[\p{L}\p{N}]/gu) ?? []).length;
  if (letters / nonSpace.length < 0.5) {
    warnings.push('extracted text looks unreadable (a font without Unicode mapping?); search quality for this file will be poor');
  }
  const twoColumnPages = pages.filter((p) => p.columns === 2).length;
  if (twoColumnPages > 0) metadata.twoColumnPages = String(twoColumnPages);
  return { format: 'pdf', title: title ?? blocks.find((b) => b.kind === 'heading')?.text, blocks, metadata, warnings };
}

interface RawAnnotation {
  subtype?: string;
  fieldType?: string;
  fieldValue?: unknown;
  alternativeText?: string;
}

/** Values typed into text form fields on a page ("Label: value" when the field has a tooltip label). */
async function textFieldValues(page: { getAnnotations(): Promise<unknown[]> }): Promise<string[]> {
  try {
    const annotations = (await page.getAnnotations()) as RawAnnotation[];
    const out: string[] = [];
    for (const a of annotations) {
      if (a.subtype !== 'Widget' || a.fieldType !== 'Tx' || typeof a.fieldValue !== 'string') continue;
      const value = collapseWhitespace(normalizeUnicode(a.fieldValue));
      if (!hasWords(value)) continue;
      const label = collapseWhitespace(a.alternativeText ?? '');
      out.push(label ? `${label}: ${value}` : value);
    }
    return out;
  } catch {
    return [];
  }
}

function letterCount(p: PageLines): number {
  let n = 0;
  for (const l of p.lines) n += (l.text.match(/[\p{L}\p{N}]/gu) ?? []).length;
  return n;
}

/** The pages among `candidates` that paint an image (scans without, or with a negligible, text layer). */
async function pagesWithImages(doc: Awaited<ReturnType<typeof getDocumentProxy>>, candidates: number[]): Promise<number[]> {
  const { OPS } = await getResolvedPDFJS();
  const imageOps = new Set<number>([OPS.paintImageXObject, OPS.paintInlineImageXObject, OPS.paintImageMaskXObject, OPS.paintImageXObjectRepeat]);
  const out: number[] = [];
  for (const n of candidates) {
    try {
      const page = await doc.getPage(n);
      const ops = await page.getOperatorList();
      if (ops.fnArray.some((fn) => imageOps.has(fn))) out.push(n);
    } catch {
      // A page that cannot be read does not decide the question.
    }
  }
  return out;
}

/** Pages are rendered so that the longer side has about this many pixels (≈ 150–200 dpi for A4/Letter). */
const RENDER_LONG_SIDE = 1600;

/**
 * Renders and recognises the scanned pages (at most ocr.maxPages). Problems become warnings; `reason` says why
 * nothing was recognised when OCR is off or unavailable.
 */
async function recognisePages(
  bytes: Uint8Array,
  scanPages: number[],
  ocr: OcrContext,
  warnings: string[],
): Promise<{ blocks: Block[]; pages: number; cached: number; confidence: number; reason: string | null }> {
  const none = (reason: string) => ({ blocks: [], pages: 0, cached: 0, confidence: 0, reason });
  if (!ocr.enabled) {
    warnings.push(`${scanPages.length} scanned page(s) without a text layer were not read: OCR is turned off`);
    return none('no extractable text (OCR needed; OCR is turned off: docsRag.ocr.enabled / --ocr on)');
  }
  const pages = scanPages.slice(0, Math.max(0, ocr.maxPages));
  if (pages.length < scanPages.length) {
    warnings.push(`only the first ${pages.length} of ${scanPages.length} scanned pages were recognised (docsRag.ocr.maxPages)`);
  }
  const ctx: OcrContext = { ...ocr, fileHash: ocr.fileHash ?? fileHashOf(bytes) };
  let doc: Awaited<ReturnType<typeof getDocumentProxy>> | null = null;
  let factory: { create(w: number, h: number): { canvas: { encode(t: 'png'): Promise<Buffer> }; context: unknown }; destroy(c: unknown): void } | null = null;
  const render = async (n: number): Promise<Buffer> => {
    if (!doc) {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const CanvasFactory = await createIsomorphicCanvasFactory(async () => require('@napi-rs/canvas') as typeof import('@napi-rs/canvas'));
      doc = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0, stopAtErrors: false, CanvasFactory } as Parameters<typeof getDocumentProxy>[1]);
      factory = new (CanvasFactory as unknown as new () => NonNullable<typeof factory>)();
    }
    const page = await doc.getPage(n);
    const base = page.getViewport({ scale: 1 });
    const scale = Math.min(3, RENDER_LONG_SIDE / Math.max(base.width, base.height, 1));
    const viewport = page.getViewport({ scale });
    const drawing = factory!.create(Math.ceil(viewport.width), Math.ceil(viewport.height));
    try {
      await page.render({ canvas: drawing.canvas, canvasContext: drawing.context, viewport } as unknown as Parameters<typeof page.render>[0]).promise;
      return await drawing.canvas.encode('png');
    } finally {
      factory!.destroy(drawing);
      page.cleanup();
    }
  };
  const blocks: Block[] = [];
  const confidences: number[] = [];
  const cachedBefore = ocrStats.cached;
  let failure: string | null = null;
  try {
    for (const n of pages) {
      try {
        const result = await recognise(ctx, `p${n}`, () => render(n));
        const pageBlocks = ocrBlocks(result, () => ({ page: n }));
        if (pageBlocks.length > 0) confidences.push(result.confidence);
        blocks.push(...pageBlocks);
      } catch (err) {
        // OCR unavailable (no traineddata) is the same for every page: say it once and stop.
        if (err instanceof LoadError && err.kind === 'no-text') {
          warnings.push(`scanned pages were not read: ${err.message}`);
          return none(err.message);
        }
        failure ??= messageOf(err);
        warnings.push(`page ${n} could not be recognised (${messageOf(err)}); skipped`);
      }
    }
  } finally {
    if (doc) void (doc as { destroy(): Promise<void> }).destroy();
  }
  const confidence = confidences.length > 0 ? Math.round(confidences.reduce((s, c) => s + c, 0) / confidences.length) : 0;
  return { blocks, pages: confidences.length, cached: ocrStats.cached - cachedBefore, confidence, reason:
      blocks.length > 0 ? null
      : failure ? `no extractable text (OCR needed; recognising the scanned pages failed: ${failure})`
      : 'no extractable text (OCR found no readable text on the scanned pages)' };
}

/** Groups ordered lines into paragraphs and headings per page. */
function pagesToBlocks(pages: PageLines[]): Block[] {
  const body = bodySize(pages);
  // Heading sizes: clearly larger than the body text; larger size → higher level.
  const headingSizes = new Set<number>();
  for (const p of pages) for (const l of p.lines) if (isHeadingLine(l, body)) headingSizes.add(Math.round(l.size));
  const levels = [...headingSizes].sort((a, b) => b - a);
  const levelOf = (size: number): number => Math.min(6, levels.indexOf(Math.round(size)) + 1);

  const vocabulary = vocabularyOf(pages.flatMap((p) => p.lines.map((l) => l.text)));
  const blocks: Block[] = [];
  for (const p of pages) {
    const columnWidth = (p.right - p.left) / p.columns;
    let para: { text: string; last: LineFragment; heading: boolean } | null = null;
    const flush = (): void => {
      if (para && hasWords(para.text)) {
        const text = collapseWhitespace(para.text);
        blocks.push(
          para.heading
            ? { kind: 'heading', level: levelOf(para.last.size), text, loc: { page: p.page } }
            : { kind: 'paragraph', text, loc: { page: p.page } },
        );
      }
      para = null;
    };
    for (const line of p.lines) {
      const heading = isHeadingLine(line, body);
      if (para) {
        const prev: LineFragment = para.last;
        const gap = prev.y - line.y;
        const lineHeight = Math.max(prev.size, line.size);
        const sameSize = Math.abs(prev.size - line.size) <= Math.max(prev.size, line.size) * 0.15;
        const shortEnd = /[.:;!?]$/.test(prev.text) && prev.x1 - prev.x0 < columnWidth * 0.7;
        const continues = heading === para.heading && sameSize && gap > 0 && gap < lineHeight * 1.75 && !shortEnd;
        if (continues) {
          para.text = joinLines(para.text, line.text, vocabulary);
          para.last = line;
          continue;
        }
        flush();
      }
      para = { text: line.text, last: line, heading };
    }
    flush();
    if (p.formValues.length > 0) blocks.push({ kind: 'paragraph', text: p.formValues.join('\n'), loc: { page: p.page } });
  }
  return blocks;
}

function isHeadingLine(line: LineFragment, body: number): boolean {
  return line.size >= body * 1.15 && line.text.length <= 150 && /\p{L}/u.test(line.text);
}
