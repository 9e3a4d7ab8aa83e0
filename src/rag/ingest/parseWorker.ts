// Worker-thread entry: reads a file and parses it with the in-process loaders. Bundled to dist/parseWorker.js.
// The pool kills this thread when a parse passes its deadline, so nothing here needs its own timeout.
import { parentPort } from 'worker_threads';
import { serveParses } from './parseService';

if (parentPort) serveParses(parentPort);
