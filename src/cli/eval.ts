// docs-rag eval: retrieval quality on workspace questions (--folder + --queries) or a BEIR set (--beir), per named config.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { looksLikeUri } from '../rag/store/remote';
import { detectLanguage } from '../rag/text/language';
import { defaultConfig, type ChunkConfig } from '../rag/config';
import { openEngine, type Engine } from '../rag/engine';
import { buildBeirIndex } from '../rag/eval/beirIndex';
import { loadBeir, loadWorkspaceQueries } from '../rag/eval/datasets';
import { evaluateBeir, evaluateWorkspace, pairedNdcg, roundPaired, summaryJson, type EvalReport } from '../rag/eval/runner';
import { createRetriever } from '../rag/search';
import { BASE_SETTINGS, NAMED_CONFIGS, type SearchSettings } from '../rag/search/configs';
import type { ChatModel } from '../rag/types';
import { UsageError, isFolder, parse, printJson, requireFolder } from './common';
import { prepareLocalModel } from './localModel';
import { SEARCH_FLAGS, chatModelFrom, embedOverrides, searchOverrides } from './searchOptions';

/** Files in the workspace folder that are question/metadata files, not corpus (FORMAT.md). */
const EVAL_EXCLUDE = ['*.jsonl', 'FORMAT.md', 'SOURCES.md', 'README.md'];
/** Configurations that need a chat model. */
const LLM_CONFIGS = new Set(['default+rerank', 'default+multiquery', 'default+hyde', 'full']);

