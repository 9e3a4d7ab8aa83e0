// text/scan.ts: the words a WordClass scan finds are exactly the words of the Unicode-property regex it stands for.
import { strict as assert } from 'node:assert';
import { SpanSet, WordClass, fnv } from '../../src/rag/text/scan';
import { guessLanguage } from '../../src/rag/text/language';

function scan(cls: WordClass, text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; ) {
    if (cls.at(text, i) === 0) i++;
    else {
      const end = cls.wordEnd(text, i);
      out.push(text.slice(i, end));
      i = end;
    }
  }
  return out;
}

describe('text/scan: words without regular expressions', () => {
  const texts = [
    'Die Kündigungsfrist beträgt 4 Wochen; ΣΊΣΥΦΟΣ, Русский, 中文, العربية ٣٤٥.',
    'astral 𝐀𝐁𝐂 and 𝟘𝟙 digits, emoji 😀, lone \ud83d and \udc00 surrogates, combining e\u0301 marks, ǅ ﬁ',
    '', '   ', 'x', "it's O'Brien's", '\ud83d', 'end with high \ud83d', 'a\u00adb soft hyphen, no-break\u00a0space',
  ];
  // Plus every BMP code unit once, in runs of 64.
  for (let c = 0; c < 65536; c += 64) texts.push(String.fromCharCode(...Array.from({ length: 64 }, (_, k) => c + k)));

  it('finds the words of /[\\p{L}\\p{N}]+/gu and /\\p{L}+/gu, surrogate pairs included', () => {
    const letterOrDigit = new WordClass(/^[\p{L}\p{N}]$/u);
    const letter = new WordClass(/^\p{L}$/u);
    for (const t of texts) {
      assert.deepEqual(scan(letterOrDigit, t), t.match(/[\p{L}\p{N}]+/gu) ?? [], JSON.stringify(t.slice(0, 40)));
      assert.deepEqual(scan(letter, t), t.match(/\p{L}+/gu) ?? [], JSON.stringify(t.slice(0, 40)));
    }
  });

  it('SpanSet finds a word by its span and hash only', () => {
    const set = new SpanSet(['der', 'die', 'über']);
    const text = 'über die Brücke, oder der Steg';
    const has = (w: string) => {
      const from = text.indexOf(w);
      return set.has(text, from, from + w.length, fnv(text, from, from + w.length));
    };
    assert.ok(has('über') && has('die') && has('der'));
    assert.ok(!has('oder') && !has('Brücke') && !has('de'));
  });

  it('guessLanguage counts function words found by the scan', () => {
    assert.deepEqual(guessLanguage('Der Arbeitgeber muss dem Arbeitnehmer den Urlaub gewähren, wenn er ihn beantragt.'), { lang: 'de', confident: true });
    assert.deepEqual(guessLanguage("Cargo builds your package and all of its dependencies, and it's fast."), { lang: 'en', confident: true });
    assert.equal(guessLanguage('Русский текст про договор и отпуск, который длиннее двадцати букв').lang, 'other');
  });
});
