// File extension → document format.
import * as path from 'path';
import type { DocFormat } from '../types';

const BY_EXTENSION: Record<string, DocFormat> = {
  '.md': 'md',
  '.markdown': 'md',
  '.txt': 'txt',
  '.html': 'html',
  '.htm': 'html',
  '.pdf': 'pdf',
  '.docx': 'docx',
  '.pptx': 'pptx',
  '.xlsx': 'xlsx',
  // Images are read by OCR (ingest/image.ts).
  '.png': 'image',
  '.jpg': 'image',
  '.jpeg': 'image',
  '.tif': 'image',
  '.tiff': 'image',
  '.webp': 'image',
  '.bmp': 'image',
};

/** The format of a file by its extension (case-insensitive), or null when the loaders do not handle it. */
export function formatOf(filePath: string): DocFormat | null {
  return BY_EXTENSION[path.extname(filePath).toLowerCase()] ?? null;
}