export async function run(argv: string[]): Promise<number> {
  const { values } = parse(argv, {
    ...SEARCH_FLAGS,
    folder: { type: 'string' },
    queries: { type: 'string' },
    beir: { type: 'string' },
    qrels: { type: 'string' },
    limit: { type: 'string' },
    reindex: { type: 'boolean' },
    'quote-edges': { type: 'boolean' },
    'per-query': { type: 'boolean' },
    set: { type: 'string', multiple: true },
    'chunk-scale': { type: 'string' },
    'chunk-strategy': { type: 'string' },
    answers: { type: 'boolean' },
  });
  if (!values.beir && !(values.folder && values.queries)) throw new UsageError('eval needs --folder <folder> --queries <jsonl>, or --beir <dir>');
  const configs = resolveConfigs(values.config, !!values['chat-model']);
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) throw new UsageError('--limit must be a positive whole number');
  const { embed, explicit } = embedOverrides(values);
  await prepareLocalModel(embed);
  const overrides = { ...searchOverrides(values), ...parseSets(values.set ?? []) };
  const progress = (label: string) => (done: number, total: number) => {
    if (process.stderr.isTTY) process.stderr.write(`\r${label} ${done}/${total}   `);
  };

  if (values.answers && values.beir) throw new UsageError('--answers needs workspace questions (--folder --queries), not --beir');
  // eval builds and rebuilds its own index: a team's remote store is not one to evaluate into.
  if (values.store && looksLikeUri(values.store)) throw new UsageError(`--store: eval builds an index of its own; give a local folder, not ${values.store}`);
  let engine: Engine;
  let answers: ((chatModel?: ChatModel) => Promise<void>) | undefined;
  let run: (config: string, chatModel?: ChatModel) => Promise<EvalReport>;
  if (values.beir) {
    const dir = path.resolve(values.beir);
    if (!fs.existsSync(path.join(dir, 'corpus.jsonl'))) throw new UsageError(`no corpus.jsonl in ${dir} (BEIR layout: corpus.jsonl, queries.jsonl, qrels/test.tsv)`);
    const set = loadBeir(dir, values.qrels ?? 'qrels/test.tsv');
    if (limit) set.queries = set.queries.slice(0, limit);
    const storeDir = path.resolve(values.store ?? cacheDir('beir', dir, embed));
    engine = await openEngine({ folder: dir, storeDir, config: { embed }, embedderOverride: explicit });
    const have = await engine.store.countPassages();
    const meta = engine.store.meta();
    const sameEmbedder = meta?.embedder.id === engine.embedder.id && meta?.embedder.model === engine.embedder.model;
    if (values.reindex || have !== set.corpus.length || !sameEmbedder) {
      // Start from an empty store: appending to a partial or stale one would duplicate documents. Only our own cache
      // folder is ever deleted; a --store folder that already holds other passages is refused.
      await engine.close();
      if (have > 0 && values.store) {
        throw new UsageError(`--store ${storeDir} already holds ${have} passages of another index; pass an empty folder or leave --store out`);
      }
      if (!values.store) fs.rmSync(storeDir, { recursive: true, force: true });
      engine = await openEngine({ folder: dir, storeDir, config: { embed }, embedderOverride: explicit });
      process.stderr.write(`docs-rag: building a temporary index of ${set.corpus.length} documents in ${storeDir}\n`);
      const built = await buildBeirIndex(engine.store, engine.embedder, set, { onProgress: progress('indexing') });
      process.stderr.write(`\ndocs-rag: indexed ${built.passages} documents in ${(built.ms / 1000).toFixed(1)} s\n`);
    }
    run = (config, chatModel) =>
      evaluateBeir(createRetriever(engine, { config, chatModel, overrides, detect: detectLanguage }), set, {
        config,
        onProgress: progress(config),
      });
  } else {
    const folder = requireFolder(values.folder);
    const queryFile = path.resolve(values.queries!);
    if (!fs.existsSync(queryFile) || isFolder(queryFile)) throw new UsageError(`questions file not found: ${queryFile}`);
    const queries = loadWorkspaceQueries(queryFile);
    const qs = limit ? queries.slice(0, limit) : queries;
    const chunk = chunkOverrides(values['chunk-scale'], values['chunk-strategy']);
    const storeDir = path.resolve(values.store ?? cacheDir('ws', folder, { ...embed, ...chunk }));
    engine = await openEngine({
      folder,
      storeDir,
      config: { embed, chunk, ingest: { exclude: [...defaultExclude(), ...EVAL_EXCLUDE] } },
      embedderOverride: explicit,
    });
    const { indexFolder } = await import('../rag/index/indexer');
    const res = await indexFolder(engine, { full: values.reindex });
    if (res.errors.length) for (const e of res.errors) process.stderr.write(`docs-rag: not indexed: ${e.path}: ${e.reason}\n`);
    process.stderr.write(`docs-rag: index ${storeDir}: ${res.files} documents, ${res.chunks} passages (${res.unchanged} unchanged)\n`);
    answers = async (chatModel) => {
      const { evaluateAnswers } = await import('../rag/eval/evaluateAnswers');
      const config = configs[0];
      const report = await evaluateAnswers(qs, {
        retriever: createRetriever(engine, { config, chatModel, overrides, detect: detectLanguage }),
        chatModel: chatModel ?? null,
        judge: chatModel ?? null,
        embedder: engine.embedder,
        onProgress: progress('answers'),
      });
      const s = report.summary;
      if (values.json) printJson({ config, answers: s, ...(values['per-query'] ? { perQuery: report.perQuery } : {}) });
      else {
        process.stdout.write(
          `answers (${chatModel ? chatModel.id : 'extractive, no model'}; retrieval config ${config}): ${s.answered}/${s.questions} answered, ` +
            `key-fact coverage ${s.keyFactCoverage ?? '-'}, citation accuracy ${s.citationAccuracy ?? '-'}, citations on evidence ${s.citationsOnEvidence ?? '-'}, ` +
            `groundedness ${s.groundedness ?? '-'}, median ${s.medianMs} ms\n`,
        );
        for (const [lang, v] of Object.entries(s.byLang)) process.stdout.write(`  ${lang}: ${v.questions} questions, key facts ${v.keyFactCoverage ?? '-'}, citations ${v.citationAccuracy ?? '-'}\n`);
      }
    };
    run = (config, chatModel) =>
      evaluateWorkspace(createRetriever(engine, { config, chatModel, overrides, detect: detectLanguage }), qs, {
        config,
        match: { quoteEdges: values['quote-edges'] },
        onProgress: progress(config),
      });
  }

  try {
    const chatModel = await chatModelFrom(values, engine.config.embed.ollamaHost);
    if (values.answers && answers) {
      await answers(chatModel);
      return 0;
    }
    const reports: EvalReport[] = [];
    for (const config of configs) {
      reports.push(await run(config, chatModel));
      if (process.stderr.isTTY) process.stderr.write('\n');
    }
    if (!values.json) process.stdout.write(renderReports(reports, !!values['per-query']));
    if (values.json) {
      const out = reports.map((r, i) => ({
        ...summaryJson(r),
        ...(i > 0 ? { paired: { against: reports[0].config, ...roundPaired(pairedNdcg(reports[0], r)) } } : {}),
        ...(values['per-query'] ? { perQuery: r.perQuery } : {}),
      }));
      printJson(out.length === 1 ? out[0] : { configs: out });
    }
    return 0;
  } finally {
    await engine.close();
  }
}

