// `--embedder local` with a known model name: downloads the model once (progress on stderr), before the engine opens.
// A folder (`--model <dir>`) is used as it is; nothing is fetched.
import * as fs from 'node:fs';
import type { EngineConfigOverrides } from '../rag/engine';
import { DEFAULT_LOCAL_MODEL } from '../rag/config';
import { defaultModelCacheDir, downloadSize, downloadedModelDir, ensureModelDownloaded, knownModel } from '../rag/embed';

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

export async function prepareLocalModel(embed: NonNullable<EngineConfigOverrides['embed']>): Promise<void> {
  if (embed.provider !== 'local') return;
  const name = embed.localModel ?? DEFAULT_LOCAL_MODEL;
  if (fs.existsSync(name)) return;
  const model = knownModel(name);
  const cacheDir = embed.modelCacheDir ?? process.env.DOCS_RAG_MODEL_CACHE ?? defaultModelCacheDir();
  embed.modelCacheDir = cacheDir;
  if (!model || downloadedModelDir(model, cacheDir)) return; // unknown names fail with the embedder's message
  const total = downloadSize(model);
  process.stderr.write(`docs-rag: downloading the embedding model ${model.id} (${mb(total)}) into ${cacheDir} (once; resumable)\n`);
  let last = 0;
  await ensureModelDownloaded(model, {
    cacheDir,
    baseUrl: process.env.DOCS_RAG_MODEL_BASE_URL,
    onProgress: (p) => {
      const now = Date.now();
      if (now - last < 250 && p.received < p.total) return;
      last = now;
      const pct = p.total ? Math.floor((p.received / p.total) * 100) : 0;
      const line = `  ${pct}% ${mb(p.received)} of ${mb(p.total)} (${p.file})`;
      process.stderr.write(process.stderr.isTTY ? `\r${line}` : `${line}\n`);
    },
  });
  if (process.stderr.isTTY) process.stderr.write('\n');
  process.stderr.write(`docs-rag: ${model.id} downloaded and verified (SHA-256)\n`);
}
