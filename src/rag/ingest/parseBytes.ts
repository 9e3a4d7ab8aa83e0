// In-process dispatch from bytes to the loader of a format (runs inside the parser worker, and in tests).
import { LoadError, type DocFormat, type ParsedDocument } from '../types';
import { parseDocx } from './docx';
import { rejectCfbOffice } from './encrypted';
import { parseHtml } from './html';
import { parseMarkdown } from './markdown';
import { hasWords } from './normalize';
import { parsePdf } from './pdf';
import { parsePptx } from './pptx';
import { parsePlainText } from './text';
import { parseXlsx } from './xlsx';

export async function parseBytes(bytes: Uint8Array, format: DocFormat, fileName: string): Promise<ParsedDocument> {
  if (bytes.length === 0) throw new LoadError('no-text', 'no extractable text (the file is empty)');
  let doc: ParsedDocument;
  switch (format) {
    case 'md':
      doc = parseMarkdown(bytes);
      break;
    case 'txt':
      doc = parsePlainText(bytes);
      break;
    case 'html':
      doc = parseHtml(bytes, fileName);
      break;
    case 'pdf':
      doc = await parsePdf(bytes);
      break;
    case 'docx':
      rejectCfbOffice(bytes, format);
      doc = await parseDocx(bytes);
      break;
    case 'pptx':
      rejectCfbOffice(bytes, format);
      doc = parsePptx(bytes);
      break;
    case 'xlsx':
      rejectCfbOffice(bytes, format);
      doc = parseXlsx(bytes);
      break;
    default:
      throw new LoadError('unsupported', `unsupported format "${String(format)}"`);
  }
  if (!doc.blocks.some((b) => hasWords(b.text))) throw new LoadError('no-text', 'no extractable text');
  return doc;
}
