// Throughput of the builtin embedder on real passages (~1000 characters each, cut from the shared eval workspace).
// Run: node --import tsx bench/embedBuiltin.ts [rounds]
// Prints passages/s per round and the median.
import { workspaceText } from './workspaceText';
import { BuiltinEmbedder } from '../src/rag/embed/builtin';

function passages(): string[] {
  const text = workspaceText();
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
