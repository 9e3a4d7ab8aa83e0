// docs-rag mcp --folder <folder>: serves the folder's index to MCP clients (Claude Code, Cursor, Continue, VS Code agent
// mode) over stdio. stdout carries the protocol only; logs go to stderr. See src/mcp/ for the server and its tools.
import { IndexAccess } from '../mcp/indexAccess';
import { connectServer, createMcpServer } from '../mcp/server';
import { StdioLineTransport } from '../mcp/stdio';
import { DocsRagTools } from '../mcp/tools';
import { FolderWatcher } from '../mcp/watch';
import { MCP_PATH, serveHttp } from '../mcp/http';
import type { DocsRagTools as Tools } from '../mcp/tools';
import { UsageError, parse, indexedFolder, resolveStore } from './common';
import { ReadOnlyStoreError, looksLikeUri } from '../rag/store/remote';
import { INGEST_FLAGS, ingestOverrides } from './ingestOptions';
import { prepareLocalModel } from './localModel';
import { embedOverrides, translateOverride } from './searchOptions';
import { version } from '../../package.json';

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    folder: { type: 'string' },
    store: { type: 'string' },
    model: { type: 'string' },
    'ollama-host': { type: 'string' },
    embedder: { type: 'string' },
    'embed-model': { type: 'string' },
    watch: { type: 'boolean' },
    quiet: { type: 'boolean' },
    http: { type: 'string' },
    translate: { type: 'string' },
    ...INGEST_FLAGS,
  });
  if (positionals.length) throw new UsageError(`mcp takes no positional arguments (got ${positionals.map((p) => JSON.stringify(p)).join(' ')}); use --folder <folder>`);
  const folder = indexedFolder(values.folder, values.store);
  const { embed } = embedOverrides({ embedder: values.embedder, model: values['embed-model'], 'ollama-host': values['ollama-host'] });
  await prepareLocalModel(embed);

  const log = values.quiet ? () => undefined : (m: string) => process.stderr.write(`docs-rag mcp: ${m}\n`);
  const storeDir = resolveStore(folder, values.store);
  const remote = looksLikeUri(storeDir);
  if (remote && values.watch) throw new UsageError(`--watch: ${new ReadOnlyStoreError(storeDir).message}`);
  const access = new IndexAccess({ folder, storeDir, config: { embed, ingest: ingestOverrides(values) }, embedderOverride: embed.provider !== undefined, settingsFromIndex: true, log });
  const translate = translateOverride(values.translate).translateQuestion;
  const tools = new DocsRagTools({ access, model: values.model, ollamaHost: values['ollama-host'], translate, log });
  const server = createMcpServer(tools, version, log);
  const watcher = values.watch ? new FolderWatcher(access, { log }) : null;
  let port: number | undefined;
  if (values.http !== undefined) {
    port = Number(values.http);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--http takes a port number (0 picks a free one), got "${values.http}"`);
  }

  // A remote store's small files come into their local mirror when it is opened: before the first "is there an index?".
  if (remote) await access.use(async () => undefined, { requireIndex: false });
  if (port !== undefined) return serveOverHttp(tools, access, watcher, port, log);
  const transport = new StdioLineTransport();
  let resolveDone!: () => void;
  const done = new Promise<void>((r) => (resolveDone = r));
  let closing = false;
  const shutdown = async (why: string) => {
    if (closing) return;
    closing = true;
    log(`stopping (${why})`);
    try {
      await watcher?.stop();
      await server.close().catch(() => undefined);
      await access.close();
    } finally {
      resolveDone();
    }
  };
  server.onclose = () => void shutdown('the client closed the connection');
  server.onerror = (err) => log(`protocol error: ${err.message}`);
  process.stdin.once('end', () => void shutdown('stdin closed'));
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  await connectServer(server, transport);
  log(`serving ${folder} (index ${storeDir}${access.hasIndex() ? '' : ', not built yet'})${watcher ? ', watching for changes' : ''}`);
  watcher?.start();
  await done;
  return 0;
}

/** --http PORT: Streamable HTTP on 127.0.0.1 until SIGINT/SIGTERM. Prints the endpoint URL as the first stdout line. */
async function serveOverHttp(tools: Tools, access: IndexAccess, watcher: FolderWatcher | null, port: number, log: (m: string) => void): Promise<number> {
  const server = await serveHttp(tools, port, version, log);
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  process.stdout.write(`http://127.0.0.1:${actual}${MCP_PATH}\n`);
  log(`serving ${access.folder} over Streamable HTTP at http://127.0.0.1:${actual}${MCP_PATH} (loopback only)${watcher ? ', watching for changes' : ''}`);
  watcher?.start();
  await new Promise<void>((resolve) => {
    const stop = (why: string) => {
      log(`stopping (${why})`);
      server.close();
      server.closeAllConnections();
      resolve();
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  await watcher?.stop();
  await access.close();
  return 0;
}
