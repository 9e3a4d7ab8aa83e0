// docs-rag ask "<question>" --folder <folder>: answers with citations. With --model, a generated answer from an Ollama
// chat model (streamed on a TTY); without, the extractive answer (the most relevant passages, quoted). Indexes the
// folder first when it has no index yet. With --json the last stdout line is one JSON object.
import { detectLanguage } from '../rag/text/language';
import { printableName, printableText } from '../rag/text/printable';
import { openEngine } from '../rag/engine';
import { indexFolder } from '../rag/index/indexer';
import { answerQuestion, type AnswerOptions } from '../rag/answer/answer';
import { citationJson, formatLocation } from '../rag/answer/citations';
import { checkQuestion, QuestionError } from '../rag/answer/guardrails';
import { OllamaChatModel } from '../rag/llm/ollamaChat';
import type { AnswerResult } from '../rag/answer/types';
import { createRetriever } from '../rag/search';
import { ModelError } from '../rag/types';
import { UsageError, parse, printJson, indexedFolder, resolveStore } from './common';
import { prepareLocalModel } from './localModel';
import { embedOverrides, translateOverride } from './searchOptions';

const MODES = ['auto', 'generative', 'agentic', 'extractive'] as const;
const LENGTHS = ['short', 'medium', 'long'] as const;

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    folder: { type: 'string' },
    store: { type: 'string' },
    model: { type: 'string' },
    'ollama-host': { type: 'string' },
    embedder: { type: 'string' },
    'embed-model': { type: 'string' },
    mode: { type: 'string' },
    length: { type: 'string' },
    k: { type: 'string' },
    'num-ctx': { type: 'string' },
    timeout: { type: 'string' },
    'keep-alive': { type: 'string' },
    json: { type: 'boolean' },
    trace: { type: 'boolean' },
    translate: { type: 'string' },
  });
  if (positionals.length !== 1) throw new UsageError('ask needs exactly one "<question>" (quote it)');
  let question: string;
  try {
    question = checkQuestion(positionals[0]);
  } catch (err) {
    if (err instanceof QuestionError) throw new UsageError(err.message);
    throw err;
  }
  const folder = indexedFolder(values.folder, values.store);
  const mode = oneOf(values.mode ?? 'auto', MODES, '--mode');
  const length = oneOf(values.length ?? 'medium', LENGTHS, '--length');
  const k = positiveInt(values.k, '--k') ?? 8;
  const numCtx = positiveInt(values['num-ctx'], '--num-ctx');
  const timeoutSec = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeoutSec !== undefined && !(timeoutSec > 0)) throw new UsageError('--timeout takes seconds, e.g. --timeout 300');
  const translate = translateOverride(values.translate);
  if (mode === 'agentic' && !values.model) throw new UsageError('--mode agentic needs a tool-capable chat model: add --model <name>');

  const { embed } = embedOverrides({ embedder: values.embedder, model: values['embed-model'], 'ollama-host': values['ollama-host'] });
  await prepareLocalModel(embed);
  const storeDir = resolveStore(folder, values.store);
  const engine = await openEngine({ folder, storeDir, config: { embed }, embedderOverride: embed.provider !== undefined });
  const abort = new AbortController();
  const onSigint = () => abort.abort();
  process.once('SIGINT', onSigint);
  const err = (s: string) => process.stderr.write(`${s}\n`);
  try {
    for (const w of engine.warnings) err(`docs-rag: warning: ${w}`);
    if ((await engine.store.countPassages()) === 0) {
      err(`docs-rag: ${folder} has no index yet; indexing it first (${storeDir})…`);
      const r = await indexFolder(engine, {
        signal: abort.signal,
        onProgress: process.stderr.isTTY ? (p) => process.stderr.write(`\r  ${p.phase} ${p.filesDone}/${p.filesTotal} files   `) : undefined,
      });
      if (process.stderr.isTTY) process.stderr.write('\n');
      err(`docs-rag: indexed ${r.files} files (${r.chunks} passages) in ${(r.ms / 1000).toFixed(1)} s${r.errors.length ? `; ${r.errors.length} not indexed (see docs-rag status)` : ''}`);
      if (r.cancelled) return 130;
      if ((await engine.store.countPassages()) === 0) {
        err(`docs-rag: nothing in ${folder} could be indexed, so there is nothing to answer from. Check the files with: docs-rag status --folder ${folder}`);
        return 1;
      }
    }

    // The chat model: checked up front, so a missing model or a stopped Ollama gives its fix once and the extractive answer.
    let chatModel: OllamaChatModel | null = null;
    let modelError: ModelError | undefined;
    if (values.model && mode !== 'extractive') {
      const m = new OllamaChatModel({
        model: values.model,
        host: values['ollama-host'] ?? engine.config.embed.ollamaHost,
        numCtx,
        timeoutMs: timeoutSec !== undefined ? timeoutSec * 1000 : undefined,
        keepAlive: values['keep-alive'],
      });
      try {
        await m.init(abort.signal);
        chatModel = m;
      } catch (e) {
        if (!(e instanceof ModelError) || e.kind === 'cancelled') throw e;
        modelError = e;
        err(`docs-rag: ${e.message}`);
      }
    }

    // The chat model also translates the question for the search (--translate, default auto).
    const retriever = createRetriever(engine, { config: 'default', chatModel: chatModel ?? undefined, overrides: translate, detect: detectLanguage });
    const stream = !values.json && process.stdout.isTTY === true;
    const options: AnswerOptions = {
      retriever,
      chatModel,
      embedder: engine.embedder,
      tools: { store: engine.store, embedder: engine.embedder, signal: abort.signal },
      mode,
      k,
      length,
      signal: abort.signal,
      onToken: stream ? (t) => process.stdout.write(printableText(t)) : undefined,
      ...(modelError ? { noModelNote: undefined, extractiveReason: 'model-failed' as const } : {}),
    };
    let result: AnswerResult;
    try {
      result = await answerQuestion(question, options);
    } catch (e) {
      if (abort.signal.aborted || (e instanceof ModelError && e.kind === 'cancelled')) {
        err('\ndocs-rag: cancelled.');
        return 130;
      }
      if (e instanceof QuestionError) throw new UsageError(e.message);
      throw e;
    }
    if (modelError) result.notes.unshift(modelError.message);

    if (values.json) {
      printJson(toJson(result, modelError, values.trace === true));
      return 0;
    }
    if (!stream) process.stdout.write(printableText(result.answer));
    process.stdout.write('\n');
    printDetails(result, values.trace === true);
    return 0;
  } finally {
    process.removeListener('SIGINT', onSigint);
    await engine.close();
  }
}

