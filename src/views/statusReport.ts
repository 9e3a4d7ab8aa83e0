// Index status: a one-line summary (status bar, Docs view) and a full report (command, /status) listing every
// per-file problem with its reason.
import * as vscode from 'vscode';
import type { IndexProgress } from '../rag/index/progress';
import { describeVectorSearch, readVectorIndexInfo } from '../rag/store/vectorIndexInfo';
import { storeLocation } from '../rag/store/remote';
import type { EngineHost, FolderStatus } from './engineHost';
import { readSettings } from './settings';
import type { ViewStatus } from './webviewProtocol';
import { markdownName } from './chatMarkdown';
import { formatCount } from './numbers';

/** A count in VS Code's display language (digit grouping). */
export const count = (n: number): string => formatCount(n, vscode.env.language);

function problems(s: FolderStatus) {
  return s.files.filter((f) => f.status !== 'indexed');
}

function documents(s: FolderStatus): number {
  return s.files.filter((f) => f.status === 'indexed' && f.passages > 0).length;
}

/** An indexing phase as the user reads it (the engine's names are identifiers). */
export function phaseLabel(phase: IndexProgress['phase']): string {
  const labels: Record<IndexProgress['phase'], string> = {
    scan: vscode.l10n.t('scanning'),
    parse: vscode.l10n.t('reading'),
    embed: vscode.l10n.t('embedding'),
    write: vscode.l10n.t('writing'),
    optimize: vscode.l10n.t('optimising'),
    vectors: vscode.l10n.t('vectors'),
    'vector-index': vscode.l10n.t('vector index'),
    done: vscode.l10n.t('done'),
  };
  return labels[phase] ?? phase;
}

export async function statusSummary(host: EngineHost): Promise<ViewStatus> {
  const folders = host.folders();
  if (folders.length === 0) return { state: 'empty', message: vscode.l10n.t('Open a folder to index its documents.'), folders: [] };
  const state = host.state;
  if (state.kind === 'indexing') {
    const p = state.progress;
    const detail =
      p?.phase === 'vectors' && p.vectors
        ? vscode.l10n.t('vectors: {0} of {1} (keyword search is ready)', count(p.vectors.filled), count(p.vectors.total))
        : p && p.filesTotal ? vscode.l10n.t('{0}/{1} files ({2})', count(p.filesDone), count(p.filesTotal), phaseLabel(p.phase)) : '';
    return { state: 'indexing', message: `${vscode.l10n.t('Indexing {0}…', state.folder)}${detail ? ` ${detail}` : ''}`, folders: [] };
  }
  const all = await host.status();
  const view = all.map((s) => ({ name: s.folder.name, files: documents(s), passages: s.passages, problems: problems(s).length, embedder: s.embedder }));
  const files = view.reduce((n, f) => n + f.files, 0);
  const passages = view.reduce((n, f) => n + f.passages, 0);
  const bad = view.reduce((n, f) => n + f.problems, 0);
  const failed = all.find((s) => s.error);
  if (state.kind === 'error' || failed) {
    return { state: 'error', message: vscode.l10n.t('Index problem: {0} — see "Docs RAG: Show logs".', failed?.error ?? (state.kind === 'error' ? state.message : '')), folders: view };
  }
  const restricted = !vscode.workspace.isTrusted ? ` ${vscode.l10n.t('Restricted Mode: no language model is used.')}` : '';
  if (passages === 0) return { state: vscode.workspace.isTrusted ? 'empty' : 'restricted', message: `${vscode.l10n.t('Nothing indexed yet. Press Reindex.')}${restricted}`, folders: view };
  return {
    state: vscode.workspace.isTrusted ? 'idle' : 'restricted',
    message: `${bad ? vscode.l10n.t('{0} documents, {1} passages indexed, {2} file(s) with problems.', count(files), count(passages), count(bad)) : vscode.l10n.t('{0} documents, {1} passages indexed.', count(files), count(passages))}${restricted}`,
    folders: view,
  };
}

function when(ms: number | undefined): string {
  return ms ? new Date(ms).toISOString().replace('T', ' ').slice(0, 19) + ' UTC' : vscode.l10n.t('never');
}

