// Helpers shared by the CLI commands: argument parsing, JSON output, store location.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DEFAULT_STORE_DIRNAME } from '../rag/config';
import { checkDefaultStore } from '../rag/store/location';
import { META_FILE } from '../rag/store/meta';
import { StoreUriError, looksLikeUri, parseStoreUri } from '../rag/store/remote';

export class UsageError extends Error {}

/** Each command's usage: its synopsis and what its flags do (printed by `docs-rag <command> --help`). */
export const COMMAND_USAGE: Record<string, string> = {
  index: `docs-rag index <folder> [--store DIR|URI] [--embedder builtin|ollama|local] [--model NAME|DIR] [--ollama-host URL] [--full]
               [--enrich contextual,summaries|off] [--enrich-model NAME] [--[no-]follow-external-symlinks]
               [--[no-]ignore-files] [--wait|--no-wait] [--ocr on|off] [--ocr-langs deu+eng] [--ocr-max-pages N]
               [--parse-timeout SECONDS] [--maintenance background|wait|skip] [--json]
  Indexes the documents of <folder> (incremental: unchanged files are skipped). The index records the settings of
  each run (enrichment, symbolic links, ignore files, OCR, parse timeout): a later run, or docs-rag mcp, given no flag
  for one of them keeps the recorded one.
    --store DIR              where the index lives (default <folder>/.docs-rag)
    --store URI              a team's shared index in object storage (s3://bucket/path, gs://…, az://…; credentials and
                             endpoint from AWS_* and the other standard variables): index writes it, search, ask,
                             status and mcp read it
    --embedder builtin|ollama, --model NAME   the embedder (default builtin; --model alone means ollama)
    --embedder local [--model NAME|DIR]       in-process ONNX model: a model folder (offline, nothing fetched) or a known
                             name (default multilingual-e5-small, downloaded once into ~/.cache/docs-rag/models, resumable,
                             SHA-256 checked; DOCS_RAG_MODEL_CACHE moves it)
    --ollama-host URL        Ollama server (default $OLLAMA_HOST or http://127.0.0.1:11434)
    --full                   re-parse and re-embed every file
    --enrich contextual,summaries, --enrich-model NAME   LLM enrichments at indexing time (Ollama); --enrich off: none
    --follow-external-symlinks   also index files that symbolic links point to outside <folder>
                             (--no-follow-external-symlinks: skip them again, the default)
    --no-ignore-files        also index what .gitignore / .ignore files (also those above the folder, up to its
                             repository's root) and .git/info/exclude leave out (--ignore-files: honour them, the default)
    --wait | --no-wait       when another process writes this index: wait for it (default), or exit 1 at once
    --ocr on|off             read scanned PDF pages and images by OCR (default on)
    --ocr-langs L            OCR languages, tesseract codes joined by + (default deu+eng)
    --ocr-max-pages N        at most N scanned pages of one file are recognised (default 50)
    --parse-timeout SECONDS  a file (and each page recognised by OCR) taking longer is skipped with reason timeout
                             (default 30; a slow machine or large scans may need more)
    --maintenance background|wait|skip   the whole-table work after a small run (folding new rows into the indexes,
                             compaction, vector index): in a detached process (default; the next run stops it if it
                             needs the index), waited for, or left to a later run. A large run's is always part of it.
    --json                   print the result as one JSON object
`,
  search: `docs-rag search "<query>" [--folder <folder>] [--store DIR|URI] [--k N] [--config NAME] [--trace] [--json]
               [--embedder builtin|ollama|local] [--model NAME|DIR] [--ollama-host URL] [--chat-model NAME] [--translate on|off|auto]
               [--alpha X] [--levels 0,1,2]
  Searches the index of <folder> and lists the best passages with their locations. Without --folder (here and for
  status, ask and mcp): the nearest folder at or above the working folder that holds an index.
    --k N                    number of results (1–1000, default 10)
    --config NAME            named pipeline configuration (default, bm25, vector, hybrid, ablations)
    --chat-model NAME        Ollama chat model for the LLM stages (question translation, expansion, rerank)
    --translate on|off|auto  with a chat model: search the question translated into German/English too (default auto:
                             when passages in the other language are among its candidates; off: never)
    --alpha X, --levels L    fusion weight; passage levels to search
    --trace                  add the per-stage trace
    --json                   print the results as one JSON object
`,
  status: `docs-rag status [--folder <folder>] [--store DIR|URI] [--json]
  Shows what the index of <folder> holds and which files were not indexed, with the reason.
`,
  ask: `docs-rag ask "<question>" [--folder <folder>] [--store DIR|URI] [--model NAME] [--ollama-host URL] [--mode auto|agentic|extractive]
               [--length short|medium|long] [--k N] [--num-ctx N] [--timeout SECONDS] [--keep-alive DURATION] [--json] [--trace]
               [--embedder builtin|ollama|local] [--embed-model NAME|DIR] [--translate on|off|auto]
  Answers a question from the documents of <folder> with citations (indexes the folder first if it has no index).
    --model NAME             Ollama chat model; without it: the extractive answer (quotes of the best passages)
    --translate on|off|auto  the model also translates the question for the search (default auto, as for search)
    --mode auto|agentic|extractive, --length short|medium|long, --k N (passages retrieved)
    --num-ctx N              context window (default: the model's own, capped at 8192)
    --timeout SECONDS        idle timeout of a model call (default 120)
    --keep-alive DURATION    how long Ollama keeps the model loaded
    --embedder, --embed-model   only when the folder has no index yet
    --json                   print the answer, citations and trace as one JSON object
`,
  mcp: `docs-rag mcp [--folder <folder>] [--store DIR|URI] [--watch] [--model NAME] [--ollama-host URL] [--quiet]
               [--http PORT] [--[no-]ignore-files] [--[no-]follow-external-symlinks] [--ocr on|off] [--ocr-langs L]
               [--ocr-max-pages N] [--parse-timeout SECONDS] [--translate on|off|auto]
  Serves the index of <folder> to agents over the Model Context Protocol (stdio; with --http PORT, Streamable HTTP on
  127.0.0.1 only). Tools: search, read, ask, status.
    --watch                  re-index changed files in the background
    --[no-]ignore-files, --[no-]follow-external-symlinks, --ocr…, --parse-timeout   as for docs-rag index: which files
                             the index holds and how they are read; without them --watch's runs keep the settings the
                             index recorded (its enrichment too)
    --model NAME, --ollama-host URL   Ollama chat model for generated answers of the ask tool (it also translates
                             the question for search and ask: --translate, as for docs-rag search)
    --quiet                  no log lines on stderr
`,
  eval: `docs-rag eval --folder <folder> --queries <jsonl> | --beir <dir> [--qrels FILE] [--store DIR] [--config NAME|all] [--json]
               [--limit N] [--reindex] [--per-query] [--quote-edges] [--answers] [--set key=value]... [--chunk-scale X]
               [--chunk-strategy NAME] [--embedder builtin|ollama|local] [--model NAME|DIR] [--ollama-host URL] [--chat-model NAME]
               [--translate on|off|auto]
  Measures retrieval (and with --answers, answers) on workspace questions or a BEIR-layout set.
`,
};

