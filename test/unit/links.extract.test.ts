// The reference graph's edges (src/rag/links) on a small fixture, parsed and chunked by the real loaders and chunker:
// a German law with § references (Abs., another law by abbreviation, "im Sinne des", a missing target, a loop), a second
// law, and an English manual with Markdown links to files / anchors, shared backticked names, "see section …" and a
// defined term.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chunkDocument } from '../../src/rag/chunk';
import { defaultConfig } from '../../src/rag/config';
import { parseBytes } from '../../src/rag/ingest/parseBytes';
import { extractLinks, lawsOf, resolveEdges, resolveLaw, legalReferences, targetMap, type ResolvedLink } from '../../src/rag/links';
import { abbreviationScore } from '../../src/rag/links/legal';
import type { DocFormat, LinkRow, Passage } from '../../src/rag/types';

const ROOT = path.join(__dirname, '../fixtures/links');
const FILES = ['gesetze/bsparbg.md', 'gesetze/kschg.md', 'manual/index.md', 'manual/workspaces.md', 'manual/build.md', 'manual/rust-version.md'];

interface Fixture {
  passages: Map<string, Passage>;
  rows: Map<string, LinkRow[]>;
}

async function load(): Promise<Fixture> {
  const passages = new Map<string, Passage>();
  const rows = new Map<string, LinkRow[]>();
  for (const f of FILES) {
    const bytes = new Uint8Array(fs.readFileSync(path.join(ROOT, f)));
    const format = f.split('.').pop() as DocFormat;
    const doc = await parseBytes(bytes, format, f);
    const ps = chunkDocument(doc, { path: f, fileHash: 'h' }, defaultConfig().chunk, {});
    for (const p of ps) passages.set(p.id, p);
    rows.set(f, extractLinks(ps, { path: f, format, raw: Buffer.from(bytes).toString('utf8'), titles: doc.title ? [doc.title] : [] }));
  }
  return { passages, rows };
}

/** Resolves the edges of `files` against the targets of `present` (the files in the index). */
function graph(fx: Fixture, present = FILES): ResolvedLink[] {
  const all = present.flatMap((f) => fx.rows.get(f) ?? []);
  return resolveEdges(all, targetMap(all), lawsOf(all.filter((r) => r.role === 'target' && r.key.startsWith('law:'))));
}

describe('links: edges extracted at index time (model-free)', function () {
  let fx: Fixture;
  let edges: ResolvedLink[];
  const at = (id: string) => {
    const p = fx.passages.get(id)!;
    return `${p.path}:${p.loc.startLine}`;
  };
  /** Edges as "from → to (kind, anchor)" with line-located ends. */
  const find = (kind: string, anchor: RegExp) => edges.filter((e) => e.kind === kind && anchor.test(e.anchor)).map((e) => `${at(e.from)} → ${at(e.to)}`);

  before(async () => {
    fx = await load();
    edges = graph(fx);
  });

  it('resolves "§ 3 Abs. 1" to the passage holding that Absatz of the same law', () => {
    assert.deepEqual(find('reference', /^§ 3 Abs\. 1$/), ['gesetze/bsparbg.md:21 → gesetze/bsparbg.md:15']);
    const text = fx.passages.get(edges.find((e) => e.anchor === '§ 3 Abs. 1')!.to)!.text;
    assert.match(text, /^\(1\) Werktage sind/);
  });

  it('resolves "nach § 23 KSchG" to § 23 of the law whose title carries that abbreviation (another file)', () => {
    assert.deepEqual(find('reference', /^§ 23 KSchG$/), ['gesetze/bsparbg.md:9 → gesetze/kschg.md:13']);
    // Late binding: without the target file the edge is unresolved; when it appears the same stored rows resolve.
    const without = graph(fx, FILES.filter((f) => f !== 'gesetze/kschg.md'));
    assert.equal(without.filter((e) => e.anchor === '§ 23 KSchG').length, 0);
  });

  it('marks "im Sinne des § 7" as a definition edge to § 7', () => {
    assert.deepEqual(find('definition', /^§ 7$/), ['gesetze/bsparbg.md:15 → gesetze/bsparbg.md:25']);
  });

  it('leaves references to missing targets unresolved (a § the law lacks, a law not in the index)', () => {
    const anchors = edges.map((e) => e.anchor);
    assert.ok(!anchors.includes('§ 99'));
    assert.ok(!anchors.some((a) => /Sozialgesetzbuchs/.test(a)));
    // …but they are stored, so they resolve when the target appears.
    const stored = fx.rows.get('gesetze/bsparbg.md')!.filter((r) => r.role === 'edge').map((r) => r.anchor);
    assert.ok(stored.includes('§ 99') && stored.some((a) => /Sozialgesetzbuchs/.test(a)));
  });

  it('keeps both directions of a reference loop (§ 1 → § 2 → § 1), each once', () => {
    const loop = find('reference', /^§ [12]$/);
    assert.deepEqual(loop.sort(), ['gesetze/bsparbg.md:5 → gesetze/bsparbg.md:9', 'gesetze/bsparbg.md:9 → gesetze/bsparbg.md:5']);
  });

  it('links a defined term ("Werktage sind …") from the passages that use it', () => {
    const uses = find('definition', /^werktage$/);
    assert.deepEqual(uses.sort(), ['gesetze/bsparbg.md:21 → gesetze/bsparbg.md:15', 'gesetze/bsparbg.md:9 → gesetze/bsparbg.md:15']);
  });

  it('follows Markdown links to a file and to a heading anchor', () => {
    assert.deepEqual(find('link', /^Workspaces$/), ['manual/index.md:5 → manual/workspaces.md:5']);
    assert.deepEqual(find('link', /^the start$/), ['manual/workspaces.md:9 → manual/index.md:5']);
  });

  it('links backticked names shared across files: a rare one between its mentions, a common one to where it is introduced', () => {
    // `members` is mentioned twice: the two passages link to each other.
    assert.deepEqual(find('name', /^members$/).sort(), ['manual/build.md:9 → manual/workspaces.md:9', 'manual/workspaces.md:9 → manual/build.md:9']);
    // `rust-version` is mentioned by five passages (more than MAX_TARGETS_PER_KEY): only the file named so is followed.
    assert.deepEqual(find('name', /^rust-version$/).sort(), [
      'manual/build.md:5 → manual/rust-version.md:3',
      'manual/build.md:9 → manual/rust-version.md:3',
      'manual/index.md:5 → manual/rust-version.md:3',
      'manual/workspaces.md:5 → manual/rust-version.md:3',
      'manual/workspaces.md:9 → manual/rust-version.md:3',
    ]);
    // `[workspace]` is introduced by a heading ("The `[workspace]` section") and mentioned in two passages.
    assert.ok(find('name', /^workspace$/).includes('manual/workspaces.md:5 → manual/build.md:9'));
  });

  it('follows "see section …" to the heading of that title and an emphasised definition to its uses', () => {
    assert.deepEqual(find('reference', /^see section Build Scripts$/), ['manual/index.md:5 → manual/build.md:5']);
    assert.deepEqual(find('definition', /^virtual manifest$/), ['manual/workspaces.md:9 → manual/workspaces.md:5']);
  });

  it('is deterministic and depends on the file alone', async () => {
    const again = await load();
    for (const f of FILES) assert.deepEqual(again.rows.get(f), fx.rows.get(f));
  });
});

