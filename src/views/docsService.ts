// What every surface (chat participant, Docs view, commands, LM tool) calls: search across all workspace folders and
// answer with citations. Maps passages back to their workspace folder and to VS Code locations.
import * as vscode from 'vscode';
import type { AnswerStage } from '../rag/answer/types';
import type { SearchSettings } from '../rag/search/configs';
import type { RetrievalResult, Retriever, RetrieveOptions } from '../rag/search/types';
import type { ChatModel, Passage, SearchHit, TraceSpan } from '../rag/types';
import type { EngineHost } from './engineHost';
import { loadEngineModules } from './engineModules';
import { errorMessage, formatTrace, type Log } from './log';
import { locationLabel, type Locator } from './locations';
import { readSettings, type DocsRagSettings } from './settings';
import { edgesByHit, type HitEdge } from './hitLinks';
import { compareLocalCopy } from '../rag/index/localCopy';

export interface FolderHit {
  folder: vscode.WorkspaceFolder;
  hit: SearchHit;
}

export interface ResolvedHit extends FolderHit {
  location: vscode.Location;
  label: string;
  /** "Page 3" etc. for extracted text. */
  note?: string;
}

export function searchOverrides(s: DocsRagSettings): Partial<SearchSettings> {
  return {
    alpha: s.hybridAlpha ?? undefined,
    queryExpansion: s.queryExpansion ? 'multi-query' : 'off',
    rerank: s.rerank,
    translateQuestion: s.translateQuestion,
    links: s.followLinks,
    enableDocumentExpansion: s.enableDocumentExpansion,
    maxDocumentsToExpand: s.maxDocumentsToExpand,
    maxChunksPerDocument: s.maxChunksPerDocument,
    documentExpansionThreshold: s.documentExpansionThreshold,
  };
}

/**
 * A retriever over every workspace folder: runs each folder's retriever and merges the hits by score.
 * Remembers which folder each passage came from so citations open the right file.
 */
export class MultiFolderRetriever implements Retriever {
  readonly folderOf = new Map<string, vscode.WorkspaceFolder>();

  constructor(private readonly parts: { folder: vscode.WorkspaceFolder; retriever: Retriever }[]) {}

  async retrieve(query: string, options: RetrieveOptions = {}): Promise<RetrievalResult> {
    const results = await Promise.all(this.parts.map(async (p) => ({ p, r: await p.retriever.retrieve(query, options) })));
    if (results.length === 1) {
      const { p, r } = results[0];
      for (const h of r.hits) this.folderOf.set(h.passage.id, p.folder);
      for (const c of r.context?.passages ?? []) this.folderOf.set(c.passage.id, p.folder);
      return r;
    }
    const hits: SearchHit[] = [];
    const trace: TraceSpan[] = [];
    const warnings: string[] = [];
    for (const { p, r } of results) {
      for (const h of r.hits) {
        this.folderOf.set(h.passage.id, p.folder);
        hits.push(h);
      }
      for (const c of r.context?.passages ?? []) this.folderOf.set(c.passage.id, p.folder);
      trace.push(...r.trace.map((s) => ({ ...s, name: `${p.folder.name}:${s.name}` })));
      warnings.push(...r.warnings);
    }
    hits.sort((a, b) => b.score - a.score);
    const k = options.k;
    return { hits: k ? hits.slice(0, k) : hits, analysis: results[0]?.r.analysis ?? { query, lang: 'other', type: 'factual', multiHop: false, exactTokens: [], levels: [1, 2], flow: 'chunk', alpha: 0.5 }, trace, warnings };
  }
}

export interface AskCitation {
  n: number;
  hit: ResolvedHit;
}

export interface AskOutcome {
  answer: string;
  mode: string;
  model: string | null;
  citations: AskCitation[];
  notes: string[];
  unsupported: string[];
}

/** How a status line shows each stage of answering, in VS Code's display language. */
export function answerStageLabel(stage: ViewStage): string {
  switch (stage) {
    case 'searching':
      return vscode.l10n.t('Searching…');
    case 'searching-with-model':
      return vscode.l10n.t('Searching with the model…');
    case 'generating':
      return vscode.l10n.t('Generating…');
    case 'checking-citations':
      return vscode.l10n.t('Checking citations…');
    case 'translating':
      return vscode.l10n.t('Translating the question…');
  }
}

