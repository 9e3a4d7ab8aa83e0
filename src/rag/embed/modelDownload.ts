// Downloads a known local embedding model once into a cache folder, resumably, every file checked against its
// pinned size and SHA-256. Files grow in `<cache>/<id>.partial/` (`<file>.part` while incomplete, resumed with an
// HTTP Range request); the folder is renamed to `<cache>/<id>/` only when every file is verified, so nothing
// half-written is ever loaded. Errors are ModelErrors whose message names the fix.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ModelError } from '../types';
import { downloadSize, modelDownloadBase, type KnownModel, type ModelFile } from './localModels';

/** Written last into a complete model folder: what was verified. */
export const COMPLETE_MARKER = 'docs-rag-model.json';

export interface DownloadProgress {
  file: string;
  /** Bytes of all files so far / in total. */
  received: number;
  total: number;
}

export interface DownloadOptions {
  cacheDir: string;
  /** Replaces the model's download base (a mirror, or a test server). */
  baseUrl?: string;
  /** A mirror's origin that replaces the base's scheme, host and port (modelDownloadBase); ignored with baseUrl. */
  host?: string;
  onProgress?(p: DownloadProgress): void;
  signal?: AbortSignal;
}

/** `~/.cache/docs-rag/models` (XDG_CACHE_HOME honoured); the extension passes its global storage instead. */
export function defaultModelCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'docs-rag', 'models');
}

/** The folder of a complete, verified download, or undefined. */
export function downloadedModelDir(model: KnownModel, cacheDir: string): string | undefined {
  const dir = path.join(cacheDir, model.id);
  return fs.existsSync(path.join(dir, COMPLETE_MARKER)) ? dir : undefined;
}

function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    fs.createReadStream(file)
      .on('data', (d) => h.update(d))
      .on('error', reject)
      .on('end', () => resolve(h.digest('hex')));
  });
}

function networkCode(err: unknown): string {
  let e = err as { code?: string; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === 'string' && /^(E[A-Z_]+|UND_ERR\w*)$/.test(e.code)) return e.code;
    e = e.cause as typeof e;
  }
  return '';
}

function fixText(model: KnownModel): string {
  return (
    `Run again when the machine is online (the download resumes), or copy the model folder from a machine that has it ` +
    `and name it with --model <dir> / the setting docsRag.local.modelPath. Until then the builtin embedder works ` +
    `(--embedder builtin / docsRag.embedder "builtin"). Model: ${model.id}.`
  );
}

/** Fetches one file into `<part>`, resuming from the bytes already there. */
async function fetchFile(url: string, part: string, file: ModelFile, model: KnownModel, signal: AbortSignal | undefined, onBytes: (n: number) => void): Promise<void> {
  const have = fs.existsSync(part) ? fs.statSync(part).size : 0;
  if (file.size !== undefined && have === file.size) return;
  if (file.size !== undefined && have > file.size) fs.rmSync(part);
  const from = fs.existsSync(part) ? fs.statSync(part).size : 0;
  let res: Response;
  try {
    res = await fetch(url, { headers: from > 0 ? { Range: `bytes=${from}-` } : {}, signal, redirect: 'follow' });
  } catch (err) {
    if (signal?.aborted) throw new ModelError('cancelled', 'Model download cancelled; it resumes on the next start.');
    const code = networkCode(err);
    throw new ModelError('unreachable', `Cannot download ${file.path} of the embedding model from ${new URL(url).host}${code ? ` (${code})` : ''}. ${fixText(model)}`);
  }
  if (res.status !== 200 && res.status !== 206) {
    await res.body?.cancel();
    throw new ModelError('unreachable', `Downloading ${file.path} of the embedding model failed: HTTP ${res.status} from ${new URL(url).host}. ${fixText(model)}`);
  }
  // 200 to a Range request: the server sends the whole file, so start over.
  const append = res.status === 206 && from > 0;
  if (!append && from > 0) onBytes(-from);
  const out = fs.createWriteStream(part, { flags: append ? 'a' : 'w' });
  try {
    if (!res.body) throw new Error('empty response');
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
      onBytes(chunk.length);
    }
  } catch (err) {
    if (signal?.aborted) throw new ModelError('cancelled', 'Model download cancelled; it resumes on the next start.');
    const code = networkCode(err);
    throw new ModelError(
      'unreachable',
      `The download of ${file.path} broke off${code ? ` (${code})` : ''}; the part received is kept. ${fixText(model)}`,
    );
  } finally {
    await new Promise<void>((r) => out.end(r));
  }
}

/**
 * Returns the folder of the verified model, downloading what is missing. Concurrent callers in one process share one
 * download.
 */
export async function ensureModelDownloaded(model: KnownModel, opts: DownloadOptions): Promise<string> {
  const done = downloadedModelDir(model, opts.cacheDir);
  if (done) return done;
  const partialDir = path.join(opts.cacheDir, `${model.id}.partial`);
  fs.mkdirSync(partialDir, { recursive: true });
  const base = (opts.baseUrl ?? modelDownloadBase(model, opts.host)).replace(/\/+$/, '');
  const total = downloadSize(model);
  let received = 0;
  const remote = model.files.filter((f) => f.source);
  for (const f of remote) {
    const p = path.join(partialDir, `${f.path}.part`);
    if (fs.existsSync(p)) received += fs.statSync(p).size;
  }
  for (const f of model.files) {
    const final = path.join(partialDir, f.path);
    fs.mkdirSync(path.dirname(final), { recursive: true });
    if (f.inline !== undefined) {
      fs.writeFileSync(final, f.inline);
      continue;
    }
    if (fs.existsSync(final)) continue; // verified in an earlier, interrupted run
    const part = `${final}.part`;
    await fetchFile(`${base}/${f.source}`, part, f, model, opts.signal, (n) => {
      received += n;
      opts.onProgress?.({ file: f.path, received, total });
    });
    const size = fs.statSync(part).size;
    const sum = await sha256File(part);
    if ((f.size !== undefined && size !== f.size) || (f.sha256 && sum !== f.sha256)) {
      fs.rmSync(part, { force: true });
      received -= size;
      throw new ModelError(
        'bad-output',
        `Checksum mismatch for ${f.path} of the embedding model ${model.id} (got ${size} bytes, SHA-256 ${sum}; expected ` +
          `${f.size ?? '?'} bytes, ${f.sha256}). The file was deleted: run again to download it anew. If it keeps failing, the ` +
          `download is altered on the way (proxy?) — fetch the files elsewhere and name the folder with --model <dir>.`,
      );
    }
    fs.renameSync(part, final);
  }
  fs.writeFileSync(
    path.join(partialDir, COMPLETE_MARKER),
    JSON.stringify({ id: model.id, base: model.base, files: model.files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })) }, null, 2),
  );
  const finalDir = path.join(opts.cacheDir, model.id);
  fs.rmSync(finalDir, { recursive: true, force: true });
  fs.renameSync(partialDir, finalDir);
  return finalDir;
}
