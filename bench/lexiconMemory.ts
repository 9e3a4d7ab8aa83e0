// Memory and speed of the three search lexicons: loads them, then 10,000 lookups. Usage: node --expose-gc --import tsx bench/lexiconMemory.ts
import { loadLexicon, termKey } from '../src/rag/search/lexicon';
const before = process.memoryUsage();
const t0 = Date.now();
for (const n of ['thesaurus-de', 'thesaurus-en', 'bridge-de-en'] as const) loadLexicon(n);
const ms = Date.now() - t0;
(global as any).gc?.();
const after = process.memoryUsage();
const t1 = process.hrtime.bigint();
let found = 0;
for (let i = 0; i < 10000; i++) { if (loadLexicon('bridge-de-en')?.get('en-de', termKey(i % 2 ? 'minimum wage' : 'vacation', 'en'))) found++; }
const us = Number(process.hrtime.bigint() - t1) / 1e3 / 10000;
console.log(JSON.stringify({ loadMs: ms, rssMB: Math.round((after.rss - before.rss) / 1e6), heapMB: Math.round((after.heapUsed - before.heapUsed) / 1e6), lookupUs: +us.toFixed(2), found, sample: loadLexicon('bridge-de-en')?.get('en-de', termKey('minimum wage', 'en')) }));