export interface AskOptions {
  chatModel?: ChatModel;
  /** Why there is no model (Restricted Mode, none configured). */
  noModelNote?: string;
  signal?: AbortSignal;
  flow?: 'chunk' | 'summary';
  onStage?: (stage: ViewStage) => void;
  /** Streamed answer text with [n] markers. */
  onToken?: (text: string) => void;
  /** The exact numbered sources of the answer, resolved to locations, before any text that cites them is streamed. */
  onSources?: (sources: AskCitation[]) => void;
  /** Called before the extractive answer (quoted document text) is streamed, also after a model failure mid-answer. */
  onExtractive?: () => void;
}

/** Most passages given to the model (fewer when its context window is small). */
const MAX_SOURCES = 16;

export class DocsService {
  constructor(
    readonly host: EngineHost,
    readonly locator: Locator,
    private readonly log: Log,
  ) {}

  /** Retriever over all folders, with the settings and (optionally) a chat model for expansion / reranking. */
  async retriever(chatModel?: ChatModel): Promise<MultiFolderRetriever> {
    const parts = [];
    for (const { folder, engine } of await this.host.openEngines()) {
      const overrides = searchOverrides(readSettings(folder));
      parts.push({ folder, retriever: engine.retriever({ config: 'default', chatModel, overrides }) });
    }
    return new MultiFolderRetriever(parts);
  }

  async search(
    query: string,
    o: { k?: number; chatModel?: ChatModel; signal?: AbortSignal; flow?: 'chunk' | 'summary'; onStage?: (stage: ViewStage) => void } = {},
  ): Promise<{ hits: ResolvedHit[]; result: RetrievalResult }> {
    const retriever = await this.retriever(reportingTranslation(o.chatModel, o.onStage));
    // Hits only: the answer context (augmentation, token budget) is built by ask(), not for a list of passages.
    const result = await retriever.retrieve(query, { k: o.k ?? 10, signal: o.signal, flow: o.flow, context: false });
    this.log.info(formatTrace(`search (${result.hits.length} hits)`, result.trace));
    for (const w of result.warnings) this.log.warn(`search: ${w}`);
    const hits = await Promise.all(result.hits.map((hit) => this.resolve(retriever.folderOf.get(hit.passage.id), hit)));
    return { hits: hits.filter((h): h is ResolvedHit => !!h), result };
  }

  /**
   * The reference-graph edges of the hits (what each links to / what links to it), the other ends resolved to locations.
   * An index without links gives none.
   */
  async links(hits: ResolvedHit[], perHit = 6): Promise<Map<ResolvedHit, (HitEdge & { target: ResolvedHit })[]>> {
    const out = new Map<ResolvedHit, (HitEdge & { target: ResolvedHit })[]>();
    for (const { folder, engine } of await this.host.openEngines()) {
      const mine = hits.filter((h) => h.folder.uri.toString() === folder.uri.toString());
      if (mine.length === 0) continue;
      const ids = mine.map((h) => h.hit.passage.id);
      const links = await engine.store.linksOf(ids);
      const byHit = edgesByHit(ids, links, perHit);
      const others = new Map((await engine.store.getPassages([...new Set([...byHit.values()].flat().map((e) => e.other))])).map((p) => [p.id, p]));
      for (const h of mine) {
        const list: (HitEdge & { target: ResolvedHit })[] = [];
        for (const e of byHit.get(h.hit.passage.id) ?? []) {
          const passage = others.get(e.other);
          const target = passage && (await this.resolve(folder, { passage, score: 0 }));
          if (target) list.push({ ...e, target });
        }
        out.set(h, list);
      }
    }
    return out;
  }

  async resolve(folder: vscode.WorkspaceFolder | undefined, hit: SearchHit): Promise<ResolvedHit | undefined> {
    const f = folder ?? this.host.folders()[0];
    if (!f) return undefined;
    const location = await this.locator.locate(f, hit.passage);
    return { folder: f, hit, location, label: `${this.label(f, hit.passage)}${await this.copyNote(f, hit.passage)}`, note: pageNote(hit.passage) };
  }

  /**
   * A team's index (docsRag.store) quotes the builder's files: a citation of a file that differs in this folder, or is
   * not in it, says so (compared by the content hash the index recorded).
   */
  private async copyNote(folder: vscode.WorkspaceFolder, p: Passage): Promise<string> {
    if (!this.host.teamStore(folder)) return '';
    const copy = await compareLocalCopy(folder.uri.fsPath, p.path, p.fileHash);
    if (copy === 'same') return '';
    return ` — ${copy === 'differs' ? vscode.l10n.t('your copy differs from the indexed one') : vscode.l10n.t('not in your folder')}`;
  }

