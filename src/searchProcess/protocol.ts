// Messages between the extension host and its search process (src/searchProcess/main.ts), over Node's IPC channel with
// the 'advanced' serialization (structured clone: Float32Array vectors and Maps pass as they are). Neutral: imports
// neither `vscode` nor the engine's modules (types only).
import type { FolderSpec } from '../indexProcess/protocol';
import type { SearchSettings } from '../rag/search/configs';
import type { RetrieveOptions } from '../rag/search/types';
import type { ChatMessage, ChatOptions, ChatResponse, EmbedderInfo } from '../rag/types';
import type { IndexMeta } from '../rag/store/types';

/** The store reads the host may ask for (IndexStore methods of the same name and arguments). */
export const STORE_READS = ['listFiles', 'countPassages', 'getPassages', 'getFilePassages', 'linksOf', 'fullTextSearch'] as const;
export type StoreRead = (typeof STORE_READS)[number];

/** What the host knows of an opened reader: enough for status and the answer stage without asking again. */
export interface ReaderInfo {
  embedder: EmbedderInfo;
  meta: IndexMeta | null;
  warnings: string[];
}

/** A chat model of the host (a VS Code language model, Ollama) the search process may call while it retrieves. */
export interface RemoteChatSpec {
  id: string;
  contextWindow: number;
  countTokens: boolean;
}

/** RetrieveOptions without functions and signals: the token counter is the host's, asked for over the channel. */
export type RemoteRetrieveOptions = Omit<RetrieveOptions, 'signal' | 'countTokens'> & { countTokens?: boolean };

export type ToSearch =
  /** Opens (or reopens, when `generation` is new) the reader of one index. */
  | { type: 'open'; id: number; generation: number; spec: FolderSpec }
  | { type: 'close'; id: number; generation: number }
  | { type: 'read'; id: number; generation: number; method: StoreRead; args: unknown[] }
  | { type: 'embed'; id: number; generation: number; texts: string[]; queries: boolean }
  | {
      type: 'retrieve';
      id: number;
      generation: number;
      query: string;
      options: RemoteRetrieveOptions;
      config: string;
      overrides: Partial<SearchSettings>;
      chat?: RemoteChatSpec;
    }
  | { type: 'cancel'; id: number }
  /** The host's answer to a `chat` or `countTokens` request of the child. */
  | { type: 'hostResult'; callId: number; value: unknown }
  | { type: 'hostError'; callId: number; name: string; message: string; kind?: string }
  | { type: 'shutdown' };

export type FromSearch =
  | { type: 'ready'; pid: number }
  /** `meta` rides along with every answer so the host's synchronous `meta()` stays current. */
  | { type: 'result'; id: number; value: unknown; meta?: IndexMeta | null }
  | { type: 'error'; id: number; name: string; message: string }
  /** The retriever of request `id` calls the host's chat model. */
  | { type: 'chat'; id: number; callId: number; messages: ChatMessage[]; options: Omit<ChatOptions, 'signal' | 'onToken'> }
  | { type: 'countTokens'; id: number; callId: number; text: string }
  /** A chat or count call of request `id` is no longer needed (the request was cancelled or ended). */
  | { type: 'cancelHost'; callId: number }
  | { type: 'log'; level: 'info' | 'warn' | 'error'; message: string };

export type { ChatResponse };