describe('links: legal references and law names', () => {
  it('parses § lists, Absatz, the law by abbreviation or genitive name, and "dieses Gesetzes"', () => {
    const refs = legalReferences('Die §§ 2 bis 6, 14 des Schwarzarbeitsbekämpfungsgesetzes, § 7 Abs. 3 BUrlG und § 4 dieses Gesetzes. Im Sinne des § 9 Satz 2 gilt.');
    assert.deepEqual(
      refs.map((r) => [r.sections, r.paragraph, r.law, r.definition]),
      [
        [['2', '6', '14'], undefined, 'des Schwarzarbeitsbekämpfungsgesetzes', false],
        [['7'], '3', 'BUrlG', false],
        [['4'], undefined, '', false],
        [['9'], undefined, '', true],
      ],
    );
  });

  it('resolves a law name against the titles and abbreviations of the index; initialisms only exactly', () => {
    const laws = [
      { id: 'milog', title: 'Gesetz zur Regelung eines allgemeinen Mindestlohns', abbreviation: 'MiLoG' },
      { id: 'arbzg', title: 'Arbeitszeitgesetz', abbreviation: 'ArbZG' },
      { id: 'arbschg', title: 'Gesetz über die Durchführung von Maßnahmen des Arbeitsschutzes', abbreviation: 'ArbSchG' },
      { id: 'agg', title: 'Allgemeines Gleichbehandlungsgesetz', abbreviation: 'AGG' },
    ];
    assert.equal(resolveLaw('des Mindestlohngesetzes', laws), 'milog');
    assert.equal(resolveLaw('des Arbeitszeitgesetzes', laws), 'arbzg');
    assert.equal(resolveLaw('des Arbeitsschutzgesetzes', laws), 'arbschg'); // more letters matched than ArbZG
    assert.equal(resolveLaw('AGG', laws), 'agg');
    assert.equal(resolveLaw('des Allgemeinen Gleichbehandlungsgesetzes', laws), 'agg');
    assert.equal(resolveLaw('der Abgabenordnung', laws), undefined); // A…G…G is no evidence for AGG
    assert.equal(abbreviationScore('abgabenordnungsgesetz', 'AGG'), 0);
  });

  it('passages split from one block that share its source range each get the links they show, once', async () => {
    // A licence page: one list holding every entry (an anchor link and a long text each), which the chunker splits into
    // many passages that all keep the list's line range.
    const items = Array.from({ length: 60 }, (_, i) => `<li>\n<a href="#lic-${i}">Lizenz ${i}</a>\n${`Die Nutzung des Moduls ${i} ist unter den Bedingungen dieser Lizenz gestattet. `.repeat(4)}</li>`);
    const html = `<!doctype html><html><body><main><h1>Lizenzen</h1><ul>${items.join('\n')}</ul></main></body></html>`;
    const doc = await parseBytes(new Uint8Array(Buffer.from(html)), 'html', 'licences.html');
    const ps = chunkDocument(doc, { path: 'licences.html', fileHash: 'h' }, defaultConfig().chunk, {});
    const units = ps.filter((p) => p.level === 2);
    assert.ok(units.length > 5, `the list is split (${units.length} passages)`);
    assert.ok(new Set(units.map((u) => `${u.loc.startLine}:${u.loc.endLine}`)).size < units.length, 'precondition: passages share a source range');
    const rows = extractLinks(ps, { path: 'licences.html', format: 'html', raw: html });
    const links = rows.filter((r) => r.role === 'edge' && r.kind === 'link');
    // One edge per link of the page, not one per passage and link (the links shown by the file's first passage point
    // at that passage itself, which resolves local anchors without a heading: no edge).
    assert.equal(new Set(links.map((l) => l.anchor)).size, links.length, 'no link twice');
    assert.ok(links.length >= 50 && links.length <= 60, `${links.length} edges`);
    for (const l of links) {
      const from = ps.find((p) => p.id === l.from)!;
      assert.ok(from.text.includes(l.anchor), `the edge "${l.anchor}" starts at the passage that shows it`);
    }
  });
});

