// docs-rag search "<query>" --folder <folder>: ranked passages with their citation ranges (and the trace with --trace).
import * as fs from 'node:fs';
import { detectLanguage } from '../rag/text/language';
import { indexCommandLine, printableName, printableText } from '../rag/text/printable';
import { openEngine } from '../rag/engine';
import { createRetriever } from '../rag/search';
import { hitToJson } from '../rag/search/hitJson';
import { formatTrace } from '../rag/search/trace';
import { UsageError, parse, printJson, indexedFolder, resolveStore } from './common';
import { looksLikeUri } from '../rag/store/remote';
import { compareLocalCopies } from '../rag/index/localCopy';
import { prepareLocalModel } from './localModel';
import { SEARCH_FLAGS, chatModelFrom, embedOverrides, searchOverrides } from './searchOptions';

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    ...SEARCH_FLAGS,
    folder: { type: 'string' },
    k: { type: 'string' },
    trace: { type: 'boolean' },
  });
  if (positionals.length !== 1 || !positionals[0].trim()) throw new UsageError('search needs exactly one "<query>" (quote it)');
  const folder = indexedFolder(values.folder, values.store);
  const k = values.k === undefined ? 10 : Number(values.k);
  if (!Number.isInteger(k) || k < 1 || k > 1000) throw new UsageError('--k must be a whole number from 1 to 1000');
  const storeDir = resolveStore(folder, values.store);
  if (!looksLikeUri(storeDir) && !fs.existsSync(storeDir)) {
    process.stderr.write(`docs-rag: no index at ${storeDir}. Build it first: ${indexCommandLine(folder, values.store && storeDir)}\n`);
    return 1;
  }
  const { embed, explicit } = embedOverrides(values);
  await prepareLocalModel(embed);
  const engine = await openEngine({ folder, storeDir, config: { embed }, embedderOverride: explicit });
  try {
    if ((await engine.store.countPassages()) === 0) {
      const what = engine.store.schemaOutdated() ? 'was written by another version of Docs RAG. Rebuild it' : 'is empty. Build it first';
      process.stderr.write(`docs-rag: the index at ${storeDir} ${what}: ${indexCommandLine(folder, values.store && storeDir)}\n`);
      return 1;
    }
    const chatModel = await chatModelFrom(values, engine.config.embed.ollamaHost);
    const retriever = createRetriever(engine, { config: values.config, chatModel, overrides: searchOverrides(values), detect: detectLanguage });
    const result = await retriever.retrieve(positionals[0], { k, context: values.trace ? true : false });
    for (const w of result.warnings) process.stderr.write(`docs-rag: warning: ${w}\n`);
    // A team's remote index quotes the builder's files: each cited file of this folder is compared with the one indexed.
    const copies = engine.store.remote ? await compareLocalCopies(folder, result.hits.map((h) => h.passage)) : null;
    const hits = result.hits.map((h) => (copies ? { ...hitToJson(h), localCopy: copies.get(h.passage.path) } : hitToJson(h)));
    if (values.json) {
      printJson(values.trace ? { results: hits, trace: result.trace, analysis: result.analysis } : { results: hits });
      return 0;
    }
    if (hits.length === 0) process.stdout.write('No results.\n');
    hits.forEach((h, i) => {
      const where = h.page !== undefined ? `p. ${h.page}${h.pageEnd ? `-${h.pageEnd}` : ''}` : h.startLine !== undefined ? `L${h.startLine}-${h.endLine}` : h.quote ? `"${h.quote.slice(0, 40)}…"` : '';
      const snippet = printableText(h.text.replace(/\s+/g, ' ').slice(0, 160));
      const ocr = h.ocr ? `  (${h.ocr.note}, confidence ${h.ocr.confidence}%)` : '';
      const copy = 'localCopy' in h && h.localCopy !== 'same' ? `  (${h.localCopy === 'differs' ? 'your copy differs from the indexed one' : 'not in your folder'})` : '';
      // File names, headings and quotes are untrusted: no control character reaches the terminal.
      process.stdout.write(`${String(i + 1).padStart(2)}. ${printableName(`${h.path} ${where}`)}  [${h.score.toFixed(4)}]${ocr}${copy} ${h.heading ? `— ${printableName(h.heading)}` : ''}\n    ${snippet}\n`);
    });
    if (values.trace) {
      const a = result.analysis;
      process.stdout.write(`\nanalysis: lang=${a.lang} type=${a.type} flow=${a.flow} levels=${a.levels.join(',')} alpha=${a.alpha} exact=${JSON.stringify(a.exactTokens)}\n`);
      process.stdout.write(`${formatTrace(result.trace)}\n`);
    }
    return 0;
  } finally {
    await engine.close();
  }
}
