// What to tell a user who asks while nothing is indexed: usually that the index is not built yet; when every folder's
// last run found nothing to index, why (a reindex would not help): the workspace's ignore files left out every document,
// or every document it found failed to be read, or it holds no file of a kind Docs RAG reads.
// No `vscode` import: tested as is (test/unit/views.emptyIndex.test.ts).

import { READ_KINDS } from '../rag/formats';

type LastRun = { files: number; ignored?: number; errors?: number };

/** `lastRuns`: each workspace folder's last run (undefined where none ran). */
export function emptyIndexMessage(lastRuns: (LastRun | undefined)[], notYet: string): string {
  const ran = lastRuns.filter((r): r is LastRun => r !== undefined);
  if (ran.length === 0 || ran.some((r) => r.files > 0)) return notYet;
  const ignored = ran.reduce((n, r) => n + (r.ignored ?? 0), 0);
  const errors = ran.reduce((n, r) => n + (r.errors ?? 0), 0);
  if (ignored > 0) {
    return (
      `Nothing is indexed: the .gitignore / .ignore files of this workspace leave out every document found ` +
      `(${ignored} ${ignored === 1 ? 'document or folder' : 'documents and folders'}). To index them, turn off the setting ` +
      `"docsRag.index.useIgnoreFiles".`
    );
  }
  if (errors > 0) {
    return (
      `Nothing is indexed: ${errors === 1 ? 'the one document' : `all ${errors} documents`} found in this workspace could not be read. ` +
      `"Docs RAG: Show index status" lists each with the reason.`
    );
  }
  return (
    `Nothing is indexed: this workspace has no file of a kind Docs RAG reads (${READ_KINDS}) ` +
    'that the setting "docsRag.include" selects. Add documents, or widen "docsRag.include".'
  );
}
