import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { SSE_HEADERS, sseEvent } from "./http-answers";
import { messageBody } from "./message-body";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  LATEST_PROTOCOL_VERSION,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";

/**
 * The downstream side of one MCP 2026-07-28 request: a transport that lives for a single request. The proxy
 * server connected to it answers that request and nothing else; its answer goes out as plain JSON, or as an
 * SSE stream when a notification related to the request (progress, a log message the request asked for) comes
 * first. There is no session, no GET stream, and no server-to-client request on the wire: when an upstream asks
 * the client something (sampling, elicitation, roots) while serving the call, the POST is answered with an
 * `input_required` result carrying those requests, the call is held, and the client's retry (`attach` +
 * `answer`) hands the answers back to the waiting upstream; the retry's POST then gets the call's next answer.
 */
export interface Exchange2026Options {
  /** The final answer as this revision's client gets it (results reshaped, error codes mapped). */
  shape(message: JSONRPCMessage & { id: RequestId }): JSONRPCMessage;
  /** Whether a notification related to the request reaches the client (log messages per the request's level). */
  relay(message: JSONRPCMessage & { method: string }): boolean;
  /**
   * The call is to be held for the client's input: the `requestState` the client echoes on its retry. Without
   * it, input requests cannot be answered (the server gets an error at once).
   */
  hold?(): string;
}

/** What an `input_required` result asks for, by the keys the client answers under. */
export type InputRequests = Record<string, { method: string; params?: Record<string, unknown> }>;

/** -32021: the request needs a client capability its `_meta` did not declare (an upstream may say so too). */
const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

/**
 * The HTTP status of a final answer, as the revision requires: 404 for a method the server does not serve, 400
 * for a missing client capability.
 */
function statusOf(message: JSONRPCMessage): number {
  if (!("error" in message)) return 200;
  if (message.error.code === ErrorCode.MethodNotFound) return 404;
  return message.error.code === MISSING_REQUIRED_CLIENT_CAPABILITY ? 400 : 200;
}

interface Attached {
  res: ServerResponse;
  /** The id the client sent this POST under (a retry has its own). */
  id: RequestId;
  sse: boolean;
  streaming: boolean;
}

export class Exchange2026 implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** Settles once the request has its final answer (sent, or produced after its client went away). */
  readonly done: Promise<void>;

  private current: Attached | undefined;
  private finished = false;
  private settle!: () => void;
  /** Input requests the server is waiting on: key → the server's own request id, and what it asked. */
  private readonly pending = new Map<string, { serverId: RequestId; request: InputRequests[string] }>();
  private nextKey = 0;
  private flushScheduled = false;
  /** The id of the initialize it replays (never one a client could have chosen for its request). */
  private readonly initId = `switchboard-initialize-${randomUUID()}`;

  constructor(
    res: ServerResponse,
    /** The id the client sent the request under. */
    readonly requestId: RequestId,
    sse: boolean,
    private readonly options: Exchange2026Options,
  ) {
    this.done = new Promise((resolve) => (this.settle = resolve));
    this.attach(res, requestId, sse);
  }

  async start(): Promise<void> {}

  /** Whether input requests are outstanding (the call is held for the client's retry). */
  get waiting(): boolean {
    return !this.finished && this.pending.size > 0;
  }

  /**
   * Tells the server what the client can answer, as an initialize would: the revision carries client
   * capabilities per request, the 2025 engine reads them from its handshake.
   */
  initialize(capabilities: Record<string, unknown>, clientInfo: { name: string; version: string }): void {
    this.onmessage?.({
      jsonrpc: "2.0",
      id: this.initId,
      method: "initialize",
      params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities, clientInfo },
    });
  }

  /** Hands the request to the server (once). */
  dispatch(message: JSONRPCMessage, extra: MessageExtraInfo): void {
    this.onmessage?.(message, extra);
  }

  /** A retry's POST: it gets the call's next answer (the result, or more input requests). */
  attach(res: ServerResponse, id: RequestId, sse: boolean): void {
    const earlier = this.current;
    if (earlier && !earlier.res.destroyed) {
      // Two retries of one held call: the newer one gets what comes next; the older one is told so, not left open.
      this.current = undefined;
      this.write(earlier, {
        jsonrpc: "2.0",
        id: earlier.id,
        error: { code: ErrorCode.InvalidRequest, message: "A newer retry of this request took over; read its answer" },
      });
    }
    const attached: Attached = { res, id, sse, streaming: false };
    this.current = attached;
    res.once("close", () => {
      if (this.current !== attached) return;
      this.current = undefined;
      // Closing the response stream cancels the request (2026-07-28, Cancellation); a call held for input is
      // not: its POST was answered, the client retries later.
      if (this.finished || this.pending.size > 0) return;
      this.finished = true;
      this.onmessage?.({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: this.requestId } });
      this.settle();
    });
  }

  /**
   * The client's `inputResponses` on its retry: each answer goes to the server request it answers; unknown keys
   * are ignored. When something asked for is still unanswered, the retry gets an `input_required` for it again.
   */
  answer(responses: Record<string, unknown>): void {
    for (const [key, response] of Object.entries(responses)) {
      const asked = this.pending.get(key);
      if (!asked || typeof response !== "object" || response === null) continue;
      this.pending.delete(key);
      this.onmessage?.({ jsonrpc: "2.0", id: asked.serverId, result: response as Record<string, unknown> });
    }
    if (this.pending.size > 0) this.scheduleFlush();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.finished) return;
    if (!("method" in message)) {
      if (!("id" in message) || message.id === this.initId || message.id !== this.requestId) return;
      return this.finish(message as JSONRPCMessage & { id: RequestId });
    }
    if ("id" in message) return this.ask(message as JSONRPCMessage & { id: RequestId; method: string });
    if (message.method === "notifications/cancelled") {
      // The server stopped waiting for something it asked (the upstream gave up): no longer asked for.
      const requestId = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      for (const [key, asked] of this.pending) if (asked.serverId === requestId) this.pending.delete(key);
      return;
    }
    // A notification unrelated to this request (list_changed): this revision delivers none on a request's stream.
    if (options?.relatedRequestId !== this.requestId) return;
    const current = this.current;
    if (!current?.sse || current.res.destroyed || !this.options.relay(message)) return;
    if (!current.streaming) {
      current.streaming = true;
      current.res.writeHead(200, SSE_HEADERS);
    }
    current.res.write(sseEvent(message));
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

  /** A request the server sends the client while serving the call: asked for in an `input_required` result. */
  private ask(message: JSONRPCMessage & { id: RequestId; method: string }): void {
    if (!this.options.hold) {
      this.onmessage?.({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: ErrorCode.InvalidRequest, message: `The client cannot answer ${message.method} here` },
      });
      return;
    }
    const { method } = message;
    const params = (message as { params?: Record<string, unknown> }).params;
    this.pending.set(`input-${this.nextKey++}`, {
      serverId: message.id,
      request: params ? { method, params } : { method },
    });
    this.scheduleFlush();
  }

  /** Requests asked together (in the same turn) go out in one `input_required` result. */
  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      const current = this.current;
      if (this.finished || this.pending.size === 0 || !current || current.res.destroyed) return;
      const inputRequests: InputRequests = {};
      for (const [key, { request }] of this.pending) inputRequests[key] = request;
      const result = { resultType: "input_required", inputRequests, requestState: this.options.hold!() };
      this.current = undefined;
      this.write(current, { jsonrpc: "2.0", id: current.id, result });
    });
  }

  private finish(message: JSONRPCMessage & { id: RequestId }): void {
    this.finished = true;
    const current = this.current;
    this.current = undefined;
    if (current && !current.res.destroyed) this.write(current, this.options.shape({ ...message, id: current.id }));
    this.settle();
  }

  private write(to: Attached, message: JSONRPCMessage): void {
    if (to.streaming) {
      to.res.end(sseEvent(message));
      return;
    }
    const body = messageBody(message);
    to.res.writeHead(statusOf(message), {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body),
    });
    to.res.end(body);
  }
}

