// `docs-rag mcp --http PORT`: the same tools over Streamable HTTP at http://127.0.0.1:PORT/mcp, for clients that keep one
// local daemon. Bound to 127.0.0.1 only. Against DNS rebinding (a web page whose host name was re-pointed to 127.0.0.1),
// a request is refused (403) unless its Host header names this loopback port and its Origin, when present, is a
// loopback origin. Stateless: each POST gets its own SDK server and transport over the shared index access.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { connectServer, createMcpServer } from './server';
import type { DocsRagTools } from './tools';

export const MCP_PATH = '/mcp';

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** Whether Host (and Origin, if sent) point at this loopback server; browsers cannot forge either. */
export function allowedRequest(headers: http.IncomingHttpHeaders, port: number): { ok: true } | { ok: false; reason: string } {
  const host = headers.host;
  if (!host || !LOOPBACK_NAMES.map((n) => `${n}:${port}`).includes(host.toLowerCase())) return { ok: false, reason: `Host header "${host ?? ''}" is not this local server` };
  const origin = headers.origin;
  if (origin !== undefined) {
    let u: URL | null = null;
    try {
      u = new URL(origin);
    } catch {
      u = null;
    }
    if (!u || !['http:', 'https:'].includes(u.protocol) || !LOOPBACK_NAMES.includes(u.hostname.toLowerCase() === '::1' ? '[::1]' : u.hostname.toLowerCase())) {
      return { ok: false, reason: `Origin "${origin}" is not a local origin` };
    }
  }
  return { ok: true };
}

function reply(res: http.ServerResponse, status: number, message: string, code = -32000): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

async function readBody(req: http.IncomingMessage, limit = 4 * 1024 * 1024): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > limit) throw new Error('request body too large');
    chunks.push(c as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

export async function serveHttp(tools: DocsRagTools, port: number, version: string, log?: (m: string) => void): Promise<http.Server> {
  let actualPort = port;
  const server = http.createServer((req, res) => {
    void (async () => {
      const check = allowedRequest(req.headers, actualPort);
      if (!check.ok) {
        log?.(`refused an HTTP request: ${check.reason}`);
        return reply(res, 403, `Forbidden: ${check.reason}`);
      }
      const url = new URL(req.url ?? '/', `http://127.0.0.1:${actualPort}`);
      if (url.pathname !== MCP_PATH) return reply(res, 404, `Not found; the MCP endpoint is ${MCP_PATH}`);
      if (req.method !== 'POST') {
        res.setHeader('allow', 'POST');
        return reply(res, 405, 'Method not allowed: this stateless server takes POST only');
      }
      let body: unknown;
      try {
        body = await readBody(req);
      } catch (err) {
        return reply(res, 400, `Parse error: ${err instanceof Error ? err.message : String(err)}`, -32700);
      }
      const mcp = createMcpServer(tools, version, log);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close();
        void mcp.close();
      });
      await connectServer(mcp, transport);
      await transport.handleRequest(req, res, body);
    })().catch((err) => {
      log?.(`HTTP request failed: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) reply(res, 500, 'Internal error', -32603);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  actualPort = (server.address() as AddressInfo).port;
  return server;
}
