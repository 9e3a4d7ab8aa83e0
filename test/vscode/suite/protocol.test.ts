// The pieces between the engine and the UI that need no workbench: message validation of the Docs view, the
// streamed-citation splitter of the chat participant, Markdown escaping, files.exclude mapping, extracted-text layout.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { escapeMarkdown, escapeQuotedText } from '../../../src/views/chatParticipant';
import { CitationStreamer, type StreamPiece } from '../../../src/views/citationStream';
import { layoutExtractedText } from '../../../src/views/extractProvider';
import { filesExcludeGlobs } from '../../../src/views/settings';
import { parseViewMessage, queryTerms, snippetFor } from '../../../src/views/webviewProtocol';
import type { Passage } from '../../../src/rag/types';

describe('webview protocol', () => {
  it('accepts well-formed messages and drops everything else', () => {
    assert.deepEqual(parseViewMessage({ type: 'search', requestId: 3, query: '  Urlaub ' }), { type: 'search', requestId: 3, query: 'Urlaub' });
    assert.deepEqual(parseViewMessage({ type: 'open', id: 7 }), { type: 'open', id: 7 });
    for (const bad of [
      null,
      'search',
      { type: 'search', requestId: 1 },
      { type: 'search', requestId: -1, query: 'x' },
      { type: 'search', requestId: 1, query: '   ' },
      { type: 'search', requestId: 1, query: 'x'.repeat(2001) },
      { type: 'open', id: '7' },
      { type: 'open', id: 1.5 },
      { type: 'open', uri: 'file:///etc/passwd' },
      { type: 'eval', code: 'alert(1)' },
    ]) {
      assert.equal(parseViewMessage(bad), undefined, JSON.stringify(bad));
    }
  });

  it('marks query terms and cuts snippets around the first match', () => {
    assert.deepEqual(queryTerms('Wie lange gilt § 7 BUrlG? Wie?'), ['wie', 'lange', 'gilt', '7', 'burlg']);
    const text = `${'a '.repeat(400)}Resturlaub verfällt am 31. März. ${'b '.repeat(400)}`;
    const s = snippetFor(text, ['resturlaub'], 120);
    assert.ok(s.includes('Resturlaub verfällt'));
    assert.ok(s.length <= 122);
  });
});

describe('citation streaming', () => {
  function run(chunks: string[]): StreamPiece[] {
    const out: StreamPiece[] = [];
    const s = new CitationStreamer((p) => out.push(p));
    chunks.forEach((c) => s.push(c));
    s.end();
    return out;
  }

  it('turns [n] into citations even when a marker is split across chunks', () => {
    const pieces = run(['Urlaub: 30 Tage [', '1', '] und Übertrag bis März [2, 3]', '.']);
    assert.deepEqual(
      pieces.filter((p) => p.kind === 'cite').map((p) => (p as { n: number }).n),
      [1, 2, 3],
    );
    assert.equal(pieces.filter((p) => p.kind === 'text').map((p) => (p as { text: string }).text).join(''), 'Urlaub: 30 Tage  und Übertrag bis März .');
  });

  it('keeps brackets that are not citations as text', () => {
    const pieces = run(['see [the docs] and array[0', ']']);
    assert.equal(pieces.filter((p) => p.kind === 'cite').length, 1); // "[0]" is a marker, "[the docs]" is not
    assert.ok(pieces.some((p) => p.kind === 'text' && p.text.includes('[the docs]')));
  });
});

describe('escaping and settings', () => {
  it('escapes Markdown and HTML in document text for the chat', () => {
    const escaped = escapeMarkdown('<img src=x onerror=alert(1)> [link](javascript:x) **b**');
    assert.doesNotMatch(escaped, /(^|[^\\])[<[*]/);
  });

  it('escapes quoted document text of the extractive answer but keeps its quote lines', () => {
    const out = escapeQuotedText('[1] payloads.md:3\n> <img src=x onerror=alert(1)> ![x](http://evil/x.png)\n> second');
    assert.ok(out.split('\n')[1].startsWith('> '));
    assert.doesNotMatch(out, /(^|[^\\])<img/);
    assert.doesNotMatch(out, /(^|[^\\])!\[/);
    assert.ok(out.endsWith('> second'));
  });

  it('maps files.exclude to globs that also cover folder contents', () => {
    assert.deepEqual(filesExcludeGlobs({ '**/.git': true, '**/tmp/**': true, '**/off': false, '**/*.js': { when: '$(basename).ts' } }), [
      '**/.git',
      '**/.git/**',
      '**/tmp/**',
    ]);
  });
});

describe('extracted-text layout', () => {
  const base = { fileHash: 'h', format: 'pdf' as const, parentId: null, order: 0, title: 'T', overlap: '', lang: 'de' as const };
  const passages: Passage[] = [
    { ...base, id: 'a', path: 'f.pdf', level: 2, chunkPath: 'doc/s0/c0', headingPath: ['T', 'Teil 1'], text: 'Erster Absatz.\nZweite Zeile.', loc: { page: 1 } },
    { ...base, id: 'b', path: 'f.pdf', level: 2, chunkPath: 'doc/s0/c1', headingPath: ['T', 'Teil 1'], text: 'Zweiter Absatz.', loc: { page: 2 } },
  ];

  it('gives every passage the range that holds exactly its text and names the page above it', () => {
    const doc = layoutExtractedText('f.pdf', 'pdf', passages);
    const lines = doc.text.split('\n');
    for (const p of passages) {
      const r = doc.ranges.get(p.id)!;
      const got = lines.slice(r.start.line, r.end.line + 1).join('\n');
      assert.equal(got, p.text);
      assert.ok(r instanceof vscode.Range);
    }
    const b = doc.ranges.get('b')!;
    assert.ok(lines.slice(0, b.start.line).includes('── Page 2 ──'));
    assert.equal(lines[doc.headingLines.get('T\u0000Teil 1')!], 'Teil 1');
  });
});
