/**
 * The MCP server's stdio transport: newline-delimited JSON-RPC, as the SDK's
 * own, except at its edges. A line over the size bound is refused (a
 * JSON-RPC error naming the bound, to its id when the line's head carries
 * one, and a line on stderr) and the server goes on serving; the SDK's
 * transport closes the connection silently instead. A line that is not
 * JSON-RPC is answered with a parse error rather than dropped.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** The SDK's own bound on one message. */
export const MAX_LINE_BYTES = 10 * 1024 * 1024;
/** How much of an oversized line's head and tail is kept, to find its id in. */
const EDGE_BYTES = 4096;
const NEWLINE = 0x0a;

type Id = string | number | null;

export class LineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  #chunks: Buffer[] = [];
  #size = 0;
  /** While a line over the bound is being skipped: its head and tail (where its id is) and how long it is. */
  #skipping: { head: Buffer; tail: Buffer; bytes: number } | null = null;
  #closed = false;

  constructor(
    private readonly log: (line: string) => void,
    /** Every frame written passes it, as its JSON text (the redactor keeps JSON valid). */
    private readonly redact: (text: string) => string = (text) => text,
    private readonly maxBytes = MAX_LINE_BYTES,
  ) {}

  async start(): Promise<void> {
    process.stdin.on("data", this.#onData);
    process.stdin.on("error", (e) => this.onerror?.(e));
  }

  #onData = (chunk: Buffer): void => {
    for (let at = 0; at < chunk.length; ) {
      const nl = chunk.indexOf(NEWLINE, at);
      const piece = chunk.subarray(at, nl < 0 ? chunk.length : nl);
      at = nl < 0 ? chunk.length : nl + 1;
      this.#take(piece);
      if (nl >= 0) this.#endLine();
    }
  };

  #take(piece: Buffer): void {
    if (this.#skipping) {
      this.#skipping.bytes += piece.length;
      this.#skipping.tail = Buffer.concat([this.#skipping.tail, piece]).subarray(-EDGE_BYTES);
      return;
    }
    this.#chunks.push(piece);
    this.#size += piece.length;
    if (this.#size <= this.maxBytes) return;
    const whole = Buffer.concat(this.#chunks);
    this.#skipping = { head: whole.subarray(0, EDGE_BYTES), tail: whole.subarray(-EDGE_BYTES), bytes: whole.length };
    this.#chunks = [];
    this.#size = 0;
  }

  #endLine(): void {
    if (this.#skipping) {
      const { head, tail, bytes } = this.#skipping;
      this.#skipping = null;
      // A client writes the id first or last (the SDK's: last, after the params).
      const id = idIn(head.toString("utf8")) ?? idIn(tail.toString("utf8"), true);
      return this.#refuse(id, -32600, `the message is ${bytes} bytes; at most ${this.maxBytes} are read`);
    }
    const line = Buffer.concat(this.#chunks).toString("utf8").replace(/\r$/, "");
    this.#chunks = [];
    this.#size = 0;
    if (!line.trim()) return;
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (e) {
      return this.#refuse(
        idIn(line.slice(0, EDGE_BYTES)) ?? idIn(line.slice(-EDGE_BYTES), true),
        -32700,
        `not a JSON-RPC message: ${(e as Error).message.split("\n")[0]!.slice(0, 200)}`,
      );
    }
    this.onmessage?.(message);
  }

  #refuse(id: Id, code: number, message: string): void {
    this.log(`refused a message${id === null ? "" : ` (id ${JSON.stringify(id)})`}: ${message}`);
    void this.send({ jsonrpc: "2.0", id, error: { code, message } } as unknown as JSONRPCMessage);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (process.stdout.write(`${this.redact(JSON.stringify(message))}\n`)) resolve();
      else process.stdout.once("drain", resolve);
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    process.stdin.off("data", this.#onData);
    process.stdin.pause();
    this.onclose?.();
  }
}

/** The request id a line's edge names (its first, or with `last` its last), if it can be read there. */
function idIn(edge: string, last = false): Id {
  const all = [...edge.matchAll(/"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/g)];
  const m = last ? all.at(-1) : all[0];
  if (!m) return null;
  try {
    return JSON.parse(m[1]!) as Id;
  } catch {
    return null;
  }
}
