// Throughput of the local embedder (worker thread, transformers.js, onnxruntime) on passages cut from the shared eval
// workspace. A model of a real model's shape with random weights runs at that model's speed: generate one with
//   node --import tsx scripts/models/tinyEmbedding.ts /tmp/e5-shape --dim 384 --layers 12 --heads 12 --intermediate 1536
// The generated tokenizer reads single characters, so each passage is turned into as many one-letter words as the
// real tokenizer would make tokens of it (--chars-per-token, default 4: XLM-R on German/English prose, an estimate).
// Run: node --import tsx bench/embedLocal.ts <model dir> [--rounds 3] [--passages 128] [--batch 16] [--chars-per-token 4]
import { workspaceText } from './workspaceText';
import { LocalEmbedder } from '../src/rag/embed/local';

function passages(n: number, charsPerToken: number): string[] {
  const text = workspaceText();
  const out: string[] = [];
  for (let i = 0; i + 1000 <= text.length && out.length < n; i += 1000) {
    const letters = text.slice(i, i + 1000).toLowerCase().replace(/[^a-zäöüß]/g, '');
    out.push([...letters.slice(0, Math.min(510, Math.round(1000 / charsPerToken)))].join(' '));
  }
  return out;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (name: string, d: number) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : d;
  };
  const model = args[0];
  if (!model) throw new Error('usage: bench/embedLocal.ts <model dir> [--rounds N] [--passages N] [--batch N] [--chars-per-token N]');
  const rounds = opt('--rounds', 3);
  const texts = passages(opt('--passages', 128), opt('--chars-per-token', 4));
  const embedder = new LocalEmbedder({ model, batchSize: opt('--batch', 16), timeoutMs: 600_000 });
  const t0 = Date.now();
  await embedder.init();
  console.log(`model ${model}: loaded in ${Date.now() - t0} ms, dimension ${embedder.dimension}; ${texts.length} passages of ${texts[0].split(' ').length} tokens (+2 special)`);
  await embedder.embed(texts.slice(0, 8)); // warm-up
  const rates: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const s = process.hrtime.bigint();
    await embedder.embed(texts);
    const ms = Number(process.hrtime.bigint() - s) / 1e6;
    rates.push((texts.length / ms) * 1000);
    console.log(`round ${r + 1}: ${texts.length} passages in ${ms.toFixed(0)} ms = ${rates[r].toFixed(1)} passages/s`);
  }
  rates.sort((a, b) => a - b);
  console.log(`median: ${rates[Math.floor(rates.length / 2)].toFixed(1)} passages/s`);
  await embedder.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
