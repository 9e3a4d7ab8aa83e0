// Section headings among one file's hits (search/structure.ts): the question's words in a passage's heading path reorder
// the hits of one file among that file's places; other files keep their places; a small weight only breaks near ties.
import * as assert from 'node:assert/strict';
import { resolveSettings } from '../../src/rag/search/configs';
import { headingCoverage, orderSiblingsByHeadings } from '../../src/rag/search/structure';
import type { Passage, SearchHit } from '../../src/rag/types';

function p(id: string, file: string, headingPath: string[]): Passage {
  return {
    id, path: file, fileHash: 'h', format: 'md', level: 1, chunkPath: id, parentId: null, order: 0, headingPath, title: 'T',
    text: `text of ${id}`, overlap: '', lang: 'de', loc: {},
  };
}
const hit = (passage: Passage, score: number): SearchHit => ({ passage, score });
const ids = (hits: SearchHit[]) => hits.map((h) => h.passage.id);

describe('search: section headings among one file\'s hits', () => {
  const q = 'Wie lange ist die Ruhezeit zwischen zwei Schichten?';
  const pauses = p('§4', 'arbzg.md', ['Arbeitszeitgesetz', '§ 4 Ruhepausen']);
  const other = p('B', 'muschg.md', ['Mutterschutzgesetz', '§ 7 Freistellung']);
  const rest = p('§5', 'arbzg.md', ['Arbeitszeitgesetz', '§ 5 Ruhezeit']);

  it('counts the question\'s content words that start a heading word (rough stem)', () => {
    assert.equal(headingCoverage(['ruhezeit', 'schichten'], ['§ 5 Ruhezeiten']), 0.5);
    assert.equal(headingCoverage(['ruhezeit'], []), 0);
  });

  it('moves the sibling whose heading holds the question\'s words to the file\'s better place; the other file stays', () => {
    const hits = [hit(pauses, 0.0300), hit(other, 0.0299), hit(rest, 0.0298)];
    const out = orderSiblingsByHeadings(q, hits, 0.1, 60);
    assert.deepEqual(ids(out), ['§5', 'B', '§4']);
    assert.deepEqual(out.map((h) => h.score), [0.03, 0.0299, 0.0298], 'each place keeps its score');
    assert.deepEqual(ids(orderSiblingsByHeadings(q, hits, 0, 60)), ['§4', 'B', '§5'], 'weight 0: unchanged');
  });

  it('never lifts a file above another file, and a small weight does not overturn a clear gap', () => {
    const otherFirst = [hit(other, 0.05), hit(rest, 0.01)];
    assert.deepEqual(ids(orderSiblingsByHeadings(q, otherFirst, 0.1, 60)), ['B', '§5']);
    const farApart = [hit(pauses, 0.05), hit(rest, 0.01)];
    assert.deepEqual(ids(orderSiblingsByHeadings(q, farApart, 0.1, 60)), ['§4', '§5']);
  });

  it('leaves a hit brought by the reference graph and its seed at their places', () => {
    const linked: SearchHit = { passage: rest, score: 0.0298, via: { seed: 'B', kind: 'reference', direction: 'out' } };
    const hits = [hit(pauses, 0.03), hit(other, 0.0299), linked];
    assert.deepEqual(ids(orderSiblingsByHeadings(q, hits, 0.1, 60)), ['§4', 'B', '§5']);
  });

  it('is on in the default configuration and off in bm25 and default-headings', () => {
    assert.ok(resolveSettings('default').headingWeight > 0);
    assert.equal(resolveSettings('bm25').headingWeight, 0);
    assert.equal(resolveSettings('default-headings').headingWeight, 0);
  });
});
