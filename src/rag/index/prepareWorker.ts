// Worker-thread entry of the indexer's parser pool (bundled to dist/prepareWorker.js): parses like parseWorker.ts and,
// for requests from processFile.ts, hashes, chunks, extracts links and embeds there too (prepareFile.ts); a request
// without a file embeds the texts it carries (embedTexts).
import { parentPort } from 'worker_threads';
import { serveParses } from '../ingest';
import { embedTexts, prepareFile, type EmbedSpec, type PrepareSpec } from './prepareFile';

if (parentPort) {
  serveParses(parentPort, async (spec, bytes, parse) =>
    'texts' in (spec as object) ? embedTexts(spec as EmbedSpec) : prepareFile(spec as PrepareSpec, bytes, parse),
  );
}
