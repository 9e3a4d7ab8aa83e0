// Turns a passage of the index into a VS Code location: the exact line range of text files, or the passage's range in
// the read-only extracted-text document of any other file (formats.ts `location`).
import * as vscode from 'vscode';
import { locationKind } from '../rag/formats';
import type { Passage } from '../rag/types';
import { ocrSuffix } from '../rag/search/hitJson';
import type { ExtractedTextProvider } from './extractProvider';

/** Whether passages of the format are cited by lines of the file as stored (Markdown, text, HTML). */
export function isTextFormat(format: string): boolean {
  return locationKind(format) === 'lines';
}

export function fileUri(folder: vscode.WorkspaceFolder, rel: string): vscode.Uri {
  return vscode.Uri.joinPath(folder.uri, ...rel.split('/'));
}

/** Short human label: "docs/guide.md:12-18", "report.pdf, p. 3", "slides.pptx". */
export function locationLabel(passage: Passage): string {
  const loc = passage.loc;
  if (isTextFormat(passage.format) && loc.startLine) {
    return loc.endLine && loc.endLine !== loc.startLine ? `${passage.path}:${loc.startLine}-${loc.endLine}` : `${passage.path}:${loc.startLine}`;
  }
  const ocr = ocrSuffix(loc);
  if (loc.page) return (loc.pageEnd && loc.pageEnd !== loc.page ? `${passage.path}, pp. ${loc.page}-${loc.pageEnd}` : `${passage.path}, p. ${loc.page}`) + ocr;
  return passage.path + ocr;
}

export class Locator {
  constructor(private readonly extracts: ExtractedTextProvider) {}

  /** The location a citation opens. Text files: whole lines startLine..endLine of the file as stored. */
  async locate(folder: vscode.WorkspaceFolder, passage: Passage): Promise<vscode.Location> {
    const uri = fileUri(folder, passage.path);
    if (isTextFormat(passage.format) && passage.loc.startLine) {
      const start = passage.loc.startLine - 1;
      const end = (passage.loc.endLine ?? passage.loc.startLine) - 1;
      const lines = await lineLengths(uri);
      if (!lines) return new vscode.Location(uri, new vscode.Range(start, 0, end, 0));
      const last = Math.max(0, Math.min(end, lines.length - 1));
      return new vscode.Location(uri, new vscode.Range(Math.min(start, last), 0, last, lines[last]));
    }
    return this.extracts.locate(folder, passage);
  }
}

/**
 * Length of every line of a file as VS Code counts it (UTF-16 units, no line break). Uses the open document when
 * there is one; otherwise reads the file, so resolving citations does not open documents (and wake language servers).
 */
async function lineLengths(uri: vscode.Uri): Promise<number[] | undefined> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  if (open) return Array.from({ length: open.lineCount }, (_, i) => open.lineAt(i).range.end.character);
  try {
    const text = new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(uri));
    return text.split(/\r\n|\r|\n/).map((l) => l.length);
  } catch {
    return undefined;
  }
}