/**
 * One proxy server for many 2026-07-28 requests: a transport that stays connected to a member's proxy server and
 * carries each request's exchange over it under an id of its own (clients choose theirs, and two may choose the
 * same one), as a 2025-11-25 session carries its requests. What the server sends goes to the exchange of the
 * request it answers or relates to; a request's cancellation reaches the server under the shared id.
 *
 * For requests whose client answers nothing (exchanges without `hold`): what the server asks the client is
 * refused at once, by the exchange of the call it relates to or here.
 */
export class Mux2026 implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;

  private readonly exchanges = new Map<string, Exchange2026>();
  private next = 0;
  private closed = false;

  async start(): Promise<void> {}

  /** Requests in progress. */
  get size(): number {
    return this.exchanges.size;
  }

  /** Hands a request to the server; its answer, and what relates to it, go to `exchange`. */
  dispatch(exchange: Exchange2026, message: JSONRPCMessage & { id: RequestId }, extra: MessageExtraInfo): void {
    if (this.closed) {
      void exchange.close();
      return;
    }
    const id = `switchboard-2026-${this.next++}`;
    this.exchanges.set(id, exchange);
    exchange.onmessage = (sent, sentExtra) => {
      // The exchange's cancellation names the client's id; anything else it sends (the refusal of a server
      // request) carries the server's own id already.
      if ("method" in sent && sent.method === "notifications/cancelled") {
        this.exchanges.delete(id);
        sent = { ...sent, params: { ...sent.params, requestId: id } };
      }
      this.onmessage?.(sent, sentExtra);
    };
    void exchange.done.then(() => {
      if (this.exchanges.get(id) === exchange) this.exchanges.delete(id);
    });
    this.onmessage?.({ ...message, id }, extra);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (!("method" in message)) {
      // A final answer: to the request it answers, under the client's id (none left: the client went away).
      const id = "id" in message ? message.id : undefined;
      const exchange = typeof id === "string" ? this.exchanges.get(id) : undefined;
      if (!exchange) return;
      this.exchanges.delete(id as string);
      return exchange.send({ ...message, id: exchange.requestId } as JSONRPCMessage);
    }
    const related = options?.relatedRequestId;
    const exchange = typeof related === "string" ? this.exchanges.get(related) : undefined;
    if ("id" in message) {
      if (exchange) return exchange.send(message, options);
      this.onmessage?.({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: ErrorCode.InvalidRequest, message: `The client cannot answer ${message.method} here` },
      });
      return;
    }
    // A notification related to none of the requests in progress (list_changed, or one whose client left).
    if (!exchange) return;
    return exchange.send(message, { ...options, relatedRequestId: exchange.requestId });
  }

  /** Ends the requests still in progress (each answered that it ended) and the server's connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const open = [...this.exchanges.values()];
    this.exchanges.clear();
    await Promise.all(open.map((exchange) => exchange.close()));
    this.onclose?.();
  }
}
