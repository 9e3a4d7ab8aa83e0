// Child process of the kill -9 test: indexes <folder> into <store> and prints one JSON line when done.
// Usage: node --import tsx test/crash/indexChild.ts <folder> <store> [--full] [--local=<model folder>]
import { openEngine } from '../../src/rag/engine';
import { indexFolder } from '../../src/rag/index/indexer';

async function main(): Promise<void> {
  const [folder, storeDir, ...flags] = process.argv.slice(2);
  const local = flags.find((f) => f.startsWith('--local='))?.slice('--local='.length);
  const engine = local
    ? await openEngine({ folder, storeDir, config: { embed: { provider: 'local', localModel: local } }, embedderOverride: true })
    : await openEngine({ folder, storeDir });
  // One line per progress event: the test kills after a random number of them.
  const r = await indexFolder(engine, {
    full: flags.includes('--full'),
    onProgress: (p) =>
      process.stdout.write(`phase ${p.phase} ${p.filesDone}/${p.filesTotal}${p.vectors ? ` vectors ${p.vectors.filled}/${p.vectors.total}` : ''}\n`),
  });
  await engine.close();
  process.stdout.write(`${JSON.stringify(r)}\n`);
}

main().catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
