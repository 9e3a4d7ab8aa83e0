// The Docs view's per-hit edges (src/views/hitLinks.ts): what a hit links to and what links to it, grouped per hit.
import { strict as assert } from 'node:assert';
import { edgesByHit } from '../../src/views/hitLinks';

describe('views/hitLinks: edges per hit for the Docs view', () => {
  it('groups outgoing before incoming, explicit kinds first, one entry per other passage, capped', () => {
    const links = [
      { from: 'a', to: 'n', kind: 'name' as const, anchor: 'rust-version' },
      { from: 'z', to: 'a', kind: 'link' as const, anchor: 'see <b>a</b>' },
      { from: 'a', to: 'r', kind: 'reference' as const, anchor: '§ 23 KSchG' },
      { from: 'a', to: 'r', kind: 'name' as const, anchor: 'KSchG' },
      { from: 'b', to: 'a', kind: 'reference' as const, anchor: '§ 1' },
    ];
    const got = edgesByHit(['a', 'b'], links, 3);
    assert.deepEqual(got.get('a')!.map((e) => `${e.direction} ${e.kind} ${e.other} ${e.anchor}`), ['out reference r § 23 KSchG', 'out name n rust-version', 'in reference b § 1']);
    assert.deepEqual(got.get('b')!.map((e) => `${e.direction} ${e.other}`), ['out a']);
    // Anchors stay the document's text as is (the view renders them with textContent).
    assert.equal(edgesByHit(['a'], links, 10).get('a')!.find((e) => e.other === 'z')!.anchor, 'see <b>a</b>');
  });
});
