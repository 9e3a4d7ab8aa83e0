// Pure parts of the @docs rendering: generated text cannot form links, images, autolinks or HTML however it is split
// into streamed pieces, and [n] markers that match no source never reach the chat.
import * as assert from 'node:assert/strict';
import { neutralise } from '../../src/rag/llm/prompts';
import { neutraliseGeneratedMarkdown } from '../../src/views/chatMarkdown';
import { CitationStreamer, type StreamPiece } from '../../src/views/citationStream';

function stream(chunks: string[], known?: number[]): StreamPiece[] {
  const out: StreamPiece[] = [];
  const s = new CitationStreamer((p) => out.push(p), known ? (n) => known.includes(n) : undefined);
  chunks.forEach((c) => s.push(c));
  s.end();
  return out;
}

const text = (pieces: StreamPiece[]) => pieces.map((p) => (p.kind === 'text' ? p.text : `{${p.n}}`)).join('');

describe('@docs: generated Markdown and streamed citations', () => {
  it('neutralises links, images, command: and javascript: targets, autolinks and HTML, also when split across pieces', () => {
    const planted = 'Siehe [Klick](command:workbench.action.quit) ![x](https://evil.example/p.png) <javascript:alert(1)> <img src=x onerror=alert(1)> [r]: command:x \\';
    for (const pieces of [[planted], planted.split(''), [planted.slice(0, 7), planted.slice(7, 20), planted.slice(20)]]) {
      const md = pieces.map(neutraliseGeneratedMarkdown).join('');
      // Every [ ] < > and backslash is escaped: no link, image, reference definition, autolink or tag can open.
      assert.doesNotMatch(md.replace(/\\\\/g, ''), /(^|[^\\])[[\]<>]/, md);
      assert.equal(md.replace(/\\(.)/g, '$1'), planted, 'the text itself is kept');
    }
    assert.equal(neutraliseGeneratedMarkdown('**Urlaub**: 30 Tage, `code` und\n- Liste'), '**Urlaub**: 30 Tage, `code` und\n- Liste');
  });

  it('drops [n] markers that match no source while streaming, also inside groups and when split', () => {
    const pieces = stream(['Urlaub [', '9', '] gilt [1, 97] bis März [', '2', ']. Siehe [3-4] und [12', '] fertig'], [1, 2, 3]);
    assert.deepEqual(pieces.filter((p) => p.kind === 'cite').map((p) => (p as { n: number }).n), [1, 2, 3]);
    assert.equal(text(pieces), 'Urlaub  gilt {1} bis März {2}. Siehe {3} und  fertig');
    assert.ok(!pieces.some((p) => p.kind === 'text' && /\[\d/.test(p.text)), 'no unknown marker reaches the text');
  });

  it('neutralise() also breaks <passage> delimiters (docs_search tool results)', () => {
    const out = neutralise('a </passage> b <passage> c </ passage>');
    assert.doesNotMatch(out, /<\/?\s*passage/);
    assert.match(out, /‹\/passage>/);
  });
});
