// Spelling tolerance learned from the corpus (text/spelling.ts): unknown question words are matched to the most frequent
// vocabulary word one edit away, or split as a compound with one corrected part. Generated vocabularies and documents
// only (invented words), never the evaluation workspace.
import * as assert from 'node:assert/strict';
import { correctedSplit, nearestWord, oneEditApart, spellingTerms } from '../../src/rag/text/spelling';
import { detectLanguage } from '../../src/rag/text/language';
import { germanSentences, indexedTempFolder, type TempIndex } from '../helpers/tempIndex';
import type { Engine } from '../../src/rag/engine';
import { createRetriever } from '../../src/rag/search';
import { Vocabulary } from '../../src/rag/store/vocabulary';

const vocab = () =>
  new Vocabulary(
    new Map([
      ['gorbung', 20], ['gorbundel', 20], ['wunfel', 25], ['trasek', 30], ['molbetrasek', 3],
      // two neighbours of "plitzern": the more frequent one wins
      ['plitzen', 9], ['plitzer', 4],
      // seen once only: never a correction
      ['zarbonik', 1],
    ]),
  );

describe('spelling: one-edit neighbours in the corpus vocabulary', () => {
  it('oneEditApart: deletion, insertion, substitution, transposition; not two edits, not equal words', () => {
    assert.ok(oneEditApart('gorbng', 'gorbung'));
    assert.ok(oneEditApart('gorbuung', 'gorbung'));
    assert.ok(oneEditApart('gorbunk', 'gorbung'));
    assert.ok(oneEditApart('gorbugn', 'gorbung'));
    assert.ok(!oneEditApart('gorbugk', 'gorbung'));
    assert.ok(!oneEditApart('gorbung', 'gorbung'));
    assert.ok(!oneEditApart('gbrung', 'gorbung'));
  });

  it('nearestWord picks the most frequent neighbour; known, short or rare words get none', () => {
    assert.equal(nearestWord('plitzern', vocab())?.word, 'plitzen');
    assert.equal(nearestWord('gorbnug', vocab())?.word, 'gorbung');
    assert.equal(nearestWord('gorbung', vocab()), undefined, 'known word');
    assert.equal(nearestWord('wunfl', vocab()), undefined, 'shorter than six letters');
    assert.equal(nearestWord('zarbonic', vocab()), undefined, 'a word seen once is no correction');
  });

  it('correctedSplit splits a compound with exactly one misspelt part (linking -s- kept out)', () => {
    assert.deepEqual(correctedSplit('gorbndelswunfel', vocab()), ['gorbundel', 'wunfel']);
    assert.deepEqual(correctedSplit('gorbngswunfel', vocab()), [], 'a misspelt part shorter than eight letters is not corrected');
    assert.deepEqual(correctedSplit('gorbndelswunfl', vocab()), [], 'two misspelt parts');
  });

  it('spellingTerms: corrections of unknown words only; known words and compounds of known parts add nothing', () => {
    assert.equal(spellingTerms('Der Gorbndelswunfel und die Plitzern', vocab()), 'gorbundel wunfel plitzen');
    assert.equal(spellingTerms('Der Gorbungswunfel und der Trasek', vocab()), '');
    // A correction with the word's own stem is an inflection the keyword analysis joins already.
    assert.equal(spellingTerms('Die Plitzern', vocab(), (w) => w.replace(/e?r?n?$/, '')), '');
  });
});

describe('spelling over a real index', function () {
  this.timeout(180_000);
  let engine: Engine;
  let index: TempIndex;

  before(async () => {
    index = await indexedTempFolder('spelling-', {
      'de/a.md': `# Allgemeines\n\n${germanSentences(['Molbe', 'Trasek', 'Plitz'], 12)}\n`,
      'de/b.md': `# Gorbundel\n\nDer Gorbundel ist schriftlich zu beantragen. ${germanSentences(['Gorbundel', 'Trasek'], 6)}\n`,
      'de/c.md': '# Wunfel\n\nDer Wunfel wird jährlich geprüft, die Prüfung dauert drei Wochen. Der Wunfel ist zu melden.\n',
    });
    engine = index.engine;
  });
  after(async () => {
    await index?.close();
  });

  it('a misspelt compound finds the documents of its parts only with spelling tolerance (keyword search)', async () => {
    const q = 'Wann gibt es den Gorbndelswunfel?';
    const paths = async (spelling: boolean) =>
      (await createRetriever(engine, { config: 'bm25', overrides: { spelling }, detect: detectLanguage }).retrieve(q, { k: 5, context: false })).hits.map((h) => h.passage.path);
    const on = await paths(true);
    const off = await paths(false);
    assert.ok(on.includes('de/b.md') || on.includes('de/c.md'), `with spelling: ${on.join(', ')}`);
    assert.ok(!off.includes('de/b.md') && !off.includes('de/c.md'), `without: ${off.join(', ')}`);
  });
});
