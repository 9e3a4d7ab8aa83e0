// Retrieval tools for agentic answers, in the tool format shared by Ollama and VS Code (name, description,
// JSON-schema parameters): keyword_search, semantic_search, read_chunk. The runner numbers every passage it returns
// so the model can cite it as [n].
import type { IndexStore } from '../store/types';
import type { Embedder, Level, Passage, SearchHit, ToolCall, ToolSpec } from '../types';
import { renderSource } from './prompts';
import type { NumberedSource } from './types';

export const KEYWORD_SEARCH: ToolSpec = {
  name: 'keyword_search',
  description:
    "Full-text search over the user's indexed documents. Finds passages that contain the given words; best for names, " +
    'numbers, § references, setting and command names. Returns numbered passages with their id and location.',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'Words to search for, in the language of the documents.' },
      k: { type: 'integer', description: 'Number of passages to return (1-10, default 5).' },
    },
    required: ['query'],
  },
};

export const SEMANTIC_SEARCH: ToolSpec = {
  name: 'semantic_search',
  description:
    "Search by meaning over the user's indexed documents (embedding similarity). Best for paraphrased questions. " +
    'Returns numbered passages with their id and location.',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'A question or description of what to find.' },
      k: { type: 'integer', description: 'Number of passages to return (1-10, default 5).' },
    },
    required: ['query'],
  },
};

export const READ_CHUNK: ToolSpec = {
  name: 'read_chunk',
  description:
    'Reads one passage by its id (from a search result), optionally with the passages before and after it in the same document.',
  parameters: {
    type: 'object',
    properties: {
      id: { type: 'string', description: 'Passage id as shown in a search result.' },
      neighbours: { type: 'integer', description: 'How many passages before and after to include (0-3, default 0).' },
    },
    required: ['id'],
  },
};

export const AGENT_TOOLS: ToolSpec[] = [KEYWORD_SEARCH, SEMANTIC_SEARCH, READ_CHUNK];

export interface ToolContext {
  store: IndexStore;
  /** Needed by semantic_search; without it the tool answers with an error text the model can read. */
  embedder?: Embedder;
  /** Levels searched by the two search tools (default: passages and sections). */
  levels?: Level[];
  signal?: AbortSignal;
}

function clampInt(value: unknown, min: number, max: number, fallback: number): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : NaN;
  return Number.isFinite(n) ? Math.max(min, Math.min(max, Math.round(n))) : fallback;
}

/** Runs tool calls against the store; keeps the numbered sources seen so far. */
export class ToolRunner {
  readonly sources: NumberedSource[] = [];
  private readonly numberOf = new Map<string, number>();
  /** Counts per tool (for the trace). */
  readonly calls: Record<string, number> = {};

  constructor(private readonly ctx: ToolContext) {}

  /** Gives a passage its number (the same one each time it comes back). */
  number(p: Passage): number {
    let n = this.numberOf.get(p.id);
    if (n === undefined) {
      n = this.sources.length + 1;
      this.numberOf.set(p.id, n);
      this.sources.push({ n, passage: p });
    }
    return n;
  }

  /** Renders passages as numbered <source> elements carrying their id. */
  render(passages: Passage[]): string {
    if (passages.length === 0) return 'No passages found.';
    return passages
      .map((p) => renderSource(this.number(p), p).replace(/^<source n="(\d+)"/, `<source n="$1" id="${p.id.replace(/"/g, '')}"`))
      .join('\n');
  }

  async run(call: ToolCall): Promise<string> {
    this.calls[call.name] = (this.calls[call.name] ?? 0) + 1;
    const args = call.arguments ?? {};
    try {
      switch (call.name) {
        case 'keyword_search': {
          const query = String(args.query ?? '').trim();
          if (!query) return 'Error: keyword_search needs a non-empty "query".';
          const hits = await this.ctx.store.fullTextSearch(query, { k: clampInt(args.k, 1, 10, 5), levels: this.ctx.levels ?? [1, 2] });
          return this.render(hits.map((h: SearchHit) => h.passage));
        }
        case 'semantic_search': {
          const query = String(args.query ?? '').trim();
          if (!query) return 'Error: semantic_search needs a non-empty "query".';
          if (!this.ctx.embedder) return 'Error: semantic search is not available for this index; use keyword_search.';
          const [vector] = await this.ctx.embedder.embedQueries([query], this.ctx.signal);
          const hits = await this.ctx.store.vectorSearch(vector, { k: clampInt(args.k, 1, 10, 5), levels: this.ctx.levels ?? [1, 2] });
          return this.render(hits.map((h) => h.passage));
        }
        case 'read_chunk': {
          const id = String(args.id ?? '').trim();
          if (!id) return 'Error: read_chunk needs an "id" from a search result.';
          const [p] = await this.ctx.store.getPassages([id]);
          if (!p) return `Error: no passage with id "${id}". Use an id from a search result.`;
          const k = clampInt(args.neighbours, 0, 3, 0);
          if (k === 0) return this.render([p]);
          const all = await this.ctx.store.getFilePassages(p.path, [p.level]);
          const i = all.findIndex((x) => x.id === p.id);
          return this.render(i < 0 ? [p] : all.slice(Math.max(0, i - k), i + k + 1));
        }
        default:
          return `Error: unknown tool "${call.name}". Available: ${AGENT_TOOLS.map((t) => t.name).join(', ')}.`;
      }
    } catch (err) {
      if (this.ctx.signal?.aborted) throw err;
      return `Error: ${call.name} failed: ${err instanceof Error ? err.message : String(err)}`;
    }
  }
}
