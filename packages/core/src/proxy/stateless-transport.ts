import type { ServerResponse } from "node:http";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";

/**
 * The downstream side of one MCP 2026-07-28 request: a transport that lives for a single POST. The proxy
 * server connected to it answers that request and nothing else; its answer goes out as plain JSON, or as an
 * SSE stream when a notification related to the request (progress, a log message the request asked for) comes
 * first. Nothing outlives the POST: no session, no GET stream, no server-to-client requests (the revision has
 * none; input a call needs comes back as an `input_required` result instead).
 */
export interface StatelessExchangeOptions {
  /** Whether the client reads SSE (its Accept lists text/event-stream). */
  sse: boolean;
  /** The final answer as this revision's client gets it (results reshaped, error codes mapped). */
  shape(message: JSONRPCMessage & { id: RequestId }): JSONRPCMessage;
  /** Whether a notification related to the request reaches the client (log messages per the request's level). */
  relay(message: JSONRPCMessage & { method: string }): boolean;
}

const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};

function sseEvent(message: JSONRPCMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/** The HTTP status of a final answer: 404 for a method the server does not serve, as the revision requires. */
function statusOf(message: JSONRPCMessage): number {
  return "error" in message && message.error.code === ErrorCode.MethodNotFound ? 404 : 200;
}

export class StatelessExchange implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** Settles once the request is answered or its client has gone. */
  readonly done: Promise<void>;

  private streaming = false;
  private finished = false;
  private settle!: () => void;

  constructor(
    private readonly res: ServerResponse,
    private readonly requestId: RequestId,
    private readonly options: StatelessExchangeOptions,
  ) {
    this.done = new Promise((resolve) => (this.settle = resolve));
    res.once("close", () => {
      if (this.finished) return;
      // Closing the response stream cancels the request (2026-07-28, Cancellation).
      this.finished = true;
      this.onmessage?.({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } });
      this.settle();
    });
  }

  async start(): Promise<void> {}

  /** Hands the request to the server (once). */
  dispatch(message: JSONRPCMessage, extra: MessageExtraInfo): void {
    this.onmessage?.(message, extra);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.finished || this.res.destroyed) return;
    if (!("method" in message)) {
      if (!("id" in message) || message.id !== this.requestId) return;
      return this.finish(this.options.shape(message as JSONRPCMessage & { id: RequestId }));
    }
    // A request of the server's own, or a notification unrelated to this request (list_changed): this revision
    // delivers neither on a request's stream.
    if ("id" in message || options?.relatedRequestId !== this.requestId) return;
    if (!this.options.sse || !this.options.relay(message)) return;
    if (!this.streaming) {
      this.streaming = true;
      this.res.writeHead(200, SSE_HEADERS);
    }
    this.res.write(sseEvent(message));
  }

  async close(): Promise<void> {
    if (!this.finished) {
      this.finish({
        jsonrpc: "2.0",
        id: this.requestId,
        error: { code: ErrorCode.InternalError, message: "The request ended before it was answered; send it again" },
      });
    }
    this.onclose?.();
  }

  private finish(message: JSONRPCMessage): void {
    this.finished = true;
    if (this.streaming) {
      this.res.end(sseEvent(message));
    } else {
      const body = JSON.stringify(message);
      this.res.writeHead(statusOf(message), {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
      });
      this.res.end(body);
    }
    this.settle();
  }
}
