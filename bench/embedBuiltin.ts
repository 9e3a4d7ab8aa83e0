// Throughput of the builtin embedder on real passages (~1000 characters each, cut from the shared eval workspace).
// Run: node --import tsx bench/embedBuiltin.ts [rounds]
// Prints passages/s per round and the median.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BuiltinEmbedder } from '../src/rag/embed/builtin';

const SHARED = process.env.DOCS_RAG_SHARED ?? path.resolve(__dirname, '../../shared');
const ROOT = path.join(SHARED, 'eval/workspace');

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : e.name.endsWith('.md') ? [p] : [];
  });
}

function passages(): string[] {
  const text = files(ROOT)
    .sort()
    .map((f) => fs.readFileSync(f, 'utf8'))
    .join('\n')
    .replace(/\s+/g, ' ');
  const out: string[] = [];
  for (let i = 0; i + 1000 <= text.length && out.length < 4000; i += 1000) out.push(text.slice(i, i + 1000));
  return out;
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 7);
  const texts = passages();
  const embedder = new BuiltinEmbedder();
  await embedder.embed(texts.slice(0, 200)); // warm-up (JIT)
  const rates: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    await embedder.embed(texts);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    rates.push((texts.length / ms) * 1000);
    console.log(`round ${r + 1}: ${texts.length} passages of 1000 chars in ${ms.toFixed(0)} ms = ${rates[r].toFixed(0)} passages/s`);
  }
  rates.sort((a, b) => a - b);
  console.log(`median: ${rates[Math.floor(rates.length / 2)].toFixed(0)} passages/s (dimension ${embedder.dimension}, model ${embedder.model})`);
}

void main();
