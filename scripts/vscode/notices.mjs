// node scripts/vscode/notices.mjs [--check]
// Writes the npm part of THIRD_PARTY_NOTICES.md: every npm package whose code ships in the VSIX — bundled into
// dist/*.js (out/bundled-packages.json, written by `node esbuild.mjs`) or packed under node_modules/ (the
// `!node_modules/<name>/package.json` lines of .vscodeignore) — with its version, declared licence and the licence and
// notice files it carries. Everything above the marker line is written by hand (the data files) and kept.
// --check: exit 1 when the file differs from what this script would write (npm run package runs it).
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const NOTICES = path.join(root, 'THIRD_PARTY_NOTICES.md');
export const MARKER = '<!-- npm packages: written by scripts/vscode/notices.mjs from here on; do not edit by hand -->';
const LICENCE_FILE = /^(licen[cs]e|copying|notice|copyright|[a-z]+_third_party_licenses)([.-].*)?$/i;
// Shown in full, as files of the VSIX, instead of inline (too large).
const BY_REFERENCE = /\.html$/i;
// Standard texts for packages that declare a licence but carry no licence file (SPDX templates).
const TEMPLATES = {
  MIT: (holder) => `Copyright (c) ${holder}

Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated
documentation files (the "Software"), to deal in the Software without restriction, including without limitation the
rights to use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of the Software, and to permit
persons to whom the Software is furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all copies or substantial portions of the
Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE
WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR
COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.`,
  ISC: (holder) => `Copyright (c) ${holder}

Permission to use, copy, modify, and/or distribute this software for any purpose with or without fee is hereby
granted, provided that the above copyright notice and this permission notice appear in all copies.

THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES WITH REGARD TO THIS SOFTWARE INCLUDING ALL
IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR ANY SPECIAL, DIRECT,
INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN
ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF OR IN CONNECTION WITH THE USE OR PERFORMANCE OF
THIS SOFTWARE.`,
};

function fail(msg) {
  console.error(`[notices] ERROR: ${msg}`);
  process.exit(1);
}

/** Package folders (relative to the repository, e.g. node_modules/a/node_modules/b) whose code is in the VSIX. */
export function shippedPackageDirs() {
  const bundledFile = path.join(root, 'out/bundled-packages.json');
  if (!existsSync(bundledFile)) fail('out/bundled-packages.json is missing: run `node esbuild.mjs` first');
  const dirs = new Set(Object.values(JSON.parse(readFileSync(bundledFile, 'utf8'))).flat());
  for (const line of readFileSync(path.join(root, '.vscodeignore'), 'utf8').split('\n')) {
    const m = line.match(/^!(node_modules\/(?:@[^/]+\/)?[^/]+)\/package\.json$/);
    if (m) dirs.add(m[1]);
  }
  return [...dirs];
}

// Where a package's author field names a person but its project states another copyright holder.
const HOLDER = { 'onnxruntime-node': 'Microsoft Corporation', 'onnxruntime-common': 'Microsoft Corporation' };
const PLATFORM_SUFFIX = /-(linux|darwin|win32|android|freebsd)-[a-z0-9]+(-[a-z]+)?$/;

function section(dir, shippedNames) {
  const pj = JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8'));
  const licence = typeof pj.license === 'string' ? pj.license : pj.license?.type ?? (pj.licenses ?? []).map((l) => l.type).join(' OR ');
  const files = readdirSync(path.join(root, dir)).filter((f) => LICENCE_FILE.test(f)).sort();
  const author = typeof pj.author === 'string' ? pj.author : pj.author?.name;
  const lines = [`### ${pj.name} ${pj.version}`, '', `Licence: ${licence || 'not declared'}.${author ? ` Author: ${author}.` : ''}`];
  const repo = typeof pj.repository === 'string' ? pj.repository : pj.repository?.url;
  if (repo) lines.push(`Source: ${repo.replace(/^git\+/, '')}`);
  const main = pj.name.replace(PLATFORM_SUFFIX, '');
  if (main !== pj.name && shippedNames.has(main) && !files.length) {
    lines.push('', `The native build of ${main} for one platform; the licence text listed for ${main} applies.`);
  } else if (!files.some((f) => !/third_party/i.test(f))) {
    const holder = HOLDER[pj.name] ?? author ?? `the ${pj.name} authors`;
    if (TEMPLATES[licence]) lines.push('', `The package carries no licence file; the standard ${licence} text with its copyright holder:`, '', '~~~~text', TEMPLATES[licence](holder), '~~~~');
    else if (licence === 'Apache-2.0') lines.push('', 'The package carries no licence file; the Apache License 2.0 text is in `LICENSE`.');
    else lines.push('', 'The package carries no licence file; its package.json declares the licence above.');
  }
  for (const f of files) {
    if (BY_REFERENCE.test(f)) {
      lines.push('', `${f}: shipped in the VSIX as \`${dir}/${f}\`.`);
      continue;
    }
    const text = readFileSync(path.join(root, dir, f), 'utf8').replace(/\r\n?/g, '\n').trimEnd();
    lines.push('', `${f}:`, '', '~~~~text', text, '~~~~');
  }
  return { key: `${pj.name}@${pj.version}`, name: pj.name, text: lines.join('\n') };
}

export function render(current) {
  const i = current.indexOf(MARKER);
  if (i < 0) fail(`THIRD_PARTY_NOTICES.md has no marker line ${MARKER}`);
  const seen = new Map();
  const dirs = shippedPackageDirs();
  const names = new Set(dirs.map((d) => JSON.parse(readFileSync(path.join(root, d, 'package.json'), 'utf8')).name));
  for (const dir of dirs) {
    const s = section(dir, names);
    if (!seen.has(s.key)) seen.set(s.key, s);
  }
  const sections = [...seen.values()].sort((a, b) => a.key.localeCompare(b.key));
  return `${current.slice(0, i + MARKER.length)}\n\n${sections.length} packages (name and version).\n\n${sections.map((s) => s.text).join('\n\n')}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const current = readFileSync(NOTICES, 'utf8');
  const next = render(current);
  if (process.argv.includes('--check')) {
    if (next !== current) fail('THIRD_PARTY_NOTICES.md is out of date with the shipped npm packages: run `node scripts/vscode/notices.mjs`');
    console.log('[notices] THIRD_PARTY_NOTICES.md is up to date');
  } else {
    writeFileSync(NOTICES, next);
    console.log(`[notices] wrote THIRD_PARTY_NOTICES.md (${(next.length / 1e3).toFixed(0)} kB)`);
  }
}
