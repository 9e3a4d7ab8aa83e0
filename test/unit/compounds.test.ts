// German compounds learned from the corpus (text/compounds.ts, store/vocabulary.ts) and both language columns always
// searched (search/candidates.ts). The splitter is tested on a generated vocabulary; the index tests write small
// generated documents, never the evaluation workspace.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as os from 'node:os';
import { annotateCompounds, compoundParts, countWords, splitCompound, withParts, withoutParts } from '../../src/rag/text/compounds';
import { detectLanguage } from '../../src/rag/text/language';
import { germanSentences, indexedTempFolder, type TempIndex } from '../helpers/tempIndex';
import type { Engine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';
import { createRetriever } from '../../src/rag/search';
import { passageToRow, rowText } from '../../src/rag/store/schema';
import { Vocabulary, VOCABULARY_FILE, VocabularyFile, currentVocabulary, fileWordCounts, loadVocabulary, saveVocabulary } from '../../src/rag/store/vocabulary';
import type { IndexedPassage } from '../../src/rag/types';

/** A generated vocabulary: invented stems with chosen frequencies (no real domain words needed). */
function generated(): Map<string, number> {
  return new Map([
    ['molbe', 40], ['trasek', 30], ['wunfel', 25], ['gorbung', 20], ['plitz', 12],
    // a frequent compound: more frequent than its parts' geometric mean, so it stays whole
    ['molbetrasek', 200],
    // a rare compound with a Fugen-s
    ['gorbungswunfel', 2],
    // function words are never parts
    ['oder', 5000], ['nicht', 4000],
  ]);
}

describe('compounds: frequency-based splitter (Koehn & Knight) on a generated vocabulary', () => {
  it('splits a rare compound into frequent parts, with the linking elements -s-, -es-, -n-, -en-, -e-', () => {
    const v = generated();
    assert.deepEqual(splitCompound('gorbungswunfel', v), ['gorbung', 'wunfel']);
    assert.deepEqual(splitCompound('Molbeswunfel', v), ['molbe', 'wunfel'], 'lowercased, -s-');
    assert.deepEqual(splitCompound('molbeeswunfel', v), ['molbe', 'wunfel'], '-es-');
    assert.deepEqual(splitCompound('trasekenwunfel', v), ['trasek', 'wunfel'], '-en-');
    assert.deepEqual(splitCompound('trasekwunfel', v), ['trasek', 'wunfel'], 'no link');
  });

  it('keeps a word whole when it is at least as frequent as the geometric mean of its parts', () => {
    assert.deepEqual(splitCompound('molbetrasek', generated()), []);
    const v = generated();
    v.set('molbetrasek', 10); // now rarer than sqrt(40 * 30) ≈ 34.6
    assert.deepEqual(splitCompound('molbetrasek', v), ['molbe', 'trasek']);
  });

  it('picks the split with the highest geometric mean, over three parts too', () => {
    const v = generated();
    assert.deepEqual(splitCompound('molbetrasekwunfel', v), ['molbetrasek', 'wunfel'], 'sqrt(200*25) > cbrt(40*30*25)');
    v.set('molbetrasek', 1);
    assert.deepEqual(splitCompound('molbetrasekwunfel', v), ['molbe', 'trasek', 'wunfel']);
  });

  it('never splits into unknown parts, function words, or parts shorter than four letters', () => {
    const v = generated();
    assert.deepEqual(splitCompound('molbequarz', v), [], 'unknown part');
    assert.deepEqual(splitCompound('odermolbe', v), [], 'function word as a part');
    v.set('abc', 999);
    assert.deepEqual(splitCompound('abcmolbe', v), [], 'too short');
    assert.deepEqual(splitCompound('molbe', v), [], 'short words stay whole');
  });

  it('compoundParts lists the parts of each distinct word once; the whole words stay in the text', () => {
    const v = generated();
    assert.equal(compoundParts('Die Gorbungswunfel und die gorbungswunfel, nicht die Molbetrasek.', v), 'gorbung wunfel');
    const stored = withParts('Die Gorbungswunfel', 'gorbung wunfel');
    assert.equal(withoutParts(stored), 'Die Gorbungswunfel');
    assert.equal(withoutParts('plain text'), 'plain text');
  });
});

describe('compounds: vocabulary', () => {
  it('counts German passages of the finest level only, adds and subtracts, and round-trips its file format', () => {
    const passages = [
      { lang: 'de' as const, level: 1 as const, text: 'Molbe Molbe Trasek' },
      { lang: 'de' as const, level: 2 as const, text: 'Molbe Trasek' },
      { lang: 'en' as const, level: 2 as const, text: 'Wunfel' },
    ];
    const counts = fileWordCounts(passages);
    assert.deepEqual([...counts].sort(), [['molbe', 1], ['trasek', 1]]);
    const v = new Vocabulary(countWords('molbe molbe plitz'));
    v.add(counts);
    assert.equal(v.get('molbe'), 3);
    v.add(counts, -1);
    v.add(new Map([['plitz', 1]]), -1);
    assert.equal(v.get('molbe'), 2);
    assert.equal(v.get('plitz'), undefined, 'words that reach 0 are dropped');
    assert.deepEqual([...Vocabulary.parse(v.serialize()).counts].sort(), [...v.counts].sort());
  });

  it('the stored file is read by binary search and written by merging the changes: the same as parsing and serialising it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vocab-'));
    try {
      // Words with umlauts, ß and a letter outside the BMP, in an order unlike the sorted one.
      const words = ['zeltrix', 'äpfel', 'apfel', 'straße', 'strasse', 'öl', 'ol', 'übung', 'u', '𝔘nicode', 'mittel', 'mittelwert', 'b'];
      const base = new Vocabulary(new Map(words.map((w, i) => [w, i + 1])));
      saveVocabulary(dir, base);
      const file = VocabularyFile.open(dir)!;
      assert.ok(file, 'the saved file is in the sorted layout');
      for (const w of [...words, 'aaa', 'mittelw', 'zzz', '']) assert.equal(file.get(w), base.get(w), w);
      // Changes: raise, lower to 0 (dropped), add before the first, between and after the last word.
      const changes: [Map<string, number>, 1 | -1][] = [
        [new Map([['mittel', 5], ['aaa', 2], ['ölung', 1], ['zzz', 3]]), 1],
        [new Map([['apfel', 3], ['b', 13], ['nie', 0]]), -1],
      ];
      const expected = base.clone();
      for (const [d, sign] of changes) {
        file.add(d, sign);
        expected.add(d, sign);
      }
      for (const w of [...words, 'aaa', 'ölung', 'zzz', 'nie']) assert.equal(file.get(w), expected.get(w), w);
      saveVocabulary(dir, file);
      assert.equal(fs.readFileSync(path.join(dir, VOCABULARY_FILE), 'utf8'), expected.serialize());
      // The words a spelling correction looks at, by first unit and length, with and without unsaved changes.
      const byFirst = (v: { wordsOf(f: string, n: number): readonly string[] }) =>
        [...'aäbmouüsz\ud835'].flatMap((f) => [1, 2, 3, 5, 6, 7, 8, 10].map((n) => `${f}${n}:${[...v.wordsOf(f, n)].sort().join(',')}`));
      const reopened = VocabularyFile.open(dir)!;
      assert.deepEqual(byFirst(reopened), byFirst(expected));
      assert.ok(reopened.wordsOf('m', 6).includes('mittel') && reopened.wordsOf('\ud835', 8).includes('𝔘nicode'));
      reopened.add(new Map([['mittelwert', 12], ['molbe', 2]]), -1);
      expected.add(new Map([['mittelwert', 12], ['molbe', 2]]), -1);
      assert.deepEqual(byFirst(reopened), byFirst(expected));
      // What a search process uses: the sorted file itself, searched, not a parsed copy of it.
      assert.ok(currentVocabulary(dir) instanceof VocabularyFile);
      assert.equal(currentVocabulary(dir)!.get('mittel'), expected.get('mittel'));
      // A file an earlier version wrote (unsorted) is not searched, only parsed.
      fs.writeFileSync(path.join(dir, VOCABULARY_FILE), '# docs-rag vocabulary v1: word<TAB>occurrences in German passages\nzeta\t2\nalpha\t1\n');
      assert.equal(VocabularyFile.open(dir), null);
      assert.equal(loadVocabulary(dir)!.get('zeta'), 2);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('index-time tokens: the parts go into the German keyword column only, after a marker that is no token', () => {
    const base = {
      path: 'a.md', fileHash: 'h', format: 'md' as const, level: 2 as const, chunkPath: 'c', parentId: null, order: 0, headingPath: [],
      title: '', overlap: '', loc: {},
    };
    const de: IndexedPassage = { ...base, id: '1', text: 'Die Gorbungswunfel', indexText: 'Die Gorbungswunfel', lang: 'de' };
    const en: IndexedPassage = { ...base, id: '2', text: 'The gorbungswunfel', indexText: 'The gorbungswunfel', lang: 'en' };
    annotateCompounds([de, en], generated());
    assert.equal(de.keywordParts, 'gorbung wunfel');
    assert.equal(en.keywordParts, undefined);
    const row = passageToRow(de, new Float32Array(4), 'float');
    assert.match(row.fts_de as string, /^Die Gorbungswunfel\n\S gorbung wunfel$/);
    assert.equal(rowText(row), 'Die Gorbungswunfel', 'shown text unchanged');
    assert.equal(passageToRow(en, new Float32Array(4), 'float').fts_en, 'The gorbungswunfel');
  });
});

describe('compounds and both languages over a real index', function () {
  this.timeout(180_000);
  let folder: string;
  let engine: Engine;
  let index: TempIndex;
  const write = (rel: string, text: string) => index.write(rel, text);

  before(async () => {
    index = await indexedTempFolder('compounds-', {
      // German documents: the parts "Gorbung" and "Wunfel" are frequent, the compound occurs once, in its own file.
      'de/a.md': `# Gorbung\n\n${germanSentences(['Gorbung', 'Wunfel', 'Molbe'], 12)}\n`,
      'de/b.md': `# Wunfel\n\n${germanSentences(['Wunfel', 'Gorbung', 'Trasek'], 12)}\n`,
      'de/c.md': '# Sonderfall\n\nDer Antrag auf Gorbungswunfel ist bei der zuständigen Stelle schriftlich einzureichen, und zwar vor dem Beginn.\n',
      // English documents: the only place of the exact token.
      'en/config.md': '# Configuration\n\nThe settings live in the manifest file `zeltrix.toml` at the root of the project, next to the lock file.\n',
      'en/other.md': '# Other\n\nThis page describes how the tool works when there is no manifest at all, and what it prints then.\n',
    });
    ({ folder, engine } = index);
  });
  after(async () => {
    await index?.close();
  });

  const retrieve = (q: string, config = 'bm25') =>
    createRetriever(engine, { config, detect: detectLanguage }).retrieve(q, { k: 5, context: false });

  it('builds the vocabulary in the store folder from the German passages', () => {
    const v = loadVocabulary(engine.storeDir);
    assert.ok(v, `${VOCABULARY_FILE} written`);
    assert.ok((v.get('gorbung') ?? 0) >= 4 && (v.get('wunfel') ?? 0) >= 4);
    assert.equal(v.get('zeltrix'), undefined, 'English passages are not counted');
  });

  it('a query with the parts finds the compound (keyword search only), and a query with the compound finds the parts', async () => {
    // c.md shares no whole word with this query: only its compound's parts can match.
    const r = await retrieve('Wunfel der Gorbung');
    assert.ok(r.hits.some((h) => h.passage.path === 'de/c.md'), r.hits.map((h) => h.passage.path).join(', '));
    const parts = await retrieve('Gorbungswunfel Regel');
    assert.ok(parts.hits.some((h) => h.passage.path === 'de/a.md' || h.passage.path === 'de/b.md'));
  });

  it('a German question finds an exact token that only English documents contain (keyword-only and default)', async () => {
    for (const config of ['bm25', 'default']) {
      const r = await retrieve('Wo steht die Einstellung in zeltrix.toml und was gilt für die Regel?', config);
      assert.equal(r.analysis.lang, 'de');
      assert.ok(r.hits.slice(0, 3).some((h) => h.passage.path === 'en/config.md'), `${config}: ${r.hits.map((h) => h.passage.path).join(', ')}`);
    }
  });

  it('rewriteKeywordParts re-splits stored German rows (keyword text and builtin vector), leaving unchanged rows alone', async () => {
    const store = engine.store as import('../../src/rag/store/lanceStore').LanceStore;
    const find = async () => (await store.fullTextSearch('Quarzelbe', { k: 50, lang: 'de' })).map((h) => h.passage.id).sort();
    assert.deepEqual(await find(), []);
    const ids = (await store.getFilePassages('de/c.md')).map((p) => p.id).sort();
    const before = await store.getVectors(ids);
    const n = await store.rewriteKeywordParts(['de/c.md'], () => 'quarzelbe', (t) => engine.embedder.embed(t));
    assert.equal(n, ids.length);
    assert.deepEqual(await find(), ids, 'the new parts are searchable in the German column');
    const after = await store.getVectors(ids);
    assert.ok(ids.some((id) => before.get(id)!.some((x, i) => x !== after.get(id)![i])), 're-embedded');
    assert.equal(await store.rewriteKeywordParts(['de/c.md'], () => 'quarzelbe'), 0, 'nothing changed: nothing written');
    const restored = loadVocabulary(engine.storeDir)!;
    await store.rewriteKeywordParts(['de/c.md'], (t) => compoundParts(t, restored), (t) => engine.embedder.embed(t));
    assert.deepEqual(await find(), []);
  });

  it('an incremental run keeps the vocabulary current (changed and removed files are subtracted)', async () => {
    const before = loadVocabulary(engine.storeDir)!;
    write('de/c.md', '# Sonderfall\n\nDer Antrag auf Plitzmolbe ist schriftlich bei der Stelle einzureichen.\n');
    await indexFolder(engine, { paths: ['de/c.md'] });
    const after = loadVocabulary(engine.storeDir)!;
    assert.equal(after.get('gorbungswunfel'), undefined, 'old word of the changed file removed');
    assert.equal(after.get('plitzmolbe'), 1);
    assert.equal(after.get('gorbung'), before.get('gorbung'));
    fs.rmSync(path.join(folder, 'de/b.md'));
    await indexFolder(engine, { paths: ['de/b.md'] });
    const removed = loadVocabulary(engine.storeDir)!;
    assert.equal(removed.get('trasek'), undefined, 'words of a removed file are subtracted');
    assert.ok((removed.get('wunfel') ?? 0) < (after.get('wunfel') ?? 0));
    // The incrementally kept counts equal a recount of the final state.
    await indexFolder(engine, { full: true });
    assert.deepEqual([...loadVocabulary(engine.storeDir)!.counts].sort(), [...removed.counts].sort());
  });
});
