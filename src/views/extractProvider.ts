// Read-only virtual documents (`docs-rag-extract:`) that show the text extracted from a file not cited by lines (PDF,
// Office, images: formats.ts `location`), built from the passages in the index, so a citation into such a file can
// select its exact range and name its page.
import * as vscode from 'vscode';
import { createPathFilter, originalFile } from '../rag/index/pathFilter';
import type { Passage } from '../rag/types';
import type { EngineHost } from './engineHost';
import { readSettings } from './settings';
import { OCR_NOTE } from '../rag/search/hitJson';

export const EXTRACT_SCHEME = 'docs-rag-extract';

interface ExtractedDoc {
  text: string;
  ranges: Map<string, vscode.Range>;
  /** Line of each section heading, keyed by the heading path joined with NUL. */
  headingLines: Map<string, number>;
  /** chunkPath per passage id, to find the passages under a section. */
  chunkPaths: { id: string; chunkPath: string }[];
}

export function extractUri(folder: vscode.WorkspaceFolder, rel: string): vscode.Uri {
  return vscode.Uri.from({ scheme: EXTRACT_SCHEME, path: `/${rel}`, query: new URLSearchParams({ folder: folder.uri.toString() }).toString() });
}

function pageHeader(p: Passage): string | undefined {
  // Recognised text says so (and how sure the OCR was) in the page line.
  const ocr = p.loc.ocrConfidence !== undefined ? ` (${OCR_NOTE}, confidence ${p.loc.ocrConfidence}%)` : '';
  if (p.loc.page) return (p.loc.pageEnd && p.loc.pageEnd !== p.loc.page ? `Pages ${p.loc.page}-${p.loc.pageEnd}` : `Page ${p.loc.page}`) + ocr;
  return ocr ? `Image: ${ocr.trim().slice(1, -1)}` : undefined;
}

/**
 * Lays out the passages in document order and records each passage's range. PDF pages get a "── Page n ──" line;
 * section headings are written as plain lines where the section starts, so a section's range (heading + passages)
 * reads like the section's own text.
 */
export function layoutExtractedText(rel: string, format: string, passages: Passage[]): ExtractedDoc {
  const lines: string[] = [
    `Extracted text of ${rel} (${format.toUpperCase()}, read-only). Use "Docs RAG: Open original file in the system viewer" to see the file itself.`,
    '',
  ];
  const ranges = new Map<string, vscode.Range>();
  const headingLines = new Map<string, number>();
  let lastPage = '';
  let lastPath: string[] = [];
  for (const p of passages) {
    const page = pageHeader(p) ?? '';
    if (page && page !== lastPage) {
      lines.push(`── ${page} ──`, '');
      lastPage = page;
    }
    let same = 0;
    while (same < lastPath.length && same < p.headingPath.length && lastPath[same] === p.headingPath[same]) same++;
    for (let i = same; i < p.headingPath.length; i++) {
      headingLines.set(p.headingPath.slice(0, i + 1).join('\u0000'), lines.length);
      lines.push(p.headingPath[i]);
    }
    lastPath = p.headingPath;
    const body = p.text.replace(/\r\n?/g, '\n').split('\n');
    const start = lines.length;
    lines.push(...body);
    const end = lines.length - 1;
    ranges.set(p.id, new vscode.Range(start, 0, end, body[body.length - 1].length));
    lines.push('');
  }
  if (passages.length === 0) lines.push('(No text was extracted from this file. Run "Docs RAG: Show index status" to see why.)');
  return { text: lines.join('\n'), ranges, headingLines, chunkPaths: passages.map((p) => ({ id: p.id, chunkPath: p.chunkPath })) };
}

export class ExtractedTextProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly cache = new Map<string, Promise<ExtractedDoc>>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly host: EngineHost) {
    this.subscription = host.onDidIndex(({ folder }) => {
      for (const key of [...this.cache.keys()]) {
        const uri = vscode.Uri.parse(key);
        if (new URLSearchParams(uri.query).get('folder') === folder.uri.toString()) {
          this.cache.delete(key);
          this.changed.fire(uri);
        }
      }
    });
  }

  private parse(uri: vscode.Uri): { folder: vscode.WorkspaceFolder; rel: string } {
    const folderUri = new URLSearchParams(uri.query).get('folder') ?? '';
    const folder = this.host.folderByUri(folderUri);
    if (!folder) throw new Error(vscode.l10n.t('Docs RAG: {0} is not in an open workspace folder any more.', uri.path));
    return { folder, rel: uri.path.replace(/^\//, '') };
  }

  private load(uri: vscode.Uri): Promise<ExtractedDoc> {
    const key = uri.toString();
    let doc = this.cache.get(key);
    if (!doc) {
      const { folder, rel } = this.parse(uri);
      doc = this.host.engine(folder).then(async (engine) => {
        const passages = await engine.store.getFilePassages(rel, [2]);
        return layoutExtractedText(rel, passages[0]?.format ?? rel.split('.').pop() ?? '', passages);
      });
      doc.catch(() => this.cache.delete(key));
      this.cache.set(key, doc);
    }
    return doc;
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    return (await this.load(uri)).text;
  }

  /** The passage's range in the extracted text (sections cover their passages). */
  async locate(folder: vscode.WorkspaceFolder, passage: Passage): Promise<vscode.Location> {
    const uri = extractUri(folder, passage.path);
    const doc = await this.load(uri);
    let range = doc.ranges.get(passage.id);
    if (!range) {
      const inside = doc.chunkPaths.filter((c) => c.chunkPath.startsWith(`${passage.chunkPath}/`)).map((c) => doc.ranges.get(c.id)!);
      if (inside.length) {
        range = inside.reduce((a, b) => a.union(b));
        // A section starts at its heading line when that line directly precedes its first passage.
        const heading = doc.headingLines.get(passage.headingPath.join('\u0000'));
        if (heading !== undefined && heading < range.start.line && range.start.line - heading <= passage.headingPath.length + 1) {
          range = new vscode.Range(heading, 0, range.end.line, range.end.character);
        }
      }
    }
    if (!range) {
      const needle = passage.text.slice(0, 80);
      const at = needle ? doc.text.indexOf(needle) : -1;
      if (at >= 0) {
        const before = doc.text.slice(0, at).split('\n');
        range = new vscode.Range(before.length - 1, before[before.length - 1].length, before.length - 1, before[before.length - 1].length + needle.length);
      }
    }
    return new vscode.Location(uri, range ?? new vscode.Range(0, 0, 0, 0));
  }

  /**
   * The original file behind an extracted-text document. The path comes from a URI anyone can build: it must name a
   * document the index reads (format, globs, ignore files) whose real path, links resolved, stays inside the workspace
   * folder; otherwise this throws and nothing is opened.
   */
  originalOf(uri: vscode.Uri): vscode.Uri {
    const { folder, rel } = this.parse(uri);
    const s = readSettings(folder);
    const filter = createPathFilter(folder.uri.fsPath, { include: s.include, exclude: s.exclude, storeDir: this.host.storeDirFor(folder), useIgnoreFiles: s.useIgnoreFiles });
    const found = originalFile(folder.uri.fsPath, rel, filter);
    if ('refused' in found) throw new Error(vscode.l10n.t('Docs RAG: refusing to open "{0}" from the workspace folder "{1}": {2}.', rel, folder.name, found.refused));
    return vscode.Uri.file(found.abs);
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
