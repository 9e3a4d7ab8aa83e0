// Answer quality on workspace questions: key-fact coverage, citation accuracy, groundedness (with --judge) and latency.
//   node --import tsx bench/answerEval.ts --folder <folder> --queries <jsonl> [--store DIR] [--model NAME] [--judge NAME]
//        [--ollama-host URL] [--mode auto|agentic|extractive] [--limit N] [--json]
// Without --model it scores the extractive answers (what a user gets with no language model).
// The folder is indexed first when its index is empty (question/metadata files excluded as FORMAT.md asks).
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { evaluateAnswers } from '../src/rag/eval/evaluateAnswers';
import { OllamaChatModel } from '../src/rag/llm/ollamaChat';
import { detectLanguage } from '../src/rag/text/language';
import { DEFAULT_EXCLUDE } from '../src/rag/config';
import { openEngine } from '../src/rag/engine';
import { loadWorkspaceQueries } from '../src/rag/eval/datasets';
import { indexFolder } from '../src/rag/index/indexer';
import { createRetriever } from '../src/rag/search';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      folder: { type: 'string' },
      queries: { type: 'string' },
      store: { type: 'string' },
      model: { type: 'string' },
      judge: { type: 'string' },
      'ollama-host': { type: 'string' },
      mode: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  if (!values.folder || !values.queries) throw new Error('needs --folder <folder> --queries <jsonl>');
  const folder = path.resolve(values.folder);
  const storeDir = path.resolve(values.store ?? path.join(folder, '.docs-rag'));
  let queries = loadWorkspaceQueries(path.resolve(values.queries));
  if (values.limit) queries = queries.slice(0, Number(values.limit));
  const engine = await openEngine({
    folder,
    storeDir,
    config: { ingest: { exclude: [...DEFAULT_EXCLUDE, '*.jsonl', 'FORMAT.md', 'SOURCES.md', 'README.md'] } },
  });
  try {
    if ((await engine.store.countPassages()) === 0) {
      process.stderr.write(`indexing ${folder} into ${storeDir}…\n`);
      const r = await indexFolder(engine);
      process.stderr.write(`indexed ${r.files} files, ${r.chunks} passages in ${(r.ms / 1000).toFixed(1)} s\n`);
    }
    const host = values['ollama-host'] ?? engine.config.embed.ollamaHost;
    const chatModel = values.model ? new OllamaChatModel({ model: values.model, host }) : null;
    if (chatModel) await chatModel.init();
    const judge = values.judge ? new OllamaChatModel({ model: values.judge, host }) : null;
    if (judge) await judge.init();
    const report = await evaluateAnswers(queries, {
      retriever: createRetriever(engine, { config: 'default', detect: detectLanguage }),
      chatModel,
      judge,
      embedder: engine.embedder,
      mode: (values.mode as 'auto' | 'agentic' | 'extractive' | undefined) ?? 'auto',
      tools: { store: engine.store, embedder: engine.embedder },
      onProgress: (d, t) => process.stderr.isTTY && process.stderr.write(`\r${d}/${t}   `),
    });
    if (process.stderr.isTTY) process.stderr.write('\n');
    if (values.json) {
      process.stdout.write(`${JSON.stringify(report)}\n`);
      return;
    }
    const s = report.summary;
    const pct = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`);
    process.stdout.write(`answers: ${chatModel ? chatModel.id : 'extractive (no model)'} on ${queries.length} questions\n`);
    process.stdout.write(
      `key-fact coverage ${pct(s.keyFactCoverage)} | citation accuracy ${pct(s.citationAccuracy)} | citations on evidence ${pct(s.citationsOnEvidence)} | groundedness ${pct(s.groundedness)} | median ${s.medianMs} ms\n`,
    );
    for (const [lang, v] of Object.entries(s.byLang)) {
      process.stdout.write(`  ${lang}: ${v.questions} questions, key facts ${pct(v.keyFactCoverage)}, citation accuracy ${pct(v.citationAccuracy)}\n`);
    }
    const errors = report.perQuery.filter((p) => p.error);
    if (errors.length) process.stdout.write(`errors: ${errors.map((e) => `${e.id}: ${e.error}`).join('; ')}\n`);
  } finally {
    await engine.close();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exitCode = 1;
});
