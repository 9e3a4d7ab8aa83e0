// Worker-thread entry of the indexer's parser pool (bundled to dist/prepareWorker.js): parses like parseWorker.ts and,
// for requests from processFile.ts, hashes, chunks, extracts links and embeds there too (prepareFile.ts).
import { parentPort } from 'worker_threads';
import { serveParses } from '../ingest';
import { prepareFile, type PrepareSpec } from './prepareFile';

if (parentPort) serveParses(parentPort, (spec, bytes, parse) => prepareFile(spec as PrepareSpec, bytes, parse));
