// Helpers shared by the CLI commands: argument parsing, JSON output, store location.
import * as path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DEFAULT_STORE_DIRNAME } from '../rag/config';

export class UsageError extends Error {}

export const USAGE = `Usage:
  docs-rag index <folder> [--store DIR] [--embedder builtin|ollama] [--model NAME] [--ollama-host URL] [--json]
  docs-rag search "<query>" --folder <folder> [--store DIR] [--k N] [--config NAME] [--trace] [--json]
  docs-rag status --folder <folder> [--store DIR] [--json]
  docs-rag ask "<question>" --folder <folder> [--store DIR] [--model NAME] [--ollama-host URL] [--json]
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

/** Default store: <folder>/.docs-rag, always absolute (LanceDB treats some relative paths as cloud URIs). */
export function resolveStore(folder: string, store?: string): string {
  return path.resolve(store ?? path.join(folder, DEFAULT_STORE_DIRNAME));
}

export function requireFolder(folder: string | undefined): string {
  if (!folder) throw new UsageError('--folder <folder> is required');
  return path.resolve(folder);
}

/** With --json the last line of stdout is one JSON object. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
