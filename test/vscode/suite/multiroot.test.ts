// Multi-root: one reader per folder (in the search process), one search across all of them, each hit mapped back to
// its folder; and the extractive answer (no model) with citations that open their ranges.
import * as assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import * as vscode from 'vscode';
import type { ReaderEngine } from '../../../src/searchProcess/client';
import { MultiFolderRetriever } from '../../../src/views/docsService';
import { EXTENSION_ID, api, fileLines, flat } from './helpers';

describe('multi-root search', () => {
  const engines: ReaderEngine[] = [];
  let tmp = '';

  after(async () => {
    for (const e of engines) await e.close();
    if (tmp) await fs.rm(tmp, { recursive: true, force: true });
  });

  it('searches every folder and maps each hit to its own folder', async () => {
    const a = await api();
    const cli = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist/cli.js');
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'docs-rag-multiroot-'));
    const docs: Record<string, string> = {
      alpha: '# Alpha\n\nDie Lagerhalle Nord wird jeden Montag um 6 Uhr geöffnet.\n',
      beta: '# Beta\n\nDie Lagerhalle Süd öffnet am Dienstag erst um 8 Uhr.\n',
    };
    const parts = [];
    for (const [i, [name, text]] of Object.entries(docs).entries()) {
      const dir = path.join(tmp, name);
      const storeDir = path.join(tmp, `${name}-store`);
      await fs.mkdir(dir);
      await fs.writeFile(path.join(dir, 'halle.md'), text);
      // Indexed by the CLI (its own process), read through the extension's search process.
      const run = await promisify(execFile)(process.execPath, [cli, 'index', dir, '--store', storeDir, '--json'], { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' } });
      assert.deepEqual((JSON.parse(run.stdout) as { errors: unknown[] }).errors, []);
      const engine = await a.host.searcher.open({ key: `test-${name}`, name, folder: dir, storeDir, config: {} });
      engines.push(engine);
      const folder: vscode.WorkspaceFolder = { uri: vscode.Uri.file(dir), name, index: i };
      parts.push({ folder, retriever: engine.retriever({ config: 'default' }) });
    }
    const multi = new MultiFolderRetriever(parts);
    const result = await multi.retrieve('Wann öffnet die Lagerhalle?', { k: 10 });
    const byFolder = new Set(result.hits.map((h) => multi.folderOf.get(h.passage.id)?.name));
    assert.deepEqual([...byFolder].sort(), ['alpha', 'beta']);
    for (let i = 1; i < result.hits.length; i++) assert.ok(result.hits[i - 1].score >= result.hits[i].score, 'merged by score');
    for (const h of result.hits) {
      const folder = multi.folderOf.get(h.passage.id)!;
      const file = await fs.readFile(path.join(folder.uri.fsPath, h.passage.path), 'utf8');
      const word = folder.name === 'alpha' ? 'Nord' : 'Süd';
      assert.ok(file.includes(word) && (h.passage.text.includes(word) || h.passage.level < 2), `${folder.name}/${h.passage.path} holds the hit`);
    }
  });
});

describe('extractive answer (no language model)', () => {
  it('quotes the best passages with citations that open their ranges', async () => {
    const a = await api();
    await a.host.idle();
    const outcome = await a.service.ask('Bis wann kann Resturlaub übertragen werden?', { noModelNote: 'No language model in this test.' });
    assert.equal(outcome.mode, 'extractive');
    assert.equal(outcome.model, null);
    assert.ok(outcome.notes.includes('No language model in this test.'));
    assert.ok(outcome.citations.length > 0);
    assert.match(outcome.answer, /\[1\]/);
    const first = outcome.citations[0].hit;
    assert.equal(first.hit.passage.path, 'docs/urlaub.md');
    const lines = fileLines(first.location.uri, first.location.range.start.line, first.location.range.end.line);
    assert.ok(flat(lines).includes('31. März'), `lines ${first.label}: ${lines}`);
  });
});
