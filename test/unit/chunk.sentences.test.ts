// Sentence splitting (German legal abbreviations, ordinals, English abbreviations) and language detection.
import { strict as assert } from 'node:assert';
import { detectLanguage, guessLanguage } from '../../src/rag/text/language';
import { splitSentences } from '../../src/rag/text/sentences';

const texts = (t: string, lang: 'de' | 'en') => splitSentences(t, lang).map((s) => s.text);

describe('splitSentences', () => {
  it('does not end German sentences at legal abbreviations', () => {
    const t =
      'Nach § 3 Abs. 2 Nr. 1 gilt dies z. B. auch bzw. ggf. für Art. 5 GG. Siehe S. 12 f. und vgl. Dr. Müller. ' +
      'Die Frist gilt i. V. m. § 7 usw. Das ist alles.';
    assert.deepEqual(texts(t, 'de'), [
      'Nach § 3 Abs. 2 Nr. 1 gilt dies z. B. auch bzw. ggf. für Art. 5 GG.',
      'Siehe S. 12 f. und vgl. Dr. Müller.',
      'Die Frist gilt i. V. m. § 7 usw. Das ist alles.',
    ]);
  });

  it('keeps German ordinals and dates inside the sentence but ends at "§ 12."', () => {
    const t =
      'Der Vertrag endet am 1. Januar 2020. Die Frist läuft bis zum 3. Werktag. Der 2. Abschnitt regelt das. ' +
      'Für den Bereich der Heimarbeit gilt § 12. Als Arbeitnehmer gelten Personen. Geändert durch G v. 20.4.2013 I 868.';
    assert.deepEqual(texts(t, 'de'), [
      'Der Vertrag endet am 1. Januar 2020.',
      'Die Frist läuft bis zum 3. Werktag.',
      'Der 2. Abschnitt regelt das.',
      'Für den Bereich der Heimarbeit gilt § 12.',
      'Als Arbeitnehmer gelten Personen.',
      'Geändert durch G v. 20.4.2013 I 868.',
    ]);
  });

  it('handles English abbreviations, closing quotes/brackets, ! ? and dotted names', () => {
    const t = 'Use e.g. cargo build. See Dr. Smith et al. for details. It works (mostly.) "Quoted." Really? Yes! Visit crates.io. Done';
    assert.deepEqual(texts(t, 'en'), [
      'Use e.g. cargo build.',
      'See Dr. Smith et al. for details.',
      'It works (mostly.)',
      '"Quoted."',
      'Really?',
      'Yes!',
      'Visit crates.io.',
      'Done',
    ]);
  });

  it('ends sentences at blank lines, not at single line breaks, and reports exact offsets', () => {
    const t = 'Erste Zeile ohne Punkt\nläuft weiter.\n\na) Punkt eins;\n\n  b) Punkt zwei';
    const spans = splitSentences(t, 'de');
    assert.deepEqual(
      spans.map((s) => s.text),
      ['Erste Zeile ohne Punkt\nläuft weiter.', 'a) Punkt eins;', 'b) Punkt zwei'],
    );
    for (const s of spans) assert.equal(t.slice(s.start, s.end), s.text);
  });

  it('keeps list enumerators with their item ("1. Cargo spawns...", "2. Aliases")', () => {
    assert.deepEqual(texts('1. Cargo spawns the process. 2. The process answers.', 'en'), ['1. Cargo spawns the process.', '2. The process answers.']);
    assert.deepEqual(texts('The order is\n1. Built-in commands\n2. Aliases', 'en'), ['The order is\n1. Built-in commands\n2. Aliases']);
  });

  it('does not split when the next word starts in lower case', () => {
    assert.equal(texts('Die Regelung gilt ca. drei Monate bzw. bis Ende Sept. des Jahres.', 'de').length, 1);
  });
});

describe('detectLanguage', () => {
  it('recognises German and English passages and queries', () => {
    assert.equal(detectLanguage('Der Urlaub beträgt jährlich mindestens 24 Werktage.'), 'de');
    assert.equal(detectLanguage('Wie lange darf ich am Tag höchstens arbeiten?'), 'de');
    assert.equal(detectLanguage('In welchem Jahr starb Tesla?'), 'de');
    assert.equal(detectLanguage('Kündigungsfrist Probezeit'), 'de');
    assert.equal(detectLanguage('The version field is formatted according to the SemVer specification.'), 'en');
    assert.equal(detectLanguage('How do I override a dependency with a local path?'), 'en');
    assert.equal(detectLanguage('workspace inheritance'), 'en');
  });

  it('says other for other languages and scripts', () => {
    assert.equal(detectLanguage('Le chat est sur la table et il regarde par la fenêtre pendant que nous mangeons.'), 'other');
    assert.equal(detectLanguage('هذا نص عربي طويل بما فيه الكفاية لاختبار الكشف عن اللغة'), 'other');
    assert.equal(detectLanguage('これは日本語のテキストです'), 'other');
    assert.equal(detectLanguage(''), 'other');
  });

  it('is only confident with enough evidence', () => {
    assert.equal(guessLanguage('Klage').confident, false);
    assert.equal(guessLanguage('Der Arbeitgeber hat die Arbeitszeit der Arbeitnehmer aufzuzeichnen und die Nachweise aufzubewahren.').confident, true);
  });
});
