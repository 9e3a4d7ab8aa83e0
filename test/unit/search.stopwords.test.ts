// German question words in the German column's keyword query (search/candidates.ts, lexicon.ts withoutStopWords): words
// the column's analyzer keeps ("gilt", "gibt", "darf", "welche") are left out of the query, so a passage that shares only
// them with the question is not a hit. Generated documents, never the evaluation workspace.
import * as assert from 'node:assert/strict';
import { detectLanguage } from '../../src/rag/text/language';
import { indexedTempFolder, type TempIndex } from '../helpers/tempIndex';
import type { Engine } from '../../src/rag/engine';
import { createRetriever } from '../../src/rag/search';
import { withoutStopWords } from '../../src/rag/search/lexicon';

describe('German question words in the keyword query', function () {
  this.timeout(180_000);
  let engine: Engine;
  let index: TempIndex;

  before(async () => {
    index = await indexedTempFolder('stopwords-', {
      'a.md': '# Allgemeines\n\nHier gilt die Regel. Es gilt immer und es gilt überall, was auch geschieht, für jeden Fall.\n',
      'b.md': '# Gorbung\n\nDie Gorbung wird jährlich geprüft und schriftlich beantragt, bevor die Frist endet.\n',
      'c.md': '# Dice\n\nThe die was cast, and then the second die fell off the table onto the floor of the room.\n',
      'e.md': '# Herbst\n\nDer Most wird im Herbst aus Äpfeln gepresst und danach im kühlen Keller gelagert.\n',
      'f.md': '# Pflege\n\nDie Ordnung regelt den Zeltrix und seine Pflege durch die Verwaltung der Gemeinde.\n',
      'd.md': '# Zeltrix\n\nThe zeltrix manifest lists the settings of the project and the paths of its files.\n',
    });
    engine = index.engine;
  });
  after(async () => {
    await index?.close();
  });

  it('withoutStopWords drops stop-list words, keeps content words and words inside identifiers', () => {
    assert.equal(withoutStopWords('Was gilt für die Gorbung?', 'de').replace(/\s+/g, ' ').trim(), 'Gorbung?');
    assert.equal(withoutStopWords('Welche Werte gibt es in Cargo.toml und opt-level?', 'de').replace(/\s+/g, ' ').trim(), 'Werte Cargo.toml opt-level?');
  });

  it('a passage sharing only a question word ("gilt") with the question is no keyword hit; the content word still finds its passage', async () => {
    const r = await createRetriever(engine, { config: 'bm25', detect: detectLanguage }).retrieve('Was gilt für die Gorbung?', { k: 5, context: false });
    const paths = r.hits.map((h) => h.passage.path);
    assert.ok(paths.includes('b.md'), paths.join(', '));
    assert.ok(!paths.includes('a.md'), `a.md matched only "gilt": ${paths.join(', ')}`);
  });

  it('a German question searches the English column without its German function words ("die" is an English word)', async () => {
    const r = await createRetriever(engine, { config: 'bm25', detect: detectLanguage }).retrieve('Was ist die Zeltrix?', { k: 5, context: false });
    assert.equal(r.analysis.lang, 'de');
    const paths = r.hits.map((h) => h.passage.path);
    assert.ok(paths.includes('d.md'), paths.join(', '));
    assert.ok(!paths.includes('c.md'), `c.md matched only "die": ${paths.join(', ')}`);
  });

  it('an English question searches the German column without its English function words ("most" is a German word)', async () => {
    const r = await createRetriever(engine, { config: 'bm25', detect: detectLanguage }).retrieve('Which rules apply to most of the zeltrix?', { k: 5, context: false });
    assert.equal(r.analysis.lang, 'en');
    const paths = r.hits.map((h) => h.passage.path);
    assert.ok(paths.includes('f.md'), paths.join(', '));
    assert.ok(!paths.includes('e.md'), `e.md matched only "most": ${paths.join(', ')}`);
  });
});
