// Starts the fake Ollama server (see ollamaServer.ts) in its own process, for tests that spawn the CLI or
// VS Code. Prints the URL as the first stdout line and runs until SIGTERM/SIGINT (or stdin closes, with
// --exit-on-stdin-close).
//
//   node --import tsx test/helpers/ollamaServerMain.ts [--port N] [--models a,b] [--delay-ms N]
//        [--chunk-delay-ms N] [--context-length N] [--tool-models a,b] [--options <module>] [--exit-on-stdin-close]
//
// --options loads a module (TS works when run under tsx) whose `default` or `options` export is a
// FakeOllamaOptions object, so a test can supply chat/embed functions to the separate process.

import * as path from 'node:path';
import { startFakeOllama, type FakeOllamaOptions } from './ollamaServer';

function parseArgs(argv: string[]): { opts: FakeOllamaOptions; exitOnStdinClose: boolean } {
  let opts: FakeOllamaOptions = {};
  let exitOnStdinClose = false;
  const num = (v: string | undefined, flag: string): number => {
    const n = Number(v);
    if (v === undefined || !Number.isFinite(n)) throw new Error(`${flag} needs a number`);
    return n;
  };
  const fromModule: FakeOllamaOptions[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    switch (a) {
      case '--port':
        opts.port = num(argv[++i], a);
        break;
      case '--models':
        opts.models = (argv[++i] ?? '').split(',').filter(Boolean);
        break;
      case '--tool-models':
        opts.toolModels = (argv[++i] ?? '').split(',').filter(Boolean);
        break;
      case '--delay-ms':
        opts.delayMs = num(argv[++i], a);
        break;
      case '--chunk-delay-ms':
        opts.chunkDelayMs = num(argv[++i], a);
        break;
      case '--context-length':
        opts.contextLength = num(argv[++i], a);
        break;
      case '--options': {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const mod = require(path.resolve(argv[++i] ?? ''));
        fromModule.push((mod.default ?? mod.options ?? mod) as FakeOllamaOptions);
        break;
      }
      case '--exit-on-stdin-close':
        exitOnStdinClose = true;
        break;
      default:
        throw new Error(`unknown argument: ${a}`);
    }
  }
  for (const m of fromModule) opts = { ...m, ...opts };
  return { opts, exitOnStdinClose };
}

async function main(): Promise<void> {
  const { opts, exitOnStdinClose } = parseArgs(process.argv.slice(2));
  const server = await startFakeOllama(opts);
  process.stdout.write(server.url + '\n');
  const stop = () => {
    void server.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  if (exitOnStdinClose) {
    process.stdin.on('end', stop);
    process.stdin.on('close', stop);
    process.stdin.resume();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`fake ollama: ${(e as Error).message}\n`);
  process.exit(1);
});
