// In-process dispatch from bytes to the loader of a format (runs inside the parser worker, and in tests).
// Loaders are required on first use, so a worker that only sees Markdown never loads pdf.js, mammoth or linkedom
// (worker start-up stays cheap; esbuild keeps these as lazily initialised modules in the bundle).
import { LoadError, type DocFormat, type ParsedDocument } from '../types';
import { rejectCfbOffice } from './encrypted';
import { hasWords } from './normalize';
import type { OcrContext } from './ocr';

/* eslint-disable @typescript-eslint/no-require-imports */
const loaders = {
  md: () => (require('./markdown') as typeof import('./markdown')).parseMarkdown,
  txt: () => (require('./text') as typeof import('./text')).parsePlainText,
  html: () => (require('./html') as typeof import('./html')).parseHtml,
  pdf: () => (require('./pdf') as typeof import('./pdf')).parsePdf,
  docx: () => (require('./docx') as typeof import('./docx')).parseDocx,
  pptx: () => (require('./pptx') as typeof import('./pptx')).parsePptx,
  xlsx: () => (require('./xlsx') as typeof import('./xlsx')).parseXlsx,
  image: () => (require('./image') as typeof import('./image')).parseImage,
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** `ocr`: OCR settings for scanned PDF pages and images (defaults: on, deu+eng, no cache). */
export async function parseBytes(bytes: Uint8Array, format: DocFormat, fileName: string, ocr?: OcrContext): Promise<ParsedDocument> {
  if (bytes.length === 0) throw new LoadError('no-text', 'no extractable text (the file is empty)');
  let doc: ParsedDocument;
  switch (format) {
    case 'md':
      doc = loaders.md()(bytes);
      break;
    case 'txt':
      doc = loaders.txt()(bytes);
      break;
    case 'html':
      doc = loaders.html()(bytes, fileName);
      break;
    case 'pdf':
      doc = await loaders.pdf()(bytes, ocr);
      break;
    case 'docx':
      rejectCfbOffice(bytes, format);
      doc = await loaders.docx()(bytes);
      break;
    case 'pptx':
      rejectCfbOffice(bytes, format);
      doc = loaders.pptx()(bytes);
      break;
    case 'xlsx':
      rejectCfbOffice(bytes, format);
      doc = loaders.xlsx()(bytes);
      break;
    case 'image':
      doc = await loaders.image()(bytes, ocr);
      break;
    default:
      throw new LoadError('unsupported', `unsupported format "${String(format)}"`);
  }
  if (!doc.blocks.some((b) => hasWords(b.text))) throw new LoadError('no-text', 'no extractable text');
  return doc;
}
