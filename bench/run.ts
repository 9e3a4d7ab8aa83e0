// `npm run bench [-- index|search|scale|fts5|remote|all] [options]`: a small dispatcher over the benchmark modules in bench/.
// Each module exports `run(argv): Promise<void>` and prints its command and figures.
type BenchModule = { run(argv: string[]): Promise<void> };

const benches: Record<string, () => Promise<BenchModule>> = {
  index: () => import('./indexBench'),
  search: () => import('./searchBench'),
  scale: () => import('./scaleBench'),
  fts5: () => import('./fts5'),
  remote: () => import('./remoteBench'),
};

async function main(): Promise<void> {
  const [which = 'all', ...rest] = process.argv.slice(2);
  const names = which === 'all' ? Object.keys(benches) : [which];
  for (const name of names) {
    const load = benches[name];
    if (!load) {
      process.stderr.write(`bench: unknown benchmark "${name}" (known: ${Object.keys(benches).join(', ')}, all)\n`);
      process.exitCode = 2;
      return;
    }
    await (await load()).run(rest);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
