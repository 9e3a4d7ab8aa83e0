// Helpers shared by the CLI commands: argument parsing, JSON output, store location.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DEFAULT_STORE_DIRNAME } from '../rag/config';

export class UsageError extends Error {}

export const USAGE = `Usage:
  docs-rag index <folder> [--store DIR] [--embedder builtin|ollama] [--model NAME] [--ollama-host URL] [--full]
                 [--enrich contextual,summaries] [--enrich-model NAME] [--wait|--no-wait] [--json]
                 [--ocr on|off] [--ocr-langs deu+eng] [--ocr-max-pages N]
  docs-rag search "<query>" --folder <folder> [--store DIR] [--k N] [--config NAME] [--trace] [--json]
  docs-rag status --folder <folder> [--store DIR] [--json]
  docs-rag ask "<question>" --folder <folder> [--store DIR] [--model NAME] [--ollama-host URL] [--mode auto|agentic|extractive]
               [--length short|medium|long] [--k N] [--num-ctx N] [--timeout SECONDS] [--keep-alive DURATION] [--json]
  docs-rag eval --folder <folder> --queries <jsonl> | --beir <dir>  [--store DIR] [--config NAME] [--json]
`;

export function printUsage(): void {
  process.stderr.write(USAGE);
}

/** Parses flags; unknown flags and missing values are usage errors (exit 2). */
export function parse<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}

/**
 * Default store: <folder>/.docs-rag, always absolute (LanceDB treats some relative paths as cloud URIs). When the folder is
 * read-only and has no index yet, the index goes to the user's cache instead (said on stderr), so read-only document
 * folders can still be indexed and searched.
 */
export function resolveStore(folder: string, store?: string): string {
  if (store) return path.resolve(store);
  const inFolder = path.resolve(folder, DEFAULT_STORE_DIRNAME);
  if (fs.existsSync(inFolder) || isWritable(path.resolve(folder))) return inFolder;
  const cacheRoot = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  const key = createHash('sha256').update(path.resolve(folder)).digest('hex').slice(0, 12);
  const fallback = path.join(cacheRoot, 'docs-rag', 'stores', `${path.basename(path.resolve(folder))}-${key}`);
  process.stderr.write(`docs-rag: ${folder} is read-only; the index is kept in ${fallback}\n`);
  return fallback;
}

function isWritable(dir: string): boolean {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

export function requireFolder(folder: string | undefined): string {
  if (!folder) throw new UsageError('--folder <folder> is required');
  return path.resolve(folder);
}

/** With --json the last line of stdout is one JSON object. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