/** An untrusted value (a file name, a reason, a folder name) as Markdown text on one line: no link, image or HTML. */
function cell(text: string): string {
  return markdownName(text.replace(/\r?\n/g, ' '));
}

/** The full status report (the status document and `@docs /status`), in VS Code's display language. */
export async function statusMarkdown(host: EngineHost): Promise<string> {
  const out: string[] = [`# ${vscode.l10n.t('Docs RAG — index status')}`, ''];
  if (!vscode.workspace.isTrusted) {
    out.push(`> ${vscode.l10n.t('Restricted Mode: this workspace is not trusted. Docs RAG does not index in the background and sends nothing to any language model.')}`, '');
  }
  if (host.state.kind === 'error') out.push(`> ${vscode.l10n.t('Last indexing problem: {0}. See "Docs RAG: Show logs"; the next run continues.', cell(host.state.message))}`, '');
  const all = await host.status();
  if (all.length === 0) out.push(vscode.l10n.t('No workspace folder is open.'));
  for (const s of all) {
    out.push(`## ${cell(s.folder.name)}`, '');
    if (s.error) {
      out.push(vscode.l10n.t('The index could not be opened: {0}', cell(s.error)), '', vscode.l10n.t('Next step: run "Docs RAG: Reindex documents", or see "Docs RAG: Show logs".'), '');
      continue;
    }
    const bad = problems(s);
    const ignoreFiles = readSettings(s.folder).useIgnoreFiles
      ? vscode.l10n.t(' and what .gitignore / .ignore files ignore')
      : vscode.l10n.t(' (ignore files are not read: `docsRag.index.useIgnoreFiles` is off)');
    const ignored = s.lastRun?.ignored ? vscode.l10n.t(' (the last walk left {0} document(s)/folder(s) out by ignore files)', count(s.lastRun.ignored)) : '';
    const lastRun = s.lastRun ? vscode.l10n.t(' ({0} files, {1} unchanged, {2} errors)', count(s.lastRun.files), count(s.lastRun.unchanged), count(s.lastRun.errors)) : '';
    out.push(
      `- ${vscode.l10n.t('Documents indexed: {0}', count(documents(s)))}`,
      `- ${vscode.l10n.t('Passages: {0}', count(s.passages))}`,
      `- ${vscode.l10n.t('Embedder: {0}', s.embedder)}`,
      `- ${vscode.l10n.t('Vector search: {0}', describeVectorSearch(readVectorIndexInfo(storeLocation(s.storeDir).dir), s.passages))}`,
      `- ${vscode.l10n.t('Files: those `docsRag.include` selects, less `docsRag.exclude` and `files.exclude`{0}{1}', ignoreFiles, ignored)}`,
      `- ${vscode.l10n.t('Last run: {0}{1}', when(s.lastRun?.finishedAt), lastRun)}`,
      `- ${vscode.l10n.t('Index folder: {0}', cell(s.storeDir))}`,
      '',
    );
    if (bad.length === 0) out.push(vscode.l10n.t('No problems.'), '');
    else {
      out.push(`### ${vscode.l10n.t('Files not indexed ({0})', count(bad.length))}`, '', `| ${vscode.l10n.t('File')} | ${vscode.l10n.t('Status')} | ${vscode.l10n.t('Reason')} |`, '|---|---|---|');
      for (const f of bad) out.push(`| ${cell(f.path)} | ${f.status === 'error' ? vscode.l10n.t('error') : vscode.l10n.t('skipped')} | ${cell(f.reason)} |`);
      out.push('');
    }
  }
  return out.join('\n');
}

export const STATUS_SCHEME = 'docs-rag-status';

/** Read-only document that shows the full status report. */
export class StatusDocumentProvider implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  static readonly uri = vscode.Uri.from({ scheme: STATUS_SCHEME, path: '/Docs RAG index status.md' });

  constructor(private readonly host: EngineHost) {}

  refresh(): void {
    this.changed.fire(StatusDocumentProvider.uri);
  }

  provideTextDocumentContent(): Promise<string> {
    return statusMarkdown(this.host);
  }
}
