// Status bar item with the index state; clicking it shows the index status.
import * as vscode from 'vscode';
import type { EngineHost } from './engineHost';
import { errorMessage, type Log } from './log';
import { count, statusSummary } from './statusReport';

export class IndexStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('docsRag.status', vscode.StatusBarAlignment.Left, 50);
  private readonly subs: vscode.Disposable[];
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly host: EngineHost,
    private readonly log: Log,
  ) {
    this.item.name = vscode.l10n.t('Docs RAG index');
    this.item.command = 'docsRag.status';
    this.item.text = '$(book) Docs';
    this.item.tooltip = vscode.l10n.t('Docs RAG: index not loaded yet');
    this.item.show();
    this.subs = [host.onDidChangeState(() => this.schedule()), host.onDidIndex(() => this.schedule()), vscode.workspace.onDidGrantWorkspaceTrust(() => this.schedule())];
  }

  /** Coalesces frequent progress events into at most a few updates a second. */
  private schedule(): void {
    const state = this.host.state;
    if (state.kind === 'indexing') {
      const p = state.progress;
      // A slow embedder's vectors are filled after the text (keyword search already works): "vectors n/m".
      const counts = p?.phase === 'vectors' && p.vectors ? vscode.l10n.t('vectors {0}/{1}', count(p.vectors.filled), count(p.vectors.total)) : p && p.filesTotal ? `${count(p.filesDone)}/${count(p.filesTotal)}` : '';
      this.item.text = `$(sync~spin) Docs ${counts}`.trim();
      this.item.tooltip = vscode.l10n.t('Docs RAG: indexing {0}', state.folder);
      return;
    }
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh();
    }, 200);
  }

  async refresh(): Promise<void> {
    try {
      const s = await statusSummary(this.host);
      const passages = s.folders.reduce((n, f) => n + f.passages, 0);
      const problems = s.folders.reduce((n, f) => n + f.problems, 0);
      const icon = s.state === 'error' ? '$(error)' : s.state === 'restricted' ? '$(shield)' : s.state === 'indexing' ? '$(sync~spin)' : '$(book)';
      this.item.text = `${icon} Docs${passages ? ` ${count(passages)}` : ''}${problems ? ` $(warning) ${count(problems)}` : ''}`;
      this.item.tooltip = `Docs RAG: ${s.message}`;
    } catch (err) {
      this.log.warn(`status bar: ${errorMessage(err)}`);
    }
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.subs.forEach((d) => d.dispose());
    this.item.dispose();
  }
}
