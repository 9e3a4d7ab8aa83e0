// Index runs with progress: "Reindex documents" (full rebuild, cancellable notification) and the background run at
// start-up in a trusted workspace (window progress, cancellable through "Docs RAG: Cancel indexing").
import * as vscode from 'vscode';
import type { IndexProgress, IndexRunResult } from '../rag/index/indexer';
import type { EngineHost } from './engineHost';
import { errorMessage, type Log } from './log';
import { count, phaseLabel } from './statusReport';

export interface IndexOutcome {
  folder: string;
  result?: IndexRunResult;
  error?: string;
}

function progressText(folder: string, p: IndexProgress): string {
  if (p.phase === 'vectors' && p.vectors) return `${folder}: ${vscode.l10n.t('vectors: {0} of {1} (keyword search is ready)', count(p.vectors.filled), count(p.vectors.total))}`;
  const files = p.filesTotal ? vscode.l10n.t('{0}/{1} files', count(p.filesDone), count(p.filesTotal)) : '';
  const rate = p.passagesPerSec ? `, ${vscode.l10n.t('{0} passages/s', count(Math.round(p.passagesPerSec)))}` : '';
  return `${folder}: ${phaseLabel(p.phase)} ${files}${rate}${p.currentFile ? ` — ${p.currentFile}` : ''}`;
}

export class IndexingController implements vscode.Disposable {
  /** Every run going on (a Reindex and a background run may overlap; the host merges their work per folder). */
  private readonly active = new Set<AbortController>();

  constructor(
    private readonly host: EngineHost,
    private readonly log: Log,
  ) {}

  /** "Docs RAG: Cancel indexing": cancels every run going on. */
  cancel(): void {
    for (const a of this.active) a.abort();
  }

  /**
   * Indexes every workspace folder with visible progress. `full` rebuilds from scratch. A run never cancels another
   * one: a background run started while a Reindex goes on (workspace folders changed, trust granted) is merged with it
   * by the host, and the Reindex runs to its end.
   */
  async run(o: { full: boolean; location: vscode.ProgressLocation; title: string }): Promise<IndexOutcome[]> {
    const abort = new AbortController();
    this.active.add(abort);
    await vscode.commands.executeCommand('setContext', 'docsRag.indexing', true);
    try {
      return await vscode.window.withProgress({ location: o.location, title: o.title, cancellable: true }, async (progress, token) => {
        token.onCancellationRequested(() => abort.abort());
        const outcomes: IndexOutcome[] = [];
        let lastDone = 0;
        // A team's shared index (docsRag.store) is built by its builder: this window only reads it.
        for (const folder of this.host.folders().filter((f) => !this.host.teamStore(f))) {
          // Cancelled before this folder started: say so for it too (a cancel can arrive before the first folder runs).
          if (abort.signal.aborted) {
            outcomes.push({ folder: folder.name, error: 'cancelled' });
            continue;
          }
          try {
            const result = await this.host.index(folder, {
              full: o.full,
              signal: abort.signal,
              onProgress: (p) => {
                const share = p.filesTotal ? (p.filesDone / p.filesTotal) * 100 : 0;
                progress.report({ message: progressText(folder.name, p), increment: Math.max(0, share - lastDone) / Math.max(1, this.host.folders().length) });
                lastDone = share;
              },
            });
            lastDone = 0;
            outcomes.push({ folder: folder.name, result, error: result.cancelled ? 'cancelled' : undefined });
          } catch (err) {
            outcomes.push({ folder: folder.name, error: abort.signal.aborted ? 'cancelled' : errorMessage(err) });
          }
        }
        return outcomes;
      });
    } finally {
      this.active.delete(abort);
      if (this.active.size === 0) await vscode.commands.executeCommand('setContext', 'docsRag.indexing', false);
    }
  }

  /** "Docs RAG: Reindex documents": full rebuild with a cancellable notification, then a summary. */
  async reindex(): Promise<IndexOutcome[]> {
    if (this.host.folders().length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Docs RAG: open a folder first; its documents are indexed.'));
      return [];
    }
    if (this.host.cpuProblem) {
      void vscode.window.showErrorMessage(`Docs RAG: ${this.host.cpuProblem}`);
      return [];
    }
    const team = this.host.refreshTeamIndexes();
    if (team.length > 0) {
      void vscode.window.showInformationMessage(
        vscode.l10n.t(
          'Docs RAG: {0} reads a team index ({1}): it is read-only here and is built by the team (docs-rag index <folder> --store <URI>). Refreshed to the latest version its builder published.',
          team.map((f) => f.name).join(', '),
          team.map((f) => this.host.teamStore(f)).join(', '),
        ),
      );
      if (team.length === this.host.folders().length) return [];
    }
    const outcomes = await this.run({ full: true, location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Docs RAG: reindexing documents') });
    const files = outcomes.reduce((n, o) => n + (o.result?.files ?? 0), 0);
    const chunks = outcomes.reduce((n, o) => n + (o.result?.chunks ?? 0), 0);
    const problems = outcomes.reduce((n, o) => n + (o.result?.errors.length ?? 0), 0);
    const failed = outcomes.filter((o) => o.error && o.error !== 'cancelled');
    if (outcomes.some((o) => o.error === 'cancelled')) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Docs RAG: reindexing cancelled. The index keeps every file finished so far.'));
    } else if (failed.length) {
      const showLogs = vscode.l10n.t('Show logs');
      void vscode.window
        .showErrorMessage(vscode.l10n.t('Docs RAG: indexing failed for {0}: {1}', failed.map((f) => f.folder).join(', '), failed[0].error ?? ''), showLogs)
        .then((pick) => pick && vscode.commands.executeCommand('docsRag.showLogs'));
    } else {
      const msg = problems
        ? vscode.l10n.t('Docs RAG: {0} documents, {1} passages indexed; {2} file(s) could not be indexed.', count(files), count(chunks), count(problems))
        : vscode.l10n.t('Docs RAG: {0} documents, {1} passages indexed.', count(files), count(chunks));
      void (problems ? vscode.window.showWarningMessage(msg, vscode.l10n.t('Show status')) : vscode.window.showInformationMessage(msg)).then(
        (pick) => pick && vscode.commands.executeCommand('docsRag.status'),
      );
    }
    return outcomes;
  }

  /** Background run at start-up: incremental, in the status bar area, only in trusted workspaces. */
  async background(): Promise<void> {
    // Without the processor LanceDB needs, nothing runs (the status bar and the log already say why).
    if (!vscode.workspace.isTrusted || this.host.folders().length === 0 || this.host.cpuProblem) return;
    const outcomes = await this.run({ full: false, location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Docs RAG: indexing') });
    for (const o of outcomes) if (o.error && o.error !== 'cancelled') this.log.error(`background indexing of "${o.folder}" failed: ${o.error}`);
  }

  dispose(): void {
    this.cancel();
  }
}