export const USAGE = `Usage:\n${Object.values(COMMAND_USAGE)
  // Each command's synopsis: its first line and the continuation lines of flags in brackets (not the option descriptions).
  .map((u) => `  ${u.split('\n')[0]}\n${u.split('\n').slice(1).filter((l) => /^ {15}\[/.test(l)).map((l) => `  ${l}\n`).join('')}`)
  .join('')}Run docs-rag <command> --help for the flags of one command; docs-rag --version prints the version.
`;

/** The general usage, on stderr (after a usage error) or on stdout (asked for with --help). */
export function printUsage(out: NodeJS.WritableStream = process.stderr): void {
  out.write(USAGE);
}

/** Whether the arguments ask for help (--help or -h before a `--` terminator). */
export function wantsHelp(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
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
 * folders can still be indexed and searched. A `.docs-rag` that is or holds a symbolic link is refused (checkDefaultStore):
 * it came with the folder and could send the index's writes outside it; a --store the user gives is used as given. A
 * --store that looks like a URI (s3://bucket/path) names a remote store, returned normalised; one that is not supported
 * or malformed is a usage error: it never becomes a local folder named `s3:`.
 */
export function resolveStore(folder: string, store?: string): string {
  if (store && looksLikeUri(store)) {
    try {
      return parseStoreUri(store).uri;
    } catch (err) {
      if (err instanceof StoreUriError) throw new UsageError(`--store: ${err.message}`);
      throw err;
    }
  }
  if (store) return path.resolve(store);
  const inFolder = path.resolve(folder, DEFAULT_STORE_DIRNAME);
  checkDefaultStore(path.resolve(folder), inFolder);
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

/**
 * The folder of a command that reads an index (search, ask, status, mcp): --folder, else the nearest folder at or above
 * the working folder that holds an index in its own store folder, as git finds its repository. Without --folder and
 * without such an index (or with --store, which names no folder): a usage error.
 */
export function indexedFolder(folder: string | undefined, store: string | undefined): string {
  if (folder !== undefined || store !== undefined) return requireFolder(folder);
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, DEFAULT_STORE_DIRNAME, META_FILE))) return dir;
    if (path.dirname(dir) === dir) break;
  }
  throw new UsageError(`--folder <folder> is required: ${process.cwd()} and the folders above it hold no index (docs-rag index <folder> builds one)`);
}

/** The --folder value (or `index`'s <folder>), absolute; a usage error when it is missing or not a folder. */
export function requireFolder(folder: string | undefined, name = '--folder <folder>'): string {
  if (!folder) throw new UsageError(`${name} is required`);
  const abs = path.resolve(folder);
  if (!isFolder(abs)) {
    const file = fs.existsSync(abs);
    throw new UsageError(file ? `${abs} is a file, not a folder: give the folder that holds it (docs-rag indexes folders)` : `folder not found: ${abs}`);
  }
  return abs;
}

export function isFolder(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** With --json the last line of stdout is one JSON object. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
