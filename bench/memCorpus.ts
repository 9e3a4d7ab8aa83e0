// The corpora of the indexing-memory measurements (issue 15), written once and reused:
//   scifact: the SciFact abstracts (../shared/eval/scifact/corpus.jsonl) two per Markdown file, plus a copy of the
//            evaluation workspace (~2,600 Markdown files, ~17k passages);
//   100k:    SciFact abstracts one per file, each file carrying the abstract under several section headings, repeated
//            with different section order until about 100,000 passages are reached.
//   realmix: the "real mix of Debian package docs and npm package READMEs/HTML", rebuilt from THIS machine:
//            every HTML/text/Markdown/README file of /usr/share/doc, the README/HTML files of the repository's
//            node_modules, then gzipped READMEs/NEWS/text of /usr/share/doc unpacked, in path order, until 56 MB.
//            Machine-specific by nature (other machines have other packages): the command prints what it took.
// Usage: node --import tsx bench/memCorpus.ts scifact|100k|realmix <dir>
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';

const SHARED = path.resolve(__dirname, '../../shared');

function abstracts(): { id: string; title: string; text: string }[] {
  return fs
    .readFileSync(path.join(SHARED, 'eval/scifact/corpus.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { _id: string; title: string; text: string })
    .map((d) => ({ id: d._id, title: d.title, text: d.text }));
}

function copyDir(from: string, to: string): void {
  fs.cpSync(from, to, { recursive: true });
}

function scifact(dir: string): void {
  const docs = abstracts();
  fs.mkdirSync(path.join(dir, 'scifact'), { recursive: true });
  for (let i = 0; i < docs.length; i += 2) {
    const pair = docs.slice(i, i + 2);
    const md = pair.map((d) => `# ${d.title}\n\n${d.text}\n`).join('\n');
    fs.writeFileSync(path.join(dir, 'scifact', `abstracts-${String(i / 2).padStart(4, '0')}.md`), md);
  }
  copyDir(path.join(SHARED, 'eval/workspace'), path.join(dir, 'workspace'));
}

function hundredK(dir: string): void {
  const docs = abstracts();
  // Sentences of the abstracts, dealt into long documents with many sections (each section a few passages).
  const sentences = docs.flatMap((d) => d.text.split(/(?<=[.!?])\s+/).filter((s) => s.length > 20));
  let s = 0;
  for (let f = 0; f < 6000; f++) {
    const sub = path.join(dir, `part-${String(Math.floor(f / 500)).padStart(2, '0')}`);
    fs.mkdirSync(sub, { recursive: true });
    const parts: string[] = [`# ${docs[f % docs.length].title}`];
    for (let sec = 0; sec < 6; sec++) {
      parts.push(`## Section ${sec + 1}: ${docs[(f * 7 + sec) % docs.length].title}`);
      for (let p = 0; p < 3; p++) {
        const para: string[] = [];
        for (let k = 0; k < 4; k++) para.push(sentences[s++ % sentences.length]);
        parts.push(para.join(' '));
      }
    }
    fs.writeFileSync(path.join(sub, `doc-${String(f).padStart(5, '0')}.md`), parts.join('\n\n') + '\n');
  }
}

function filesUnder(root: string, keep: (rel: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const abs = path.join(d, e.name);
      if (e.isDirectory()) walk(abs);
      else if (e.isFile() && keep(path.relative(root, abs))) out.push(abs);
    }
  };
  walk(root);
  return out;
}

const LIMIT_BYTES = 56 * 1024 * 1024;

function realMix(dir: string): void {
  const docs = '/usr/share/doc';
  const modules = path.resolve(__dirname, '../node_modules');
  const plain = /\.(html?|txt|md|markdown)$|(^|\/)readme[^/]*$/i;
  let bytes = 0;
  let files = 0;
  const put = (to: string, data: Buffer) => {
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.writeFileSync(to, data);
    bytes += data.length;
    files++;
  };
  // A README without a known extension is indexed as text.
  const asText = (rel: string) => (/\.(html?|txt|md|markdown)$/i.test(rel) ? rel : `${rel}.txt`);
  for (const f of filesUnder(docs, (rel) => plain.test(rel) && !rel.endsWith('.gz'))) put(path.join(dir, 'debian-doc', asText(path.relative(docs, f))), fs.readFileSync(f));
  for (const f of filesUnder(modules, (rel) => /(^|\/)readme\.md$|\.html?$/i.test(rel))) put(path.join(dir, 'npm', path.relative(modules, f)), fs.readFileSync(f));
  for (const f of filesUnder(docs, (rel) => /(^|\/)(readme|news)[^/]*\.gz$|\.(txt|md|html?)\.gz$/i.test(rel))) {
    if (bytes >= LIMIT_BYTES) break;
    const rel = path.relative(docs, f).replace(/\.gz$/, '');
    put(path.join(dir, 'debian-doc', asText(rel)), zlib.gunzipSync(fs.readFileSync(f)));
  }
  console.log(`realmix: ${files} files, ${(bytes / 1e6).toFixed(1)} MB`);
}

const [kind, dir] = process.argv.slice(2);
if (!kind || !dir) {
  console.error('usage: bench/memCorpus.ts scifact|100k|realmix <dir>');
  process.exit(2);
}
if (fs.existsSync(dir)) {
  console.log(`${dir} exists; reusing it`);
} else {
  if (kind === 'scifact') scifact(dir);
  else if (kind === '100k') hundredK(dir);
  else if (kind === 'realmix') realMix(dir);
  else throw new Error(`unknown corpus ${kind}`);
  console.log(`wrote ${kind} corpus to ${dir}`);
}
