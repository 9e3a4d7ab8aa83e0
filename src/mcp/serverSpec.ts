// How VS Code launches `docs-rag mcp` for a workspace folder (used by src/views/mcpProvider.ts; no `vscode` import, so
// the trust rule and the command line are unit-tested without an editor).
import * as path from 'node:path';

/** What one server definition holds, independent of the VS Code classes (unit-testable). */
export interface McpServerSpec {
  label: string;
  command: string;
  args: string[];
  cwd: string;
}

export interface FolderInfo {
  name: string;
  fsPath: string;
  storeDir: string;
  ollamaHost?: string;
  chatModel?: string;
}

/**
 * The Node binary that runs dist/cli.js. The extension host's `process.execPath` is a real Node only when VS Code runs
 * the host on plain Node (remote/server hosts); in desktop VS Code it is the Electron app binary, which would start the
 * editor, not Node. Then `node` from PATH (the CLI needs Node 20+, and the same ABI for LanceDB's native module).
 */
export function nodeCommand(execPath: string = process.execPath, versions: Readonly<Record<string, string | undefined>> = process.versions): string {
  if (versions.electron) return 'node';
  const base = path.basename(execPath).toLowerCase();
  return base === 'node' || base === 'node.exe' ? execPath : 'node';
}

/** One stdio server per folder, launched as `node <extension>/dist/cli.js mcp --folder <folder> --store <store>`; none when untrusted. */
export function serverSpecs(folders: readonly FolderInfo[], trusted: boolean, extensionPath: string, command: string = nodeCommand()): McpServerSpec[] {
  if (!trusted) return [];
  const cli = path.join(extensionPath, 'dist', 'cli.js');
  return folders.map((f) => {
    const args = [cli, 'mcp', '--folder', f.fsPath, '--store', f.storeDir, '--quiet'];
    if (f.ollamaHost) args.push('--ollama-host', f.ollamaHost);
    if (f.chatModel) args.push('--model', f.chatModel);
    return { label: folders.length > 1 ? `Docs RAG: ${f.name}` : 'Docs RAG', command, args, cwd: f.fsPath };
  });
}