/** Old names of renamed search settings (accepted by `--set`, with a note), mapped to the current ones. */
export const RENAMED_SEARCH_SETTINGS: Readonly<Record<string, keyof SearchSettings>> = {
  expansion: 'queryExpansion',
  expansionVariants: 'queryExpansionVariants',
  expansionThreshold: 'documentExpansionThreshold',
};

/**
 * `--set key=value` (repeatable): any SearchSettings field, value parsed as JSON when it parses, else a string. A renamed
 * setting's old name still works (with a note) unless its new name is given too.
 */
export function parseSets(list: string[], onNote: (message: string) => void = (m) => process.stderr.write(`docs-rag: ${m}\n`)): Partial<SearchSettings> {
  const out: Record<string, unknown> = {};
  const viaOldName: Record<string, unknown> = {};
  for (const item of list) {
    const eq = item.indexOf('=');
    if (eq < 1) throw new UsageError(`--set takes key=value, got "${item}"`);
    const given = item.slice(0, eq);
    const renamed = RENAMED_SEARCH_SETTINGS[given];
    const key = renamed ?? given;
    if (!(key in BASE_SETTINGS)) throw new UsageError(`--set: unknown setting "${given}"; known: ${Object.keys(BASE_SETTINGS).join(', ')}`);
    if (renamed) onNote(`--set ${given} is deprecated; it is now called ${renamed}`);
    const raw = item.slice(eq + 1);
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw;
    }
    (renamed ? viaOldName : out)[key] = value;
  }
  return { ...viaOldName, ...out } as Partial<SearchSettings>;
}

/** Chunk sizes scaled by a factor (size and overlap, every format) and/or another chunking strategy, for measurement. */
function chunkOverrides(scale: string | undefined, strategy: string | undefined): Partial<ChunkConfig> {
  const out: Partial<ChunkConfig> = {};
  if (scale !== undefined) {
    const f = Number(scale);
    if (!Number.isFinite(f) || f <= 0.1 || f > 10) throw new UsageError('--chunk-scale must be a number between 0.1 and 10');
    const sizes = { ...defaultConfig().chunk.sizes };
    for (const k of Object.keys(sizes) as (keyof typeof sizes)[]) sizes[k] = { size: Math.round(sizes[k].size * f), overlap: Math.round(sizes[k].overlap * f) };
    out.sizes = sizes;
  }
  if (strategy !== undefined) {
    if (strategy !== 'structural' && strategy !== 'semantic') throw new UsageError('--chunk-strategy must be structural or semantic');
    out.strategy = strategy;
  }
  return out;
}

function defaultExclude(): string[] {
  return ['**/node_modules/**', '**/.git/**', '**/.docs-rag/**'];
}

function resolveConfigs(name: string | undefined, haveChat: boolean): string[] {
  if (!name) return ['default'];
  if (name === 'all') return Object.keys(NAMED_CONFIGS).filter((c) => haveChat || !LLM_CONFIGS.has(c));
  const list = name.split(',').map((s) => s.trim());
  for (const c of list) if (!NAMED_CONFIGS[c]) throw new UsageError(`unknown --config "${c}"; use one of: ${Object.keys(NAMED_CONFIGS).join(', ')}, all`);
  return list;
}

