import type { ServerResponse } from "node:http";
import {
  ErrorCode,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { jsonRpcError } from "./jsonrpc";
import { messageBody } from "./message-body";

/**
 * How the session transport (http-transport.ts) writes its HTTP answers: a JSON-RPC error as the whole answer,
 * and one POST's exchange, which answers in plain JSON unless something related to its requests comes first and
 * turns it into an SSE stream.
 */

const SESSION_CLOSED = -32000;

/** What the server sends: its own messages, shaped by the SDK, so a shallow look is enough. */
export function isResponse(message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId } {
  return !("method" in message) && ("result" in message || "error" in message);
}

/** The answer to a request the session can no longer answer. */
export function sessionClosed(id: RequestId): JSONRPCMessage {
  return { jsonrpc: "2.0", id, error: { code: SESSION_CLOSED, message: "Session closed" } };
}

/** An SSE answer's headers (every stream the route and the bridge open): never cached, never buffered by a proxy. */
export const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

export function sseEvent(message: JSONRPCMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/** Writes an error as the whole HTTP answer (a JSON-RPC error object, with the request's id when known). */
export function writeJsonRpcError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  id: RequestId | null = null,
): void {
  writeJsonRpcErrors(res, status, jsonRpcError(id, code, message), headers);
}

/** What a POST without a session that is not an `initialize` is answered (the route's sessions and the bridge's). */
export const SESSION_REQUIRED_MESSAGE =
  "Bad Request: Mcp-Session-Id header is required (or send an initialize request)";

/** Refuses a POST without a session that is not an `initialize`: 400, -32600, with the request's id when it has one. */
export function writeSessionRequired(res: ServerResponse, id: RequestId | null = null): void {
  writeJsonRpcError(res, 400, ErrorCode.InvalidRequest, SESSION_REQUIRED_MESSAGE, {}, id);
}

/** Writes one JSON-RPC error, or a batch's errors, as the whole HTTP answer. */
export function writeJsonRpcErrors(
  res: ServerResponse,
  status: number,
  errors: JSONRPCErrorResponse | JSONRPCErrorResponse[],
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify(errors);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** What one POST with requests in it is waiting for, and how it answers. */
export class PostExchange {
  private readonly pending: Set<RequestId>;
  private readonly collected: JSONRPCMessage[] = [];
  private streaming = false;
  private done = false;

  constructor(
    private readonly res: ServerResponse,
    ids: RequestId[],
    private readonly batch: boolean,
    private readonly sseAllowed: boolean,
    private readonly headers: Record<string, string>,
  ) {
    this.pending = new Set(ids);
  }

  get open(): boolean {
    return !this.done && !this.res.destroyed;
  }

  /** A notification or server request tied to one of this POST's requests. */
  related(message: JSONRPCMessage): void {
    if (!this.open || !this.sseAllowed) return;
    if (!this.streaming) {
      this.streaming = true;
      this.res.writeHead(200, { ...SSE_HEADERS, ...this.headers });
      for (const earlier of this.collected) this.res.write(sseEvent(earlier));
      this.collected.length = 0;
    }
    this.res.write(sseEvent(message));
  }

  /** The answer to one of its requests; the POST ends once every request has one. */
  answer(id: RequestId, message: JSONRPCMessage): boolean {
    if (!this.pending.delete(id)) return false;
    if (!this.open) return true;
    if (this.streaming) this.res.write(sseEvent(message));
    else this.collected.push(message);
    if (this.pending.size === 0) this.finish();
    return true;
  }

  /** Whether a message related to its requests reaches the client now (an SSE answer it still reads). */
  get streamable(): boolean {
    return this.open && this.sseAllowed;
  }

  waitsFor(id: RequestId): boolean {
    return this.pending.has(id);
  }

  outstanding(): RequestId[] {
    return [...this.pending];
  }

  private finish(): void {
    this.done = true;
    if (this.streaming) {
      this.res.end();
      return;
    }
    const body = this.batch ? JSON.stringify(this.collected) : messageBody(this.collected[0]);
    this.res.writeHead(200, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
      ...this.headers,
    });
    this.res.end(body);
  }
}
