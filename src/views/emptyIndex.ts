// What to tell a user who asks while nothing is indexed: usually that the index is not built yet, but when the workspace's
// ignore files left out every document the last walk found, that, and the setting that changes it (a reindex would not).
// No `vscode` import: tested as is (test/unit/views.emptyIndex.test.ts).

/** `lastRuns`: each workspace folder's last run (undefined where none ran). */
export function emptyIndexMessage(lastRuns: ({ files: number; ignored?: number } | undefined)[], notYet: string): string {
  const ran = lastRuns.filter((r): r is { files: number; ignored?: number } => r !== undefined);
  const ignored = ran.reduce((n, r) => n + (r.ignored ?? 0), 0);
  if (ran.length === 0 || ran.some((r) => r.files > 0) || ignored === 0) return notYet;
  return (
    `Nothing is indexed: the .gitignore / .ignore files of this workspace leave out every document found ` +
    `(${ignored} ${ignored === 1 ? 'document or folder' : 'documents and folders'}). To index them, turn off the setting ` +
    `"docsRag.index.useIgnoreFiles".`
  );
}
