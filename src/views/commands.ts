// Command palette commands: reindex, ask, search, status, logs, cancel.
import * as vscode from 'vscode';
import type { DocsService } from './docsService';
import type { DocsViewProvider } from './docsView';
import type { IndexingController } from './indexing';
import type { Log } from './log';
import { searchQuickPick } from './searchQuickPick';
import { StatusDocumentProvider, statusMarkdown } from './statusReport';

export function registerCommands(o: {
  service: DocsService;
  indexing: IndexingController;
  docsView: DocsViewProvider;
  statusDoc: StatusDocumentProvider;
  log: Log;
}): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('docsRag.reindex', () => o.indexing.reindex()),
    vscode.commands.registerCommand('docsRag.cancelIndexing', () => o.indexing.cancel()),
    vscode.commands.registerCommand('docsRag.ask', async (question?: unknown) => {
      const q =
        typeof question === 'string' && question.trim()
          ? question.trim()
          : await vscode.window.showInputBox({
              title: vscode.l10n.t('Docs RAG: Ask'),
              prompt: vscode.l10n.t('Ask a question about the documents in this workspace (German or English)'),
              placeHolder: vscode.l10n.t('e.g. Wie lange darf die tägliche Arbeitszeit sein?'),
              validateInput: (v) => (v.trim().length < 3 ? vscode.l10n.t('Type at least 3 characters.') : v.length > 2000 ? vscode.l10n.t('At most 2,000 characters.') : undefined),
            });
      if (!q) return;
      await o.docsView.submit('ask', q);
    }),
    vscode.commands.registerCommand('docsRag.search', (query?: unknown) => searchQuickPick(o.service, typeof query === 'string' ? query : undefined)),
    vscode.commands.registerCommand('docsRag.status', async () => {
      o.statusDoc.refresh();
      const doc = await vscode.workspace.openTextDocument(StatusDocumentProvider.uri);
      await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
      await vscode.window.showTextDocument(doc, { preview: true });
      return statusMarkdown(o.service.host);
    }),
    vscode.commands.registerCommand('docsRag.showLogs', () => o.log.show(true)),
  ];
}
