// The rules behind the VS Code MCP server definitions (src/mcp/serverSpec.ts, used by src/views/mcpProvider.ts):
// nothing in Restricted Mode, one server per folder serving the extension's store, a Node binary that really is Node,
// and a command line that starts a working server (launched here through the SDK client).
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { nodeCommand, serverSpecs, type FolderInfo } from '../../src/mcp/serverSpec';

const ROOT = path.resolve(__dirname, '../..');

describe('MCP server definitions for VS Code', () => {
  const folders: FolderInfo[] = [
    { name: 'docs', fsPath: '/ws/docs', storeDir: '/storage/index/docs-1' },
    { name: 'laws', fsPath: '/ws/laws', storeDir: '/storage/index/laws-2', ollamaHost: 'http://127.0.0.1:11434', chatModel: 'qwen2.5:7b-instruct' },
  ];

  it('offers no server in Restricted Mode', () => {
    assert.deepEqual(serverSpecs(folders, false, '/ext', 'node'), []);
  });

  it('offers one stdio server per trusted folder: node <extension>/dist/cli.js mcp --folder F --store S', () => {
    const specs = serverSpecs(folders, true, '/ext', '/usr/bin/node');
    assert.equal(specs.length, 2);
    assert.deepEqual(specs[0], {
      label: 'Docs RAG: docs',
      command: '/usr/bin/node',
      args: [path.join('/ext', 'dist', 'cli.js'), 'mcp', '--folder', '/ws/docs', '--store', '/storage/index/docs-1', '--quiet'],
      cwd: '/ws/docs',
    });
    assert.deepEqual(specs[1].args.slice(-4), ['--ollama-host', 'http://127.0.0.1:11434', '--model', 'qwen2.5:7b-instruct']);
    assert.equal(serverSpecs(folders.slice(0, 1), true, '/ext', 'node')[0].label, 'Docs RAG');
  });

  it('runs the CLI with the extension host binary only when it is Node, else with node from PATH', () => {
    assert.equal(nodeCommand('/opt/code-server/lib/node', { node: '20.19.0' }), '/opt/code-server/lib/node');
    assert.equal(nodeCommand('/usr/share/code/code', { node: '20.19.0', electron: '35.5.1' }), 'node');
    assert.equal(nodeCommand('C:\\Program Files\\Microsoft VS Code\\Code.exe', { node: '20.19.0', electron: '35.5.1' }), 'node');
    assert.equal(nodeCommand('/usr/share/code/code', { node: '20.19.0' }), 'node', 'an unknown binary is not trusted to be Node');
    assert.equal(nodeCommand(), process.execPath, 'under mocha the binary is Node itself');
  });

  it('the command line starts a server that answers tools/list', async function () {
    this.timeout(120_000);
    const build = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(build.status, 0, build.stderr);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-spec-'));
    try {
      fs.writeFileSync(path.join(tmp, 'a.md'), '# A\n\nText.\n');
      const [spec] = serverSpecs([{ name: 'a', fsPath: tmp, storeDir: path.join(tmp, 'store') }], true, ROOT, nodeCommand());
      const client = new Client({ name: 'spec-test', version: '0' });
      await client.connect(new StdioClientTransport({ command: spec.command, args: spec.args, cwd: spec.cwd, stderr: 'pipe' }));
      try {
        const { tools } = await client.listTools();
        assert.deepEqual(tools.map((t) => t.name).sort(), ['ask', 'read', 'search', 'status']);
        const status = await client.callTool({ name: 'status', arguments: {} });
        assert.equal((status.structuredContent as { indexed: boolean }).indexed, false);
      } finally {
        await client.close();
      }
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
