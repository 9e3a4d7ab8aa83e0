// Following the reference graph at query time (src/rag/search/links.ts): when, which neighbours, how they are fused and
// ordered in the answer context. The end-to-end path (real indexer, real LanceDB, the retriever) is in index.links.test.ts.
import { strict as assert } from 'node:assert';
import { isMultiPart, keepLinkedTogether, linkTrigger, neighbourList, LINK_DEFAULTS } from '../../src/rag/search/links';
import { analyzeQuery } from '../../src/rag/search/analyze';
import type { Passage, SearchHit } from '../../src/rag/types';

const hit = (id: string, via?: SearchHit['via']): SearchHit => ({ passage: { id, path: id.split('#')[0] } as Passage, score: 1, via });

describe('search/links: when and what the retriever follows', () => {
  it('asks for the graph on multi-part, relational, comparative questions and cited §§ — not on a plain factual one', () => {
    const t = (q: string) => linkTrigger(analyzeQuery(q), LINK_DEFAULTS.linkTriggers);
    assert.equal(t('How can I make CI fail on warnings, and what values does the setting accept?'), 'multi-part');
    assert.equal(t('Muss sie den Mindestlohn bekommen, und was müssen wir schriftlich festhalten?'), 'multi-part');
    assert.equal(t('Welche Pflichten haben Arbeitgeber nach dem Arbeitszeitgesetz und nach dem Mindestlohngesetz?'), 'multi-part');
    assert.equal(t('Was regelt § 23 KSchG?'), 'reference');
    assert.equal(t('How long is the default timeout?'), undefined);
    assert.equal(linkTrigger(analyzeQuery('Was regelt § 23 KSchG?'), ['multi-part']), undefined);
    assert.ok(!isMultiPart('Wie viele Urlaubstage stehen mir zu?'));
  });

  it('takes per seed the most specific neighbour first, capped per seed and in all, never a seed itself', () => {
    const l = (from: string, to: string, kind: 'link' | 'reference' | 'name' | 'definition', primary = true, providers = 1) => ({ from, to, kind, primary, providers });
    const links = [
      l('a', 'x', 'name', false, 3),
      l('a', 'y', 'name', true, 3),
      l('a', 'b', 'reference'),
      l('z', 'a', 'link'),
      l('b', 'w', 'name', false, 2),
    ];
    const got = neighbourList(['a', 'b'], links, { linkFanOut: 2, linkMax: 3 });
    // a: the incoming link (explicit kind) before the names; of the names the one whose target introduces it; b is a seed.
    assert.deepEqual([...got.entries()].map(([id, v]) => `${v.seed}->${id} ${v.kind} ${v.direction}`), ['a->z link in', 'a->y name out', 'b->w name out']);
    assert.equal(neighbourList(['a', 'b'], links, { linkFanOut: 1, linkMax: 1 }).size, 1);
  });

  it('keeps a linked passage next to the passage it was reached from in the answer context', () => {
    const hits = [hit('a#1'), hit('b#1'), hit('c#1'), hit('d#1', { seed: 'a#1', kind: 'reference', direction: 'out' })];
    assert.deepEqual(keepLinkedTogether(hits).map((h) => h.passage.id), ['a#1', 'd#1', 'b#1', 'c#1']);
    // A hit whose seed is not in the list stays where it is.
    const orphan = [hit('a#1'), hit('d#1', { seed: 'x#1', kind: 'name', direction: 'in' })];
    assert.deepEqual(keepLinkedTogether(orphan).map((h) => h.passage.id), ['a#1', 'd#1']);
  });
});
