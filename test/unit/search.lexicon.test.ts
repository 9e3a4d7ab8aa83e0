// Thesaurus and German↔English bridge: the compiler on excerpts of each source format (test/fixtures/lexicon, laid out
// like the Debian packages), lookups, the shipped data file, and retrieval over a small generated corpus where a synonym
// or a translation finds a passage the plain question cannot, with the added terms in the trace.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { compileDing, compileOpenThesaurus, compileWordNet, englishVariants, serialize } from '../../scripts/lexicon/compile';
import { detectLanguage } from '../../src/rag/text/language';
import { openEngine, type Engine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';
import { createRetriever } from '../../src/rag/search';
import { IDIOM_MARK, Lexicon, LEXICON_FILES, lexiconDir, loadLexicon, setLexiconDir, termKey, unpackedFiles } from '../../src/rag/search/lexicon';
import { feedbackTerms } from '../../src/rag/search/prf';
import { bridgeWeight } from '../../src/rag/search/termExpansion';
import { coverage, rankTranslations, synonymList, translationList } from '../../src/rag/search/termLists';
import type { SearchHit } from '../../src/rag/types';

const FIX = path.join(__dirname, '../fixtures/lexicon/usr/share');
const read = (...p: string[]) => fs.readFileSync(path.join(FIX, ...p), 'utf8');

function compileFixtures() {
  const wn = (f: string) => read('wordnet', f);
  return {
    de: compileOpenThesaurus(read('openthesaurus-de', 'openthesaurus.txt')),
    en: compileWordNet({
      index: { noun: wn('index.noun'), verb: wn('index.verb'), adj: wn('index.adj'), adv: wn('index.adv') },
      data: { noun: wn('data.noun'), verb: wn('data.verb'), adj: wn('data.adj'), adv: wn('data.adv') },
    }),
    ding: compileDing(read('trans', 'de-en')),
  };
}

/** Writes the compiled fixtures as a lexicon folder (the format the extension ships). */
function writeFixtureLexicon(dir: string): void {
  const c = compileFixtures();
  const put = (file: string, sections: Parameters<typeof serialize>[0]) =>
    fs.writeFileSync(path.join(dir, file), gzipSync(Buffer.from(serialize(sections, ['test']), 'utf8')));
  put(LEXICON_FILES['thesaurus-de'], { de: c.de });
  put(LEXICON_FILES['thesaurus-en'], { en: c.en });
  put(LEXICON_FILES['bridge-de-en'], c.ding);
}

describe('lexicon: compiler on source excerpts', () => {
  it('OpenThesaurus: synonyms by stem, register-marked words never added, ambiguous words not expanded', () => {
    const de = compileOpenThesaurus(read('openthesaurus-de', 'openthesaurus.txt'));
    const chef = de.get(termKey('Chef', 'de'))!;
    assert.ok(chef.includes('vorgesetzter') && chef.includes('arbeitgeber'), chef.join());
    assert.ok(!chef.includes('boss') && !chef.includes('dienstherr'), '(ugs.) and (veraltet) are not targets');
    assert.ok(de.get(termKey('Boss', 'de'))?.includes('chef'), 'a colloquial word is still looked up');
    assert.ok(de.get(termKey('Urlaubs', 'de'))?.includes('erholungsurlaub'), 'keyed by stem');
    assert.equal(de.get(termKey('Schicht', 'de')), undefined, 'in 6 synsets: too ambiguous');
    assert.ok(de.get(termKey('Urlaub', 'de'))!.length <= 4);
  });

  it('WordNet: single-word lemmas of the most frequent sense', () => {
    const en = compileWordNet({
      index: { noun: read('wordnet', 'index.noun'), verb: read('wordnet', 'index.verb') },
      data: { noun: read('wordnet', 'data.noun'), verb: read('wordnet', 'data.verb') },
    });
    assert.ok(en.get(termKey('vacation', 'en'))?.includes('holiday'));
    assert.ok(en.get(termKey('holidays', 'en'))?.includes('vacation'));
    assert.equal(en.get(termKey('employer', 'en')), undefined, 'a synset with no other lemma adds nothing');
  });

  it('Ding: both directions, headword translations first, two-word English keys, exact forms where the stem differs', () => {
    const { 'de-en': deEn, 'en-de': enDe } = compileDing(read('trans', 'de-en'));
    assert.equal(deEn.get(termKey('Mindestlohn', 'de'))?.[0], 'minimum wage');
    assert.ok(deEn.get(termKey('Urlaub', 'de'))?.includes('leave'));
    assert.deepEqual(enDe.get(termKey('minimum wage', 'en')), ['mindestlohn'], 'the plural has the same stem: one target');
    assert.ok(enDe.get(termKey('employer', 'en'))?.includes('arbeitgeber'));
    assert.equal(enDe.get(termKey('shift', 'en'))?.[0], 'schicht');
    assert.equal(enDe.get('=shifts')?.[0], 'schichten', 'the plural sub-entry gives the exact form');
    assert.equal(deEn.get('=Lokale')?.[0], 'bars', "a German exact form keeps its case (the noun's plural)");
    assert.equal(deEn.get('=lokale'), undefined);
    assert.ok(!deEn.get(termKey('Paket', 'de'))!.some((t) => /\[|\(/.test(t)), 'annotations removed');
  });

  it('Ding: an English phrase with function words that is one German word is an idiom key of its own', () => {
    const { 'en-de': enDe } = compileDing(read('trans', 'de-en'));
    const atLeast = enDe.get(`${IDIOM_MARK}at least`)!;
    assert.ok(['zumindest', 'mindestens', 'wenigstens'].every((t) => atLeast.includes(t)), atLeast.join());
    assert.deepEqual(enDe.get(`${IDIOM_MARK}at a minimum`), ['mindestens', 'zumindest'], 'a/the spelt out');
    assert.deepEqual(enDe.get(`${IDIOM_MARK}in writing`), ['schriftlich']);
    const least = enDe.get(termKey('least', 'en'))!;
    assert.ok(least.includes('kleinste') && !least.includes('zumindest'), `the word alone keeps its own sense: ${least.join()}`);
    assert.deepEqual(enDe.get(`${IDIOM_MARK}body of writing`), ['schrift'], 'a noun phrase with "of" too');
    assert.equal(enDe.get(`${IDIOM_MARK}the holy writ`), undefined, 'a phrase opening with an article is no idiom');
  });

  it('Ding: English alternatives inside a term are spelt out (commas, word/word)', () => {
    assert.deepEqual(englishVariants('at a/the minimum, at least'), ['at a minimum', 'at the minimum', 'at least']);
    assert.deepEqual(englishVariants('decomposition/degradation rate'), ['decomposition rate', 'degradation rate']);
    assert.deepEqual(englishVariants('level recorder controller /LRC/'), ['level recorder controller /LRC/'], 'an abbreviation stays');
    assert.equal(englishVariants('a/b c/d e/f').length, 4, 'at most four variants');
    const { 'en-de': enDe } = compileDing(read('trans', 'de-en'));
    assert.ok(enDe.get(termKey('degradation rate', 'en'))?.includes('abbaurate'));
    assert.ok(enDe.get(termKey('decomposition rate', 'en'))?.includes('abbaurate'));
  });

  it('serialize → parse round trip', () => {
    const c = compileFixtures();
    const lex = Lexicon.parse(serialize({ de: c.de, ...c.ding }, ['header']));
    assert.deepEqual(lex.get('de', termKey('Chef', 'de')), c.de.get(termKey('Chef', 'de')));
    assert.deepEqual(lex.get('en-de', termKey('minimum wage', 'en')), c.ding['en-de'].get(termKey('minimum wage', 'en')));
    assert.equal(lex.get('de', 'nothing'), undefined);
  });

  it('lookups by section and whole key: prefixes, other sections, UTF-8 keys and a repeated key (last line wins)', () => {
    const lex = Lexicon.parse(['# comment\tnot\tan entry', 'de\tarbeit\tjob|werk', 'de\tarbeitszeit\tdienstzeit', 'de-en\tarbeit\twork|labour', 'de\tübung\ttraining', 'de\tarbeit\tmühe', 'broken line', ''].join('\n'));
    assert.deepEqual(lex.get('de', 'arbeit'), ['mühe']);
    assert.deepEqual(lex.get('de-en', 'arbeit'), ['work', 'labour']);
    assert.deepEqual(lex.get('de', 'übung'), ['training']);
    assert.deepEqual(lex.get('de', 'arbeitszeit'), ['dienstzeit']);
    assert.equal(lex.get('de', 'arbeits'), undefined);
    assert.equal(lex.get('en', 'arbeit'), undefined);
    assert.equal(lex.get('# comment', 'not'), undefined);
  });
});

describe('lexicon: the unpacked copy the build writes', () => {
  it('is read when it is not older than the .gz, with the same lookups; a newer .gz or a missing table falls back to it', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lexicon-unpack-'));
    try {
      const gz = path.join(dir, LEXICON_FILES['thesaurus-de']);
      fs.writeFileSync(gz, gzipSync(['de\tarbeit\tjob|werk', 'de\tübung\ttraining', ''].join('\n')));
      const unpack = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, '../../scripts/lexicon/unpack.ts'), dir], { encoding: 'utf8' });
      assert.equal(unpack.status, 0, unpack.stderr);
      const { raw, slots } = unpackedFiles(gz);
      assert.ok(fs.existsSync(raw) && fs.existsSync(slots));
      // The unpacked copy is what gets read: a word only it holds is found (the .gz would not know it).
      fs.writeFileSync(raw, ['de\tarbeit\tjob|werk', 'de\tübung\ttraining', ''].join('\n').replace('training', 'drill\u00a0'));
      const later = new Date(Date.now() + 60_000);
      fs.utimesSync(raw, later, later);
      fs.utimesSync(slots, later, later);
      setLexiconDir(dir);
      assert.deepEqual(loadLexicon('thesaurus-de')?.get('de', 'übung'), ['drill\u00a0']);
      assert.deepEqual(loadLexicon('thesaurus-de')?.get('de', 'arbeit'), ['job', 'werk']);
      // A .gz newer than its copy (a checkout updated without a build): the .gz.
      const newest = new Date(Date.now() + 120_000);
      fs.utimesSync(gz, newest, newest);
      setLexiconDir(dir);
      assert.deepEqual(loadLexicon('thesaurus-de')?.get('de', 'übung'), ['training']);
      // No table: the .gz.
      fs.utimesSync(gz, new Date(0), new Date(0));
      fs.rmSync(slots);
      setLexiconDir(dir);
      assert.deepEqual(loadLexicon('thesaurus-de')?.get('de', 'übung'), ['training']);
    } finally {
      setLexiconDir(undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('lexicon: lookups', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lexicon-'));
    writeFixtureLexicon(dir);
    setLexiconDir(dir);
  });
  after(() => {
    setLexiconDir(undefined);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('synonyms: content words only, question words kept in the list, at most perWord per word', () => {
    const s = synonymList('Wer ist mein Chef im Urlaub?', 'de', { perWord: 1, withQuery: true })!;
    assert.equal(s.lang, 'de');
    assert.equal(s.added.length, 2, s.added.join());
    assert.ok(/\bchef\b/.test(s.text) && /\burlaub\b/.test(s.text), 'the question words stay');
    assert.equal(synonymList('Wer ist das?', 'de', { perWord: 2, withQuery: true }), undefined, 'stop words only');
  });

  it('translation: two-word terms first, unknown words carried over, exact forms before stems', () => {
    const t = translationList('What is the minimum wage in Cargo.toml?', 'en', { perWord: 2 })!;
    assert.equal(t.lang, 'de');
    assert.ok(t.added.includes('mindestlohn'));
    assert.ok(t.text.includes('Cargo.toml'), 'identifiers carried over whole');
    assert.ok(translationList('two shifts', 'en', { perWord: 1 })!.added.includes('schichten'));
    assert.ok(translationList('Mindestlohn', 'de', { perWord: 1 })!.added.includes('minimum wage'));
  });

  it('translation: an English idiom is translated whole, its words not one by one', () => {
    const t = translationList('Must the employer answer in writing at least once?', 'en', { perWord: 3 })!;
    assert.ok(t.added.includes('schriftlich'), t.added.join());
    assert.ok(t.added.includes('zumindest'), t.added.join());
    assert.ok(!t.added.some((a) => ['kleinste', 'geringste', 'schrift'].includes(a)), `"least" and "writing" not alone: ${t.added.join()}`);
    assert.ok(t.added.includes('arbeitgeber'), 'the other words as before');
    // One coverage group per content word of the question ("once" is a stop word): employer, answer, writing, least.
    assert.equal(t.groups.length, 4);
    assert.ok(t.groups[2] === t.groups[3] || t.groups.filter((g) => g.has(termKey('schriftlich', 'de'))).length === 1, 'an idiom is one group per content word');
    assert.ok(translationList('the least of them', 'en', { perWord: 1 })!.added.includes('kleinste'), 'no idiom: the word');
  });

  it('translation: a German exact form is looked up as written when the question writes nouns with capitals', () => {
    const t = (q: string) => translationList(q, 'de', { perWord: 1 })!.added;
    assert.deepEqual(t('Teste die lokale Korrektur'), ['local'], 'the adjective');
    assert.deepEqual(t('Wo sind die Lokale?'), ['bars'], 'the noun\'s plural');
    // Typed in lower case: no capitals to go by; every exact form counts, as before case was kept (here the noun's).
    assert.deepEqual(t('teste die lokale korrektur'), ['bars']);
    assert.deepEqual(t('Lokale Korrektur testen'), ['bars'], 'a capital at the start of the sentence: the noun first');
  });

  it('translation: with a frequency in the target documents, the translations the documents use come first', () => {
    // The dictionary's order for "vacation": ferien, urlaub, …; documents that say "Beurlaubung" and never "Ferien".
    const counts = new Map([['beurlaubung', 12], ['urlaub', 3]]);
    const ranked = translationList('vacation', 'en', { perWord: 1, frequency: (t) => counts.get(t) ?? 0 })!;
    assert.deepEqual(ranked.added, ['beurlaubung']);
    assert.deepEqual(translationList('vacation', 'en', { perWord: 1 })!.added, ['ferien'], 'without frequencies: the dictionary order');
    assert.deepEqual(rankTranslations(['a', 'b', 'c'], (t) => (t === 'c' ? 1 : 0)), ['c', 'a', 'b'], 'stable among equals');
  });
});

describe('lexicon: the shipped data', () => {
  it('is found from the sources (tsx) and from dist/, and answers lookups', () => {
    setLexiconDir(undefined);
    const dir = lexiconDir();
    assert.ok(dir && fs.existsSync(path.join(dir, LEXICON_FILES['bridge-de-en'])), `found: ${dir}`);
    assert.equal(path.resolve(dir), path.resolve(__dirname, '../../data/lexicon'));
    assert.ok(loadLexicon('bridge-de-en')?.get('en-de', termKey('minimum wage', 'en'))?.includes('mindestlohn'));
    assert.ok(loadLexicon('thesaurus-de')?.get('de', termKey('Erholungsurlaub', 'de'))?.length);
    assert.ok(loadLexicon('thesaurus-en')?.get('en', termKey('vacation', 'en'))?.length);
    for (const f of Object.values(LEXICON_FILES)) {
      assert.ok(fs.existsSync(path.join(dir, f.replace('.tsv.gz', '.COPYRIGHT.txt'))), `licence beside ${f}`);
    }
    const ignore = fs.readFileSync(path.join(__dirname, '../../.vscodeignore'), 'utf8');
    assert.match(ignore, /^!data\/lexicon\/\*\.tsv\.gz$/m, 'shipped in the VSIX');
  });
});

describe('bridge weight', () => {
  it('the higher weight only when the translated passages cover more of the question', () => {
    const s = { bridgeWeight: 0, bridgeBoostWeight: 1, bridgeMargin: 0 };
    assert.equal(bridgeWeight(0.8, 0.4, s), 1);
    assert.equal(bridgeWeight(0.4, 0.4, s), 0);
    assert.equal(bridgeWeight(0, 0, s), 0);
    assert.equal(bridgeWeight(0.45, 0.4, { ...s, bridgeMargin: 0.25 }), 0);
  });
  it('coverage: stems found in the folded passage text, also inside compounds', () => {
    const h = { passage: { text: 'Der gesetzliche Mindestlohn je Zeitstunde.', headingPath: ['Vergütung'] }, score: 1 } as unknown as SearchHit;
    assert.equal(coverage([h], [new Set(['mindestlohn']), new Set(['stund']), new Set(['vergut']), new Set(['urlaub'])]), 0.75);
  });
});

describe('PRF: feedback terms', () => {
  const hit = (id: string, text: string, score: number, lang: 'de' | 'en' = 'en'): SearchHit =>
    ({ passage: { id, text, lang, headingPath: [] } as unknown as SearchHit['passage'], score });
  it('terms shared by the top passages, without the question words', () => {
    const hits = [
      hit('a', 'The registry token is stored in the credentials file of the registry.', 3),
      hit('b', 'Publishing needs a registry token; cargo login saves the token.', 2),
      hit('c', 'Unrelated text about profiles and optimisation levels.', 1),
      hit('d', 'Another text about workspaces.', 0.5),
    ];
    const fb = feedbackTerms('How do I publish?', 'en', hits, { docs: 2, terms: 3 })!;
    assert.equal(fb.lang, 'en');
    assert.ok(fb.terms.includes('token') && fb.terms.includes('registry'), fb.terms.join());
    assert.ok(!fb.terms.includes('publish'));
  });
});

describe('retrieval with synonyms and translations (generated corpus)', function () {
  this.timeout(180_000);
  let folder: string;
  let lexDir: string;
  let engine: Engine;

  before(async () => {
    lexDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lexicon-'));
    writeFixtureLexicon(lexDir);
    setLexiconDir(lexDir);
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'search-lex-'));
    const docs: Record<string, string> = {
      'urlaub.md': '# Erholung\n\nDer Erholungsurlaub beträgt jährlich mindestens vierundzwanzig Werktage. Er wird auf Antrag gewährt und ist im laufenden Kalenderjahr zu nehmen.\n',
      'lohn.md': '# Vergütung\n\nDer gesetzliche Mindestlohn wird je Zeitstunde gezahlt. Die Höhe wird durch eine Kommission regelmäßig angepasst und durch Verordnung festgelegt.\n',
      'arbeit.md': '# Arbeitszeit\n\nDie werktägliche Arbeitszeit der Beschäftigten darf acht Stunden nicht überschreiten. Nach dem Ende der Arbeit ist eine Ruhezeit einzuhalten.\n',
      'cargo.md': '# Publishing\n\nBefore publishing a crate, run cargo package to check it. The registry rejects a version that was already uploaded before.\n',
      'profiles.md': '# Profiles\n\nThe release profile enables optimisations. The dev profile is used for ordinary builds and keeps debug information for the debugger.\n',
    };
    for (const [f, text] of Object.entries(docs)) fs.writeFileSync(path.join(folder, f), text);
    engine = await openEngine({ folder });
    const res = await indexFolder(engine);
    assert.equal(res.errors.length, 0, JSON.stringify(res.errors));
  });
  after(async () => {
    setLexiconDir(undefined);
    await engine?.close();
    fs.rmSync(folder, { recursive: true, force: true });
    fs.rmSync(lexDir, { recursive: true, force: true });
  });

  const paths = (r: { hits: SearchHit[] }) => r.hits.map((h) => h.passage.path);

  it('a synonym finds the passage the plain question cannot; the trace lists the added synonyms', async () => {
    const q = 'Wie lange dauern die Ferien?';
    const plain = await createRetriever(engine, { config: 'bm25', detect: detectLanguage }).retrieve(q, { k: 5, context: false });
    assert.ok(!paths(plain).includes('urlaub.md'), `plain: ${paths(plain).join()}`);
    const syn = await createRetriever(engine, { config: 'bm25', overrides: { synonyms: true }, detect: detectLanguage }).retrieve(q, { k: 5, context: false });
    assert.equal(paths(syn)[0], 'urlaub.md', paths(syn).join());
    const span = syn.trace.find((s) => s.name === 'term-lists')!;
    assert.ok(span.notes?.some((n) => /^synonyms \(de\): .*erholungsurlaub/.test(n)), JSON.stringify(span));
    assert.equal(span.counts?.synonyms, 2);
  });

  it('a translation finds the German passage for an English question, weighted up by coverage; the trace lists it', async () => {
    const q = 'What is the minimum wage?';
    const plain = await createRetriever(engine, { config: 'bm25', detect: detectLanguage }).retrieve(q, { k: 5, context: false });
    assert.ok(!paths(plain).includes('lohn.md'), `plain: ${paths(plain).join()}`);
    const br = await createRetriever(engine, { config: 'default', detect: detectLanguage }).retrieve(q, { k: 5, context: false });
    assert.equal(paths(br)[0], 'lohn.md', paths(br).join());
    const span = br.trace.find((s) => s.name === 'term-lists')!;
    assert.ok(span.notes?.some((n) => /^translation \(de\): mindestlohn/.test(n)), JSON.stringify(span));
    assert.ok(span.notes?.some((n) => /translation=1\.33\d* \(/.test(n)), `boosted: its passages hold the question words (${span.notes})`);
    // The question is about documents in the other language: its own lexical vector gets the lowest weight.
    const fusion = br.trace.find((s) => s.name === 'fusion')!;
    assert.ok(fusion.notes?.some((n) => /^vector weight 0\.10 .*question in the other language/.test(n)), JSON.stringify(fusion.notes));
  });

  it('a question without keyword hits of its own: its vector list keeps the low weight in the fusion, below the translated hits', async () => {
    // "What is the minimum wage?" finds nothing in the English column; its lexical vector ranks every passage. That list
    // alone must count with its weight (0.1), not like a keyword ranking: else its first hits, found by letters the
    // question shares with them, outrank the translated list's second. rrfK 1 makes the ranks' scores far apart.
    const q = 'What is the minimum wage?';
    const r = await createRetriever(engine, { config: 'default', overrides: { rrfK: 1 }, detect: detectLanguage }).retrieve(q, { k: 5, context: false });
    const fusion = r.trace.find((s) => s.name === 'fusion')!;
    assert.ok(fusion.notes?.some((n) => /^vector weight 0\.10 .*keyword coverage 0\.00/.test(n)), JSON.stringify(fusion.notes));
    assert.equal(paths(r)[0], 'lohn.md', paths(r).join());
    // The vector list's best hit that the translation does not find scores at most its weight / (rrfK + 1).
    const others = r.hits.filter((h) => h.passage.path !== 'lohn.md');
    assert.ok(others.length > 0);
    for (const h of others) assert.ok(h.score <= 0.1 / 2 + 1e-9, `${h.passage.path} ${h.score}`);
  });

  it('a phrase translation covers its word only whole: the head word alone ("wage") does not count', () => {
    // Else a generic English word shared by the translations ("period" of notice period, trial period) makes any
    // passage holding it look like an answer to the whole German question, and the translated list is weighted up.
    const tr = translationList('Mindestlohn', 'de', { perWord: 3 })!;
    assert.ok(tr.added.includes('minimum wage'), tr.added.join());
    const hit = (text: string) => ({ passage: { text, headingPath: [] }, score: 1 }) as unknown as SearchHit;
    assert.equal(coverage([hit('The wage is paid at the end of each month.')], tr.groups), 0);
    assert.equal(coverage([hit('The minimum wage is paid for each hour worked.')], tr.groups), 1);
  });

  it('default+prf runs the feedback list and notes it without document words', async () => {
    const r = await createRetriever(engine, { config: 'default+prf', detect: detectLanguage }).retrieve('Arbeitszeit Stunden', { k: 5, context: false });
    const span = r.trace.find((s) => s.name === 'prf');
    assert.ok(span, JSON.stringify(r.trace));
    assert.ok(r.hits.length > 0);
  });
});

describe('retrieval in a bilingual index: both language versions of the answer, the own-language one not displaced', function () {
  this.timeout(180_000);
  let folder: string;
  let lexDir: string;
  let engine: Engine;

  before(async () => {
    lexDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lexicon-'));
    writeFixtureLexicon(lexDir);
    setLexiconDir(lexDir);
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'search-bilingual-'));
    // Every document in German and in English, as a team that keeps both versions.
    const docs: Record<string, string> = {
      'de/lohn.md': '# Vergütung\n\nDer gesetzliche Mindestlohn wird je Zeitstunde gezahlt. Die Höhe wird durch eine Kommission regelmäßig angepasst und durch Verordnung festgelegt.\n',
      'en/wage.md': '# Pay\n\nThe statutory minimum wage is paid for each hour worked. Its level is adjusted regularly by a commission and set by ordinance.\n',
      'de/urlaub.md': '# Erholung\n\nDer Erholungsurlaub beträgt jährlich mindestens vierundzwanzig Werktage. Er wird auf Antrag gewährt und ist im laufenden Kalenderjahr zu nehmen.\n',
      'en/leave.md': '# Leave\n\nAnnual leave is at least twenty-four working days a year. It is granted on request and must be taken in the current calendar year.\n',
      'de/arbeit.md': '# Arbeitszeit\n\nDie werktägliche Arbeitszeit der Beschäftigten darf acht Stunden nicht überschreiten. Nach dem Ende der Arbeit ist eine Ruhezeit einzuhalten.\n',
      'en/hours.md': '# Working time\n\nThe daily working time of employees must not exceed eight hours. After the end of work a rest period must be observed.\n',
      // Only in German: the exact match of a question whose word "Urlaub" translates to "leave" (en/leave.md).
      'de/werkskraft.md': '# Werk\n\nDer Urlaub der Werkskraft wird durch den Werkmeister eingeteilt.\n',
    };
    for (const [f, text] of Object.entries(docs)) {
      fs.mkdirSync(path.dirname(path.join(folder, f)), { recursive: true });
      fs.writeFileSync(path.join(folder, f), text);
    }
    engine = await openEngine({ folder });
    const res = await indexFolder(engine);
    assert.equal(res.errors.length, 0, JSON.stringify(res.errors));
  });
  after(async () => {
    setLexiconDir(undefined);
    await engine?.close();
    fs.rmSync(folder, { recursive: true, force: true });
    fs.rmSync(lexDir, { recursive: true, force: true });
  });

  it('the translated list joins the other language column: the English answer and its German version are the first two', async () => {
    const q = 'What is the minimum wage?';
    const paths = (hits: SearchHit[]) => [...new Set(hits.map((h) => h.passage.path))];
    const r = await createRetriever(engine, { config: 'default', detect: detectLanguage }).retrieve(q, { k: 6, context: false });
    assert.deepEqual(paths(r.hits).slice(0, 2).sort(), ['de/lohn.md', 'en/wage.md'], paths(r.hits).join());
    const span = r.trace.find((s) => s.name === 'term-lists')!;
    assert.ok(span.notes?.some((n) => /translation=1 in the other column \(/.test(n)), JSON.stringify(span.notes));
    // Before: the translated list left out (its coverage is not above the English answer's), the German column 20 ranks
    // behind, so the German version was not next to the English one.
    const before = await createRetriever(engine, { config: 'default', overrides: { bridgeColumnWeight: 0, otherLanguageWeight: 0.75 }, detect: detectLanguage }).retrieve(q, {
      k: 6,
      context: false,
    });
    assert.notDeepEqual(paths(before.hits).slice(0, 2).sort(), ['de/lohn.md', 'en/wage.md'], paths(before.hits).join());
  });

  it('at equal rank in the two columns the question\'s own language goes first: an exact match is not displaced by a translation', async () => {
    const q = 'Wie wird der Urlaub der Werkskraft eingeteilt?';
    const first = async (overrides?: Record<string, number>) =>
      (await createRetriever(engine, { config: 'default', overrides, detect: detectLanguage }).retrieve(q, { k: 3, context: false })).hits[0].passage.path;
    assert.equal(await first(), 'de/werkskraft.md');
    // The English file found through the translation "leave" is next: both languages' evidence near the top.
    const r = await createRetriever(engine, { config: 'default', detect: detectLanguage }).retrieve(q, { k: 3, context: false });
    assert.equal(r.hits[1].passage.path, 'en/leave.md');
    // Before: the two columns at par, the English file tied with the German exact match in the keyword ranking and won.
    assert.notEqual(await first({ otherLanguageWeight: 1 }), 'de/werkskraft.md');
  });
});
