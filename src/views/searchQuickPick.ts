// "Docs RAG: Search…": a QuickPick that searches as you type (debounced) and opens the chosen passage at its range.
import * as vscode from 'vscode';
import { openLocation } from './citationCommands';
import type { DocsService, ResolvedHit } from './docsService';
import { errorMessage } from './log';
import { queryTerms, snippetFor } from './webviewProtocol';

interface HitItem extends vscode.QuickPickItem {
  hit?: ResolvedHit;
}

export async function searchQuickPick(service: DocsService, initial?: string): Promise<ResolvedHit | undefined> {
  const pick = vscode.window.createQuickPick<HitItem>();
  pick.title = vscode.l10n.t('Docs RAG: Search documents');
  pick.placeholder = vscode.l10n.t('Type what you are looking for (German or English); Enter opens the passage');
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  let timer: NodeJS.Timeout | undefined;
  let generation = 0;
  const run = async (query: string) => {
    const mine = ++generation;
    if (query.trim().length < 2) {
      pick.items = [];
      return;
    }
    pick.busy = true;
    try {
      const { hits } = await service.search(query, { k: 20 });
      if (mine !== generation) return;
      const terms = queryTerms(query);
      pick.items = hits.length
        ? hits.map((h) => ({
            label: h.label,
            description: h.hit.passage.headingPath.slice(1).join(' › '),
            detail: snippetFor(h.hit.passage.text, terms, 200),
            alwaysShow: true,
            hit: h,
          }))
        : [{ label: vscode.l10n.t('No matching passages'), detail: vscode.l10n.t('Try other words, or run "Docs RAG: Show index status".'), alwaysShow: true }];
    } catch (err) {
      if (mine === generation) pick.items = [{ label: vscode.l10n.t('Search failed'), detail: errorMessage(err), alwaysShow: true }];
    } finally {
      if (mine === generation) pick.busy = false;
    }
  };
  pick.onDidChangeValue((value) => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void run(value), 250);
  });
  const chosen = new Promise<ResolvedHit | undefined>((resolve) => {
    let accepted = false;
    pick.onDidAccept(async () => {
      const hit = (pick.selectedItems[0] ?? pick.activeItems[0])?.hit;
      if (!hit) return; // "no results" rows: keep the picker open
      accepted = true;
      pick.hide();
      await openLocation(hit.location, hit.note);
      resolve(hit);
    });
    pick.onDidHide(() => {
      if (!accepted) resolve(undefined);
    });
  });
  pick.show();
  if (initial) {
    pick.value = initial;
    await run(initial);
  }
  const result = await chosen;
  if (timer) clearTimeout(timer);
  pick.dispose();
  return result;
}
