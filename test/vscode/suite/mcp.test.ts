// The MCP server definition provider in a real VS Code: registered in the (trusted) test workspace, asked by VS Code for
// its servers, and the server it defines is started by VS Code itself (`node dist/cli.js mcp ...`) and lists its tools.
// Restricted Mode cannot be entered in the test host (it runs with workspace trust disabled = trusted); the untrusted
// rule is covered by test/unit/mcp.serverSpec.test.ts.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { api, folder, waitUntil } from './helpers';

describe('MCP server definition provider', () => {
  before(async () => {
    await (await api()).host.idle();
  });

  it('is registered in a trusted workspace and VS Code asked it for one server per folder', async () => {
    const a = await api();
    assert.equal(vscode.workspace.isTrusted, true);
    assert.ok(a.mcp, 'this VS Code has the MCP API, so the provider is registered');
    await waitUntil('VS Code to ask for the server definitions', () => a.mcp!.provided > 0, 10_000);
    const specs = a.mcp!.specs();
    assert.equal(specs.length, vscode.workspace.workspaceFolders?.length);
    const spec = specs[0];
    const f = folder();
    assert.equal(spec.args[0], path.join(vscode.extensions.getExtension('docs-rag.docs-rag')!.extensionPath, 'dist', 'cli.js'));
    assert.deepEqual(spec.args.slice(1, 6), ['mcp', '--folder', f.uri.fsPath, '--store', a.host.storeDirFor(f)]);
    const defs = a.mcp!.provideMcpServerDefinitions() as { label: string; command: string; args: string[] }[];
    assert.equal(defs.length, specs.length);
    assert.equal(defs[0].command, spec.command);
    assert.deepEqual(defs[0].args, spec.args);
  });

  it('VS Code starts the defined server and gets its tools', async function () {
    this.timeout(120_000);
    await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { waitForLiveTools: true });
    const names = await waitUntil(
      'the Docs RAG MCP tools in vscode.lm.tools',
      () => {
        const mine = vscode.lm.tools.filter((t) => /(^|[_.-])(search|read|ask|status)$/.test(t.name) && t.name !== 'docs_search' && /mcp|docs/i.test(t.name));
        return mine.length >= 4 ? mine.map((t) => t.name) : null;
      },
      60_000,
      500,
    ).catch((err: Error) => {
      throw new Error(`${err.message}; tools: ${vscode.lm.tools.map((t) => t.name).join(', ')}`);
    });
    for (const t of ['search', 'read', 'ask', 'status']) assert.ok(names.some((n) => n.endsWith(t)), `${t} in ${names.join(', ')}`);
  });
});
