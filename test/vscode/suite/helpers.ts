// Shared helpers of the extension suites: the activated extension's API, the fixture workspace, polling.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { DocsRagApi } from '../../../src/views/api';
import type { ResolvedHit } from '../../../src/views/docsService';

export const EXTENSION_ID = 'docs-rag.docs-rag';

export async function api(): Promise<DocsRagApi> {
  const ext = vscode.extensions.getExtension<DocsRagApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not installed`);
  return ext.isActive ? ext.exports : ext.activate();
}

export function folder(): vscode.WorkspaceFolder {
  const f = vscode.workspace.workspaceFolders?.[0];
  assert.ok(f, 'the tests need the fixture workspace open');
  return f;
}

export function fileUri(rel: string): vscode.Uri {
  return vscode.Uri.joinPath(folder().uri, ...rel.split('/'));
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` until it returns a truthy value (returned) or the time is up (throws with `what`). */
export async function waitUntil<T>(what: string, check: () => Promise<T> | T, timeoutMs = 30_000, everyMs = 200): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    await sleep(everyMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
}

/** Lines start..end (0-based, inclusive) of a file on disk, joined with \n. */
export function fileLines(uri: vscode.Uri, start: number, end: number): string {
  return fs.readFileSync(uri.fsPath, 'utf8').split('\n').slice(start, end + 1).join('\n');
}

/** Whitespace-normalised text (passages are compared with the file text this way). */
export function flat(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The text a location covers: file lines for text files, the range of the extracted-text document otherwise. */
export async function textAt(location: vscode.Location): Promise<string> {
  const doc = await vscode.workspace.openTextDocument(location.uri);
  return doc.getText(location.range);
}

/** Searches until a hit from `rel` shows up (the index may still be updating). */
export async function searchFor(a: DocsRagApi, query: string, rel: string, level?: number, timeoutMs = 30_000): Promise<ResolvedHit> {
  return waitUntil(`a hit in ${rel} for "${query}"`, async () => {
    const { hits } = await a.service.search(query, { k: 20 });
    return hits.find((h) => h.hit.passage.path === rel && (level === undefined || h.hit.passage.level === level));
  }, timeoutMs, 500);
}

export function sameRange(a: vscode.Range, b: vscode.Range): boolean {
  return a.start.isEqual(b.start) && a.end.isEqual(b.end);
}

export function rangeText(r: vscode.Range): string {
  return `${r.start.line}:${r.start.character}-${r.end.line}:${r.end.character}`;
}

/**
 * Waits until the watcher has delivered the changes a test made on disk and every run they queued has ended: `indexed`
 * says when the index reflects the changes (which proves their events arrived); then no debounce may wait and no run
 * may go on. Tests that assert the host's state or passage counts call it after writing files, so a late watcher run
 * cannot land in the middle of what they measure.
 */
export async function quiet(a: DocsRagApi, what: string, indexed: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  await waitUntil(what, async () => {
    await a.host.idle();
    return (await indexed()) && !a.watcher.hasPending() && !a.host.busy();
  }, timeoutMs, 300);
}

export type Recorded =
  | { kind: 'markdown'; text: string; trusted: boolean; html: boolean }
  | { kind: 'anchor'; location: vscode.Location; title?: string }
  | { kind: 'reference'; location: vscode.Location }
  | { kind: 'button'; command: vscode.Command }
  | { kind: 'progress'; text: string };

/** Records what the participant writes (stands in for the response stream VS Code passes to the handler). */
export function recordingStream(): { stream: vscode.ChatResponseStream; parts: Recorded[] } {
  const parts: Recorded[] = [];
  const md = (v: string | vscode.MarkdownString) => (typeof v === 'string' ? v : v.value);
  const stream = {
    markdown: (v: string | vscode.MarkdownString) =>
      parts.push({ kind: 'markdown', text: md(v), trusted: typeof v === 'string' ? true : v.isTrusted !== undefined && v.isTrusted !== false, html: typeof v !== 'string' && v.supportHtml === true }),
    anchor: (v: vscode.Uri | vscode.Location, title?: string) => {
      assert.ok(v instanceof vscode.Location, 'anchors carry a Location with a range');
      parts.push({ kind: 'anchor', location: v, title });
    },
    reference: (v: vscode.Uri | vscode.Location) => {
      assert.ok(v instanceof vscode.Location, 'references carry a Location with a range');
      parts.push({ kind: 'reference', location: v });
    },
    button: (command: vscode.Command) => parts.push({ kind: 'button', command }),
    progress: (text: string) => parts.push({ kind: 'progress', text }),
    filetree: () => undefined,
    push: () => undefined,
  } as unknown as vscode.ChatResponseStream;
  return { stream, parts };
}
