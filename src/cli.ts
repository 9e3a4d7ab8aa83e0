// `docs-rag`: the launcher, which loads as little as it can. `docs-rag index` on Linux runs again in a child with the
// indexing malloc settings (cli/relaunch.ts), decided before the commands' code is loaded, so only the child pays for
// loading it; every other command, and that child, runs the dispatcher (cli/main.ts, bundled to dist/cliMain.js) here.
import * as path from 'node:path';
import { relaunchWithFewArenas } from './cli/relaunch';

const relaunched = process.argv[2] === 'index' ? relaunchWithFewArenas() : undefined;
if (relaunched) {
  relaunched.then((code) => {
    process.exitCode = code;
  });
} else {
  require(path.join(__dirname, __filename.endsWith('.ts') ? 'cli/main.ts' : 'cliMain.js'));
}
