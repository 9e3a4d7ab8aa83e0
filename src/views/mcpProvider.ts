// Registers `docs-rag mcp` with VS Code's MCP support (agent mode, MCP-aware extensions): one stdio server per workspace
// folder, serving the index this extension keeps for that folder (its workspace-storage store, kept current by the
// extension's own watcher). Only in trusted workspaces: in Restricted Mode no server is offered, and the list is
// offered again when trust is granted. The MCP API is newer than our @types/vscode (1.100), so it is looked up at
// run time and described by the small types below; without it nothing is registered.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { serverSpecs, type FolderInfo, type McpServerSpec } from '../mcp/serverSpec';

export const MCP_PROVIDER_ID = 'docsRag.mcpServers';

// ---- the parts of the VS Code MCP API (1.101+) used here ----
interface McpStdioServerDefinitionCtor {
  new (label: string, command: string, args?: string[], env?: Record<string, string | number | null>, version?: string): { cwd?: vscode.Uri };
}
interface McpProvider {
  onDidChangeMcpServerDefinitions: vscode.Event<void>;
  provideMcpServerDefinitions(token: vscode.CancellationToken): unknown[];
  resolveMcpServerDefinition(server: unknown, token: vscode.CancellationToken): unknown;
}
type RegisterFn = (id: string, provider: McpProvider) => vscode.Disposable;

export class DocsRagMcpProvider implements McpProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeMcpServerDefinitions = this.changed.event;
  private readonly subscriptions: vscode.Disposable[] = [this.changed];
  /** How often VS Code asked for the definitions (for tests and the log). */
  provided = 0;

  constructor(
    private readonly extensionPath: string,
    private readonly storeDirFor: (folder: vscode.WorkspaceFolder) => string,
    private readonly Definition: McpStdioServerDefinitionCtor,
    private readonly version: string,
  ) {
    this.subscriptions.push(
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.changed.fire()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.changed.fire()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('docsRag.ollama') || e.affectsConfiguration('docsRag.chatModel')) this.changed.fire();
      }),
    );
  }

  specs(): McpServerSpec[] {
    const folders = (vscode.workspace.workspaceFolders ?? [])
      .filter((f) => f.uri.scheme === 'file')
      .map((f): FolderInfo => {
        const c = vscode.workspace.getConfiguration('docsRag', f.uri);
        return {
          name: f.name,
          fsPath: f.uri.fsPath,
          storeDir: this.storeDirFor(f),
          ollamaHost: c.get<string>('ollama.host') || undefined,
          chatModel: c.get<string>('chatModel') === 'ollama' ? c.get<string>('ollama.chatModel') || undefined : undefined,
        };
      });
    return serverSpecs(folders, vscode.workspace.isTrusted, this.extensionPath);
  }

  provideMcpServerDefinitions(): unknown[] {
    this.provided++;
    return this.specs().map((s) => {
      const d = new this.Definition(s.label, s.command, s.args, {}, this.version);
      d.cwd = vscode.Uri.file(s.cwd);
      return d;
    });
  }

  /** Right before VS Code starts a server: still trusted, and the CLI is there. */
  resolveMcpServerDefinition(server: unknown): unknown {
    if (!vscode.workspace.isTrusted) return undefined;
    if (!fs.existsSync(path.join(this.extensionPath, 'dist', 'cli.js'))) return undefined;
    return server;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }
}

/** Registers the provider when this VS Code has the MCP API; returns undefined (and registers nothing) otherwise. */
export function registerMcpProvider(context: vscode.ExtensionContext, storeDirFor: (folder: vscode.WorkspaceFolder) => string): DocsRagMcpProvider | undefined {
  const lm = vscode.lm as unknown as { registerMcpServerDefinitionProvider?: RegisterFn };
  const Definition = (vscode as unknown as { McpStdioServerDefinition?: McpStdioServerDefinitionCtor }).McpStdioServerDefinition;
  if (typeof lm?.registerMcpServerDefinitionProvider !== 'function' || typeof Definition !== 'function') return undefined;
  const version = String((context.extension?.packageJSON as { version?: string } | undefined)?.version ?? '0.0.0');
  const provider = new DocsRagMcpProvider(context.extensionUri.fsPath, storeDirFor, Definition, version);
  context.subscriptions.push(provider, lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, provider));
  return provider;
}
