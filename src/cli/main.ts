// `docs-rag` command line: a thin dispatcher, loaded by the launcher (src/cli.ts). Each command lives in src/cli/<name>.ts
// and drives the engine in src/rag.
import { COMMAND_USAGE, UsageError, printUsage, wantsHelp } from './common';
import { cpuProblemMessage, lanceCpuSupport } from '../rag/store/cpu';
import { explainStoreError } from '../rag/store/errors';
import { version } from '../../package.json';

type CommandModule = { run(argv: string[]): Promise<number> };

const commands: Record<string, () => Promise<CommandModule>> = {
  index: () => import('./index'),
  search: () => import('./search'),
  status: () => import('./status'),
  ask: () => import('./ask'),
  eval: () => import('./eval'),
  mcp: () => import('./mcp'),
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name) {
    printUsage();
    return 2;
  }
  // Help is asked for, so it goes to stdout with exit 0: `docs-rag --help`, `docs-rag help [command]`, `docs-rag <command> --help`.
  if (name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? rest[0] : undefined;
    if (topic && COMMAND_USAGE[topic]) process.stdout.write(`Usage:\n  ${COMMAND_USAGE[topic]}`);
    else printUsage(process.stdout);
    return 0;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    process.stdout.write(`docs-rag ${version}\n`);
    return 0;
  }
  const load = commands[name];
  if (!load) {
    process.stderr.write(`docs-rag: unknown command "${name}"\n`);
    printUsage();
    return 2;
  }
  if (wantsHelp(rest)) {
    process.stdout.write(`Usage:\n  ${COMMAND_USAGE[name]}`);
    return 0;
  }
  // Every command opens a LanceDB index; on a processor without AVX2/FMA LanceDB would die of SIGILL without a word.
  const { missing } = lanceCpuSupport();
  if (missing.length) {
    process.stderr.write(`docs-rag: ${cpuProblemMessage(missing)}\n`);
    return 1;
  }
  const mod = await load();
  return mod.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`docs-rag: ${err.message}\n`);
      process.exitCode = 2;
      return;
    }
    // LanceDB's raw messages (Rust paths, cause chains) become one sentence; DOCS_RAG_DEBUG shows the original.
    process.stderr.write(`docs-rag: ${explainStoreError(err)}\n`);
    if (process.env.DOCS_RAG_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
    process.exitCode = 1;
  },
);
