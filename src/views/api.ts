// What `activate` returns: the extension's parts, for the extension tests (and other extensions) to observe.
import type { DocsService } from './docsService';
import type { DocsViewProvider } from './docsView';
import type { EngineHost } from './engineHost';
import type { EngineModules } from './engineModules';
import type { IndexingController } from './indexing';
import type { LocalModelOffer } from './localModel';
import type { DocsRagMcpProvider } from './mcpProvider';
import type { DocumentWatcher } from './watcher';

export interface DocsRagApi {
  /** How long `activate` took, in ms. */
  activationMs: number;
  /** Whether LanceDB was already loaded when `activate` returned (it should not be: it loads on first use). */
  engineLoadedAtActivation: boolean;
  host: EngineHost;
  service: DocsService;
  docsView: DocsViewProvider;
  watcher: DocumentWatcher;
  indexing: IndexingController;
  /** The offer of the multilingual search model (its answers, its events). */
  modelOffer: LocalModelOffer;
  /** The engine modules as this extension loaded them (lazily). */
  engineModules(): Promise<EngineModules>;
  /** What the extension does when workspace folders change or trust is granted: restart the watcher, background run. */
  restart(): Promise<void>;
  /** Resolves once the start-up background run (if any) has finished. */
  startup: Promise<void>;
  /** The MCP server definition provider, when this VS Code has the MCP API (undefined otherwise). */
  mcp?: DocsRagMcpProvider;
}