  /** Answers with citations: the model's answer (streamed) or, without a model, the extractive answer. */
  async ask(question: string, o: AskOptions = {}): Promise<AskOutcome> {
    const { answer } = await loadEngineModules();
    const multi = await this.retriever(reportingTranslation(o.chatModel, o.onStage));
    const resolveCache = new Map<string, Promise<ResolvedHit | undefined>>();
    const retrieved = new Map<string, Passage>();
    const resolvePassage = (p: Passage): Promise<ResolvedHit | undefined> => {
      let r = resolveCache.get(p.id);
      if (!r) {
        r = this.resolve(multi.folderOf.get(p.id), { passage: p, score: 0 });
        resolveCache.set(p.id, r);
      }
      return r;
    };
    const retriever: Retriever = {
      retrieve: async (q, options) => {
        const result = await multi.retrieve(q, { ...options, flow: o.flow ?? options?.flow });
        for (const h of result.hits) retrieved.set(h.passage.id, h.passage);
        for (const c of result.context?.passages ?? []) retrieved.set(c.passage.id, c.passage);
        return result;
      },
    };
    // The answer stage tells the exact numbered sources before it streams text that cites them (again after a retry
    // or a fallback to the extractive answer). Their locations resolve asynchronously, so streamed text waits in order
    // behind the latest resolution: every [n] reaches the UI after the source it names.
    let sourcesReady: Promise<void> = Promise.resolve();
    let delivered: Promise<void> = Promise.resolve();
    const onSources = (list: { n: number; passage: Passage }[]) => {
      sourcesReady = (async () => {
        const resolved = await Promise.all(list.map(async (s) => ({ n: s.n, hit: await resolvePassage(s.passage) })));
        o.onSources?.(resolved.filter((c): c is AskCitation => !!c.hit));
      })().catch((err: unknown) => this.log.warn(`could not resolve the cited sources: ${errorMessage(err)}`));
    };
    const onToken = (text: string) => {
      const ready = sourcesReady;
      delivered = delivered.then(() => ready).then(() => o.onToken?.(text));
    };
    const first = (await this.host.openEngines())[0];
    const settings = readSettings();
    const result = await answer.answerQuestion(question, {
      retriever,
      chatModel: o.chatModel ?? null,
      noModelNote: o.noModelNote,
      embedder: this.host.folders().length === 1 ? first?.engine.embedder : undefined,
      maxSources: MAX_SOURCES,
      length: settings.answerLength,
      signal: o.signal,
      onSources,
      onToken,
      onStage: o.onStage,
      onExtractive: o.onExtractive,
    });
    await delivered;
    this.log.info(formatTrace(`answer (${result.mode}, ${result.citations.length} citations)`, result.trace));
    const citations: AskCitation[] = [];
    for (const c of result.citations) {
      const passage = retrieved.get(c.passageId);
      const hit = passage ? await resolvePassage(passage) : undefined;
      if (hit) citations.push({ n: c.n, hit });
    }
    return { answer: result.answer, mode: result.mode, model: result.model, citations, notes: result.notes, unsupported: result.unsupported };
  }

  label(folder: vscode.WorkspaceFolder, passage: Passage): string {
    const multi = this.host.folders().length > 1;
    return `${multi ? `${folder.name}/` : ''}${locationLabel(passage)}`;
  }
}

/** The stage while the chat model translates the question for the search (before the answer's own stages). */
export const TRANSLATING_STAGE = 'translating';
/** What the views report as progress: the answer's stages and the question's translation. */
export type ViewStage = AnswerStage | typeof TRANSLATING_STAGE;

/** The model the search calls, reporting its translation call (`purpose`) as a stage; everything else passes through. */
export function reportingTranslation(model: ChatModel | undefined, onStage?: (stage: ViewStage) => void): ChatModel | undefined {
  if (!model || !onStage) return model;
  return {
    id: model.id,
    contextWindow: model.contextWindow,
    countTokens: model.countTokens ? (text, signal) => model.countTokens!(text, signal) : undefined,
    chat: (messages, options) => {
      if (options?.purpose === 'translate-question') onStage(TRANSLATING_STAGE);
      return model.chat(messages, options);
    },
  };
}

export function pageNote(p: Passage): string | undefined {
  if (!p.loc.page) return undefined;
  return p.loc.pageEnd && p.loc.pageEnd !== p.loc.page ? vscode.l10n.t('pages {0}-{1}', p.loc.page, p.loc.pageEnd) : vscode.l10n.t('page {0}', p.loc.page);
}

