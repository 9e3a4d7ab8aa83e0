// `docs-rag` command line: a thin dispatcher. Each command lives in src/cli/<name>.ts and drives the engine in src/rag.
import { UsageError, printUsage } from './cli/common';

type CommandModule = { run(argv: string[]): Promise<number> };

const commands: Record<string, () => Promise<CommandModule>> = {
  index: () => import('./cli/index'),
  search: () => import('./cli/search'),
  status: () => import('./cli/status'),
  ask: () => import('./cli/ask'),
  eval: () => import('./cli/eval'),
  mcp: () => import('./cli/mcp'),
};

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    printUsage();
    return name ? 0 : 2;
  }
  const load = commands[name];
  if (!load) {
    process.stderr.write(`docs-rag: unknown command "${name}"\n`);
    printUsage();
    return 2;
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
    process.stderr.write(`docs-rag: ${err instanceof Error ? err.message : String(err)}\n`);
    if (process.env.DOCS_RAG_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
    process.exitCode = 1;
  },
);
