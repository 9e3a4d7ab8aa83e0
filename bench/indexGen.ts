// Generates a synthetic workspace of N Markdown/text files from the real texts in shared/eval/workspace (deterministic).
import * as fs from 'node:fs';
import * as path from 'node:path';

function* walk(dir: string): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (e.name.endsWith('.md')) yield p;
  }
}

/** Mulberry32: small seeded PRNG so every run builds the same files. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function generateWorkspace(source: string, target: string, count: number): { files: number; bytes: number } {
  const marker = path.join(target, '.generated');
  if (fs.existsSync(marker) && fs.readFileSync(marker, 'utf8') === String(count)) {
    return JSON.parse(fs.readFileSync(path.join(target, '.stats'), 'utf8')) as { files: number; bytes: number };
  }
  fs.rmSync(target, { recursive: true, force: true });
  const paragraphs: string[] = [];
  for (const f of walk(source)) {
    const text = fs.readFileSync(f, 'utf8').replace(/^---[\s\S]*?\n---\n/, '');
    for (const p of text.split(/\n\s*\n/)) {
      const t = p.trim();
      if (t.length > 80 && !t.startsWith('#') && !t.startsWith('```')) paragraphs.push(t);
    }
  }
  const rand = rng(42);
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const dir = path.join(target, `d${String(Math.floor(i / 100)).padStart(3, '0')}`);
    fs.mkdirSync(dir, { recursive: true });
    const n = 3 + Math.floor(rand() * 6);
    const parts: string[] = [];
    const asMd = i % 4 !== 3;
    if (asMd) parts.push(`# Document ${i}`);
    for (let k = 0; k < n; k++) {
      if (asMd && k % 3 === 2) parts.push(`## Part ${k}`);
      parts.push(paragraphs[Math.floor(rand() * paragraphs.length)]);
    }
    const body = `${parts.join('\n\n')}\n\nGenerated file ${i}.\n`;
    bytes += Buffer.byteLength(body);
    fs.writeFileSync(path.join(dir, `file-${i}.${asMd ? 'md' : 'txt'}`), body);
  }
  const stats = { files: count, bytes };
  fs.writeFileSync(path.join(target, '.stats'), JSON.stringify(stats));
  fs.writeFileSync(marker, String(count));
  return stats;
}
