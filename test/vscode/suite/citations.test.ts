// Citations open exact ranges: text files at their line range, PDF and DOCX passages in the read-only extracted-text
// document with the cited range selected and the page named.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { toLocationArg } from '../../../src/views/citationCommands';
import { ExtractedTextProvider, extractUri } from '../../../src/views/extractProvider';
import type { ResolvedHit } from '../../../src/views/docsService';
import { press, waitFor } from '../runner/driverClient';
import { api, fileLines, flat, folder, rangeText, sameRange, searchFor } from './helpers';

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

async function openAndCheckSelection(location: vscode.Location): Promise<vscode.TextEditor> {
  await vscode.commands.executeCommand('docsRag.openLocation', toLocationArg(location));
  const editor = vscode.window.activeTextEditor;
  assert.ok(editor, 'an editor is open');
  assert.equal(editor.document.uri.toString(), location.uri.toString());
  assert.ok(sameRange(editor.selection, location.range), `selection ${rangeText(editor.selection)} = cited ${rangeText(location.range)}`);
  return editor;
}

describe('citations open exact ranges', () => {
  before(async () => {
    await (await api()).host.idle();
  });

  afterEach(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('a Markdown passage opens at the file lines that hold it', async () => {
    const a = await api();
    const hit = await searchFor(a, 'Resturlaub übertragen bis 31. März', 'docs/urlaub.md');
    assert.equal(hit.location.uri.scheme, 'file');
    const lines = fileLines(hit.location.uri, hit.location.range.start.line, hit.location.range.end.line);
    const inFile = new Set(words(lines));
    const missing = words(hit.hit.passage.text).filter((w) => !inFile.has(w));
    assert.deepEqual(missing, [], `lines ${rangeText(hit.location.range)} hold the passage`);
    const editor = await openAndCheckSelection(hit.location);
    assert.ok(editor.document.getText(editor.selection).includes('31. März'));
  });

  it('"Docs RAG: Search…" lists passages and Enter opens the chosen one at its range', async () => {
    const a = await api();
    await searchFor(a, 'Resturlaub übertragen', 'docs/urlaub.md');
    const picked = vscode.commands.executeCommand<ResolvedHit | undefined>('docsRag.search', 'Resturlaub übertragen');
    // Wait for the QuickPick's results in the page, then press Enter in its input as a user would.
    const rows = await waitFor('.quick-input-widget .monaco-list-row', { state: 'visible' });
    assert.ok(rows.some((r) => r.includes('docs/urlaub.md')), `QuickPick rows: ${rows.join(' | ')}`);
    await press('Enter', { selector: '.quick-input-widget input' });
    const hit = await picked;
    assert.ok(hit, 'a passage was chosen');
    const { hits } = await a.service.search('Resturlaub übertragen', { k: 20 });
    assert.equal(hit.hit.passage.id, hits[0].hit.passage.id, 'Enter takes the first result');
    const editor = vscode.window.activeTextEditor;
    assert.equal(editor?.document.uri.toString(), hit.location.uri.toString());
    assert.ok(sameRange(editor!.selection, hit.location.range), `selection ${rangeText(editor!.selection)} = ${rangeText(hit.location.range)}`);
  });

  it('a PDF passage opens in the extracted text with its range selected and its page named', async () => {
    const a = await api();
    const hit = await searchFor(a, 'Antrag auf Mitgliedschaft', 'mitgliedsantrag.pdf', 2);
    assert.equal(hit.location.uri.scheme, 'docs-rag-extract');
    assert.equal(hit.hit.passage.loc.page, 1);
    const editor = await openAndCheckSelection(hit.location);
    assert.equal(flat(editor.document.getText(editor.selection)), flat(hit.hit.passage.text));
    const above = editor.document.getText(new vscode.Range(0, 0, hit.location.range.start.line, 0));
    assert.match(above, /── Page 1 ──/);
    assert.equal(hit.note, 'page 1');
  });

  it('a section hit (L1) of a DOCX opens the range of all its passages', async () => {
    const a = await api();
    // Search returns one hit per place (the passage, not also its section), so the section is taken from the passage's
    // parent and resolved like a hit (sections still reach citations as parent context).
    const passageHit = await searchFor(a, 'Ruhepausen Arbeitnehmer Arbeitszeit', 'ArbZG.docx', 2);
    const [section] = await (await a.host.engine(passageHit.folder)).store.getPassages([passageHit.hit.passage.parentId ?? '']);
    assert.ok(section && section.level === 1, 'the passage has a section');
    const hit = (await a.service.resolve(passageHit.folder, { passage: section, score: passageHit.hit.score }))!;
    const editor = await openAndCheckSelection(hit.location);
    const selected = flat(editor.document.getText(editor.selection));
    const engine = await a.host.engine(hit.folder);
    const children = (await engine.store.getFilePassages(hit.hit.passage.path, [2])).filter((p) => p.chunkPath.startsWith(`${hit.hit.passage.chunkPath}/`));
    assert.ok(children.length > 0, 'the section has passages');
    for (const c of children) assert.ok(selected.includes(flat(c.text)), 'the selection covers every passage of the section');
  });

  it('a DOCX passage opens in the extracted text with its range selected', async () => {
    const a = await api();
    const hit = await searchFor(a, 'Ruhepausen Arbeitnehmer Arbeitszeit', 'ArbZG.docx', 2);
    assert.equal(hit.location.uri.scheme, 'docs-rag-extract');
    const editor = await openAndCheckSelection(hit.location);
    assert.equal(flat(editor.document.getText(editor.selection)), flat(hit.hit.passage.text));
    assert.match(editor.document.lineAt(0).text, /Extracted text of ArbZG\.docx/);
  });

  it('"Open original" refuses an extracted-text URI whose path leaves the workspace folder', async () => {
    const a = await api();
    const f = folder();
    const extracts = new ExtractedTextProvider(a.host);
    try {
      // A citation's own URI maps to the file (its real path); '..' that stays inside is normalised.
      const real = vscode.Uri.file(fs.realpathSync(vscode.Uri.joinPath(f.uri, 'ArbZG.docx').fsPath)).toString();
      assert.equal(extracts.originalOf(extractUri(f, 'ArbZG.docx')).toString(), real);
      assert.equal(extracts.originalOf(extractUri(f, 'docs/../ArbZG.docx')).toString(), real);
      const query = new URLSearchParams({ folder: f.uri.toString() }).toString();
      const crafted = [
        extractUri(f, '../../../../etc/passwd'),
        extractUri(f, 'docs/../../outside.pdf'),
        vscode.Uri.parse(`docs-rag-extract:/%2E%2E/%2E%2E/etc/passwd?${query}`),
        extractUri(f, '..\\..\\outside.pdf'),
      ];
      for (const uri of crafted) {
        assert.throws(() => extracts.originalOf(uri), /refusing to open .*: it (is not inside the workspace folder|does not exist|is not a document the index reads)/, uri.toString());
        assert.equal(await vscode.commands.executeCommand('docsRag.openOriginal', uri), false, `openOriginal(${uri.toString()}) refuses`);
      }
    } finally {
      extracts.dispose();
    }
  });
});
