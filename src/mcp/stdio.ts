// The stdio transport of `docs-rag mcp`: newline-delimited JSON-RPC as the SDK's StdioServerTransport, except that a bad
// message gets a JSON-RPC error reply instead of ending the server. A line longer than MAX_MESSAGE_BYTES is skipped as it
// arrives (memory stays bounded by the limit) and answered with -32600; a line that is not JSON with -32700; a message
// that is not JSON-RPC with -32600. The id of such a message is recovered when it can be (the first or last member of
// the object), so the client's pending request fails at once instead of waiting for its timeout.
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The largest message read (bytes of one line), as the SDK's own stdio limit. */
export const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** Bytes kept from each end of a skipped line, to find its id. */
const EDGE = 256;

type Id = string | number;

export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;
  private head = '';
  private tail = Buffer.alloc(0);

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    private readonly maxBytes = MAX_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onError);
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.parts = [];
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  private readonly onError = (err: Error) => this.onerror?.(err);

  private readonly onData = (chunk: Buffer | string) => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let pos = 0;
    while (pos <= data.length) {
      const nl = data.indexOf(10, pos);
      const piece = data.subarray(pos, nl < 0 ? data.length : nl);
      if (this.skipping) this.keepTail(piece);
      else if (this.size + piece.length > this.maxBytes) {
        // Too long: keep only its two ends (to find the id) and skip the rest as it arrives.
        const start = Buffer.concat([...this.parts, piece.subarray(0, EDGE)]);
        this.head = start.subarray(0, EDGE).toString('utf8');
        this.parts = [];
        this.size = 0;
        this.skipping = true;
        this.tail = Buffer.alloc(0);
        this.keepTail(piece);
      } else if (piece.length) {
        this.parts.push(piece);
        this.size += piece.length;
      }
      if (nl < 0) break;
      if (this.skipping) {
        this.skipping = false;
        const id = findId(this.head, this.tail.toString('utf8'));
        this.reply(id, -32600, `Invalid request: the message is larger than ${this.maxBytes} bytes; it was not read.`);
      } else {
        const line = Buffer.concat(this.parts).toString('utf8');
        this.parts = [];
        this.size = 0;
        this.handleLine(line.endsWith('\r') ? line.slice(0, -1) : line);
      }
      pos = nl + 1;
    }
  };

  private keepTail(piece: Buffer): void {
    this.tail = Buffer.concat([this.tail, piece.subarray(Math.max(0, piece.length - EDGE))]);
    if (this.tail.length > EDGE) this.tail = this.tail.subarray(this.tail.length - EDGE);
  }

  private handleLine(line: string): void {
    if (!line.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.reply(undefined, -32700, 'Parse error: the message is not valid JSON.');
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = value && typeof value === 'object' && !Array.isArray(value) ? (value as { id?: unknown }).id : undefined;
      this.reply(typeof id === 'string' || typeof id === 'number' ? id : undefined, -32600, 'Invalid request: not a JSON-RPC 2.0 message.');
      return;
    }
    this.onmessage?.(parsed.data);
  }

  private reply(id: Id | undefined, code: number, message: string): void {
    this.onerror?.(new Error(message));
    // Without a known id the reply has none (the SDK's clients accept an error response without an id).
    void this.send({ jsonrpc: '2.0', ...(id !== undefined ? { id } : {}), error: { code, message } } as JSONRPCMessage);
  }
}

/** The id of a JSON-RPC object from its first or last bytes: the first member (`{"jsonrpc":"2.0","id":7,…`) or the last (`…,"id":7}`). */
function findId(head: string, tail: string): Id | undefined {
  const value = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*,/.exec(head)?.[1] ?? /,\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/.exec(tail)?.[1];
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value) as Id;
  } catch {
    return undefined;
  }
}