/** A reusable temporary store per (dataset, embedder), so repeated evals do not rebuild the index. */
function cacheDir(kind: string, source: string, embed: Record<string, unknown>): string {
  const key = createHash('sha256').update(`${source}\n${JSON.stringify(embed)}`).digest('hex').slice(0, 12);
  return path.join(os.tmpdir(), 'docs-rag-eval', `${kind}-${path.basename(source)}-${key}`);
}

function f(x: number | undefined): string {
  return (x ?? 0).toFixed(3);
}

const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(4)}`;

function renderReports(reports: EvalReport[], perQuery: boolean): string {
  const lines: string[] = [];
  lines.push('| config | queries | nDCG@10 | R@5 | R@20 | MRR@10 | P@5 | MAP | p50 ms | p95 ms |');
  lines.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of reports) {
    const m = r.metrics;
    lines.push(`| ${r.config} | ${r.queries} | ${f(m['ndcg@10'])} | ${f(m['r@5'])} | ${f(m['r@20'])} | ${f(m['mrr@10'])} | ${f(m['p@5'])} | ${f(m.map)} | ${r.latency.p50_ms.toFixed(1)} | ${r.latency.p95_ms.toFixed(1)} |`);
  }
  for (const [title, key] of [['category', 'byCategory'], ['language', 'byLang'], ['style', 'byStyle']] as const) {
    const groups = [...new Set(reports.flatMap((r) => Object.keys(r[key])))];
    if (groups.length <= 1) continue;
    lines.push('', `nDCG@10 / R@20 by ${title}:`, '', `| config | ${groups.map((g) => `${g} (n=${reports[0][key][g]?.n ?? 0})`).join(' | ')} |`, `|---|${groups.map(() => '---').join('|')}|`);
    for (const r of reports) lines.push(`| ${r.config} | ${groups.map((g) => (r[key][g] ? `${f(r[key][g]['ndcg@10'])} / ${f(r[key][g]['r@20'])}` : '-')).join(' | ')} |`);
  }
  if (reports.length > 1) {
    lines.push(
      '',
      `nDCG@10 against ${reports[0].config}, question by question (95 % paired bootstrap interval of the mean difference; p: sign-flip test):`,
      '',
      '| config | difference | 95 % interval | p | better / worse |',
      '|---|---|---|---|---|',
    );
    for (const r of reports.slice(1)) {
      const d = roundPaired(pairedNdcg(reports[0], r));
      lines.push(`| ${r.config} | ${signed(d.mean)} | ${signed(d.low)} … ${signed(d.high)} | ${d.p.toFixed(2)} | ${d.wins} / ${d.losses} |`);
    }
  }
  const stageNames = [...new Set(reports.flatMap((r) => Object.keys(r.latency.stages)))];
  lines.push('', 'Latency per stage, p50 / p95 ms:', '', `| config | ${stageNames.join(' | ')} |`, `|---|${stageNames.map(() => '---').join('|')}|`);
  for (const r of reports) lines.push(`| ${r.config} | ${stageNames.map((s) => (r.latency.stages[s] ? `${r.latency.stages[s].p50_ms} / ${r.latency.stages[s].p95_ms}` : '-')).join(' | ')} |`);
  if (perQuery) {
    for (const r of reports) {
      lines.push('', `Per query (${r.config}):`);
      for (const q of r.perQuery) lines.push(`${q.id.padEnd(8)} ${q.category.padEnd(12)} ${q.style.padEnd(10)} nDCG ${f(q.metrics['ndcg@10'])} R@20 ${f(q.metrics['r@20'])} MRR ${f(q.metrics['mrr@10'])}`);
    }
  }
  const warned = reports.filter((r) => r.warnings > 0);
  for (const r of warned) lines.push('', `${r.config}: ${r.warnings} warnings from LLM stages (fell back to the model-free path)`);
  return `${lines.join('\n')}\n`;
}
