// Rebuilds data/lexicon/*.tsv.gz from the Debian packages (see data/lexicon/README.md):
//   apt-get install openthesaurus-de-text wordnet-base trans-de-en
//   node --import tsx scripts/lexicon/build.ts [--root /] [--out data/lexicon]
// --only NAME rebuilds one file (thesaurus-de, thesaurus-en, bridge-de-en).
// --root points at a folder holding usr/share/… (e.g. packages unpacked with `dpkg-deb -x pkg.deb DIR`).
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { compileDing, compileOpenThesaurus, compileWordNet, serialize, type Section } from './compile';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const root = arg('--root', '/');
const out = arg('--out', path.join(__dirname, '..', '..', 'data', 'lexicon'));
const share = (...p: string[]) => path.join(root, 'usr', 'share', ...p);
const read = (file: string) => {
  if (!existsSync(file)) throw new Error(`${file} is missing: install the Debian package (see data/lexicon/README.md) or pass --root.`);
  return readFileSync(file, 'utf8');
};

const only = arg('--only', '');

function write(name: string, sections: () => Record<string, Section>, header: string[], licence: string): void {
  if (only && only !== name) return;
  const compiled = sections();
  const text = serialize(compiled, header);
  const gz = gzipSync(Buffer.from(text, 'utf8'), { level: 9 });
  writeFileSync(path.join(out, `${name}.tsv.gz`), gz);
  copyFileSync(licence, path.join(out, `${name}.COPYRIGHT.txt`));
  const keys = Object.values(compiled).reduce((n, s) => n + s.size, 0);
  console.log(`${name}.tsv.gz: ${keys} keys, ${(gz.length / 1024).toFixed(0)} KiB (${(text.length / 1024).toFixed(0)} KiB unpacked)`);
}

mkdirSync(out, { recursive: true });

write(
  'thesaurus-de',
  () => ({ de: compileOpenThesaurus(read(share('openthesaurus-de', 'openthesaurus.txt'))) }),
  ['docs-rag lexicon v1: German synonyms', 'source: OpenThesaurus (Debian openthesaurus-de-text), LGPL-2.1+, https://www.openthesaurus.de'],
  share('doc', 'openthesaurus-de-text', 'copyright'),
);

const wn = (f: string) => read(share('wordnet', f));
write(
  'thesaurus-en',
  () => ({
    en: compileWordNet({
      index: { noun: wn('index.noun'), verb: wn('index.verb'), adj: wn('index.adj'), adv: wn('index.adv') },
      data: { noun: wn('data.noun'), verb: wn('data.verb'), adj: wn('data.adj'), adv: wn('data.adv') },
    }),
  }),
  ['docs-rag lexicon v1: English synonyms', 'source: WordNet 3.0 (Debian wordnet-base), WordNet 3.0 licence (Princeton University)'],
  share('doc', 'wordnet-base', 'copyright'),
);

write(
  'bridge-de-en',
  () => compileDing(read(share('trans', 'de-en'))),
  ['docs-rag lexicon v1: German-English dictionary', 'source: Ding (Debian trans-de-en), GPL-2+, Frank Richter, TU Chemnitz'],
  share('doc', 'trans-de-en', 'copyright'),
);
