// In-process dispatch from bytes to the loader of a format (runs inside the parser worker, and in tests).
// Loaders are required on first use, so a worker that only sees Markdown never loads pdf.js, mammoth or linkedom
// (worker start-up stays cheap; esbuild keeps these as lazily initialised modules in the bundle).
import { formatSpec } from '../formats';
import { LoadError, type DocFormat, type ParsedDocument } from '../types';
import { rejectCfbOffice } from './encrypted';
import { hasWords } from './normalize';
import type { OcrContext } from './ocr';

type Loader = (bytes: Uint8Array, fileName: string, ocr: OcrContext | undefined) => ParsedDocument | Promise<ParsedDocument>;

/* eslint-disable @typescript-eslint/no-require-imports */
/** The loader of every format of the table (../formats.ts); the type asks for one per row. */
const LOADERS: { readonly [F in DocFormat]: () => Loader } = {
  md: () => (require('./markdown') as typeof import('./markdown')).parseMarkdown,
  txt: () => (require('./text') as typeof import('./text')).parsePlainText,
  html: () => (require('./html') as typeof import('./html')).parseHtml,
  pdf: () => (bytes, _name, ocr) => (require('./pdf') as typeof import('./pdf')).parsePdf(bytes, ocr),
  docx: () => (require('./docx') as typeof import('./docx')).parseDocx,
  pptx: () => (require('./pptx') as typeof import('./pptx')).parsePptx,
  xlsx: () => (require('./xlsx') as typeof import('./xlsx')).parseXlsx,
  image: () => (bytes, _name, ocr) => (require('./image') as typeof import('./image')).parseImage(bytes, ocr),
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** `ocr`: OCR settings for scanned PDF pages and images (defaults: on, deu+eng, no cache). */
export async function parseBytes(bytes: Uint8Array, format: DocFormat, fileName: string, ocr?: OcrContext): Promise<ParsedDocument> {
  if (bytes.length === 0) throw new LoadError('no-text', 'no extractable text (the file is empty)');
  const spec = formatSpec(format);
  if (!spec) throw new LoadError('unsupported', `unsupported format "${String(format)}"`);
  if (spec.legacyExtension) rejectCfbOffice(bytes, format, spec.legacyExtension);
  const doc = await LOADERS[format]()(bytes, fileName, ocr);
  if (!doc.blocks.some((b) => hasWords(b.text))) throw new LoadError('no-text', 'no extractable text');
  return doc;
}
