// Worker thread of the `local` embedder: loads a transformers.js model folder (ONNX on onnxruntime-node, CPU) and
// answers embedding requests one at a time, so model loading and inference never run on the caller's thread (the
// extension host's main thread). Protocol: see local.ts (LocalWorkerRequest / LocalWorkerReply).
import * as path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { passesByLength } from './lengthPasses';

export interface LocalWorkerData {
  modelDir: string;
  dtype: 'q8' | 'fp32';
  pooling: 'mean' | 'cls';
  /** onnxruntime intra-op threads; undefined = onnxruntime's default. */
  threads?: number;
}

type Extractor = ((texts: string[], o: { pooling: string; normalize: boolean }) => Promise<{ dims: number[]; data: Float32Array }>) & {
  tokenizer: { encode(text: string): number[]; model_max_length?: number };
};

const data = workerData as LocalWorkerData;

async function load(): Promise<Extractor> {
  // Bundled into dist/localEmbedWorker.js (esbuild.mjs); onnxruntime-node stays external.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const t = require('@huggingface/transformers');
  t.env.allowRemoteModels = false;
  t.env.allowLocalModels = true;
  t.env.useBrowserCache = false;
  t.env.localModelPath = path.dirname(data.modelDir) + path.sep;
  return (await t.pipeline('feature-extraction', path.basename(data.modelDir), {
    dtype: data.dtype,
    device: 'cpu',
    ...(data.threads ? { session_options: { intraOpNumThreads: data.threads, interOpNumThreads: 1 } } : {}),
  })) as Extractor;
}

async function main(): Promise<void> {
  const port = parentPort!;
  let extractor: Extractor;
  try {
    extractor = await load();
    const probe = await extractor(['dimension probe'], { pooling: data.pooling, normalize: true });
    port.postMessage({ type: 'ready', dimension: probe.dims[probe.dims.length - 1] });
  } catch (err) {
    port.postMessage({ type: 'error', id: -1, message: err instanceof Error ? err.message : String(err) });
    return;
  }
  let chain = Promise.resolve();
  port.on('message', (msg: { id: number; texts: string[] }) => {
    chain = chain.then(async () => {
      try {
        const { texts } = msg;
        const max = Number(extractor.tokenizer.model_max_length) || 512;
        const lengths = texts.map((t) => Math.min(max, extractor.tokenizer.encode(t).length));
        let flat = new Float32Array(0);
        let dim = 0;
        // Padded tokens of each pass (texts × the longest): the reply reports the largest (LocalEmbedder.largestPass).
        let largest = 0;
        for (const pass of passesByLength(lengths)) {
          largest = Math.max(largest, pass.length * Math.max(...pass.map((i) => lengths[i])));
          const out = await extractor(pass.map((i) => texts[i]), { pooling: data.pooling, normalize: true });
          if (!dim) {
            dim = out.dims[out.dims.length - 1];
            flat = new Float32Array(texts.length * dim);
          }
          pass.forEach((i, k) => flat.set(out.data.subarray(k * dim, (k + 1) * dim), i * dim));
        }
        port.postMessage({ type: 'vectors', id: msg.id, dimension: dim, data: flat, largestPass: largest }, [flat.buffer]);
      } catch (err) {
        port.postMessage({ type: 'error', id: msg.id, message: err instanceof Error ? err.message : String(err) });
      }
    });
  });
}

void main();
