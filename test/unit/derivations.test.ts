// German word formation learned from the corpus (text/derivations.ts): a question word the index does not know is joined
// by its derived relatives the vocabulary holds ("krank" → "krankheit"). Invented words only, never the evaluation data.
import * as assert from 'node:assert/strict';
import type { Engine } from '../../src/rag/engine';
import { createRetriever } from '../../src/rag/search';
import { stem } from '../../src/rag/text/stem';
import { Vocabulary } from '../../src/rag/store/vocabulary';
import { derivationTerms } from '../../src/rag/text/derivations';
import { detectLanguage } from '../../src/rag/text/language';
import { germanSentences, indexedTempFolder, type TempIndex } from '../helpers/tempIndex';

const de = (w: string) => stem(w, 'de');
const vocab = (entries: [string, number][]) => new Vocabulary(new Map(entries));

describe('word formation: derived relatives in the corpus vocabulary', () => {
  it('an unknown word gets the nouns formed from its base, an unknown noun its base', () => {
    assert.equal(derivationTerms('Was gilt, wenn ich plorn bin?', vocab([['plornheit', 5]]), de), 'plornheit');
    assert.equal(derivationTerms('Wer wurbelt den Antrag?', vocab([['wurbelung', 4]]), de), 'wurbelung', 'inflection -t removed first');
    assert.equal(derivationTerms('Die Plornheit', vocab([['plorn', 4]]), de), 'plorn');
  });

  it('known words, rare relatives, relatives with the word\'s own stem and function words add nothing', () => {
    assert.equal(derivationTerms('Wer ist plorn?', vocab([['plorn', 3], ['plornheit', 5]]), de), '', 'plorn is known');
    assert.equal(derivationTerms('Wer ist plorn?', vocab([['plornheit', 1]]), de), '', 'a relative seen once');
    assert.equal(derivationTerms('Wer ist plorn?', vocab([['plornheit', 5]]), (w) => w.replace(/heit$/, '')), '', 'the same stem: joined already');
    assert.equal(derivationTerms('', vocab([['plornheit', 5]]), de), '');
  });

  it('at most two relatives per word, the most frequent first', () => {
    const v = vocab([['gramsung', 3], ['gramsheit', 9], ['gramslich', 6], ['gramsbar', 2]]);
    assert.equal(derivationTerms('Ist das grams?', v, de), 'gramsheit gramslich');
  });
});

describe('word formation over a real index', function () {
  this.timeout(180_000);
  let engine: Engine;
  let index: TempIndex;

  before(async () => {
    index = await indexedTempFolder('derivations-', {
      'de/a.md': `# Plornheit\n\nBei Plornheit wird das Entgelt weitergezahlt. Die Plornheit ist dem Arbeitgeber zu melden.\n`,
      'de/b.md': `# Allgemeines\n\n${germanSentences(['Molbe', 'Trasek'], 12)}\n`,
      'de/c.md': `# Wunfel\n\nDer Wunfel wird jährlich geprüft, die Prüfung dauert drei Wochen. Der Wunfel ist zu melden.\n`,
    });
    engine = index.engine;
  });
  after(async () => {
    await index?.close();
  });

  it('a question with the base word finds the passage with its noun only with word formation (keyword search)', async () => {
    const q = 'Was gilt, wenn ich plorn bin?';
    const run = async (derivations: boolean) =>
      createRetriever(engine, { config: 'bm25', overrides: { derivations }, detect: detectLanguage }).retrieve(q, { k: 5, context: false });
    const on = await run(true);
    assert.equal(on.hits[0]?.passage.path, 'de/a.md', on.hits.map((h) => h.passage.path).join(', '));
    assert.ok(on.trace.find((s) => s.name === 'analysis')?.notes?.some((n) => n === 'word formation: plornheit'), JSON.stringify(on.trace));
    const off = await run(false);
    assert.ok(!off.hits.some((h) => h.passage.path === 'de/a.md'), `without: ${off.hits.map((h) => h.passage.path).join(', ')}`);
  });
});