function toJson(r: AnswerResult, modelError: ModelError | undefined, withChecks: boolean): Record<string, unknown> {
  return {
    answer: r.answer,
    citations: r.citations.map(citationJson),
    model: r.model,
    mode: r.mode,
    lang: r.lang,
    unsupported: r.unsupported,
    uncited: r.uncited,
    removedCitations: r.removedCitations,
    notes: r.notes,
    ...(modelError ? { modelError: { kind: modelError.kind, message: modelError.message } } : {}),
    trace: {
      spans: r.trace,
      flags: r.flags,
      sources: r.sources.length,
      ...(withChecks ? { checks: r.checks } : {}),
    },
  };
}

function printDetails(r: AnswerResult, trace: boolean): void {
  const out = (s = '') => process.stdout.write(`${s}\n`);
  if (r.mode !== 'extractive' && r.citations.length) {
    out();
    out('Sources:');
    for (const c of r.citations) out(`  [${c.n}] ${printableName(`${formatLocation(c)}${c.headingPath.length ? ` — ${c.headingPath.join(' › ')}` : ''}`)}`);
  }
  if (r.unsupported.length) {
    out();
    out('Not clearly supported by the cited passages:');
    for (const s of r.unsupported) out(`  - ${printableName(s)}`);
  }
  for (const n of r.notes) process.stderr.write(`docs-rag: ${printableText(n)}\n`);
  if (trace) {
    out();
    for (const s of r.trace) {
      const counts = s.counts ? ' ' + Object.entries(s.counts).map(([k, v]) => `${k}=${v}`).join(' ') : '';
      out(`  ${s.name} ${s.ms} ms${counts}${s.notes?.length ? ` (${s.notes.join('; ')})` : ''}`);
    }
  }
}

function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  if (!(allowed as readonly string[]).includes(value)) throw new UsageError(`${flag} must be one of ${allowed.join(', ')}, got "${value}"`);
  return value as T;
}

function positiveInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${flag} must be a positive whole number`);
  return n;
}
