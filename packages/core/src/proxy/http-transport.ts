import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { traceRequest, type TracedRequest } from "../telemetry";
import {
  isResponse,
  PostExchange,
  sessionClosed,
  SSE_HEADERS,
  sseEvent,
  writeJsonRpcError,
  writeJsonRpcErrors,
} from "./http-answers";
import { INVALID_REQUEST, jsonRpcError, JsonRpcPost, REQUEST_CANCELLED, validateJsonRpcBody } from "./jsonrpc";
import { invalidParamsError } from "./params";

/**
 * The downstream side of MCP Streamable HTTP for one session, written against Node's own `http` objects.
 *
 * The SDK's web-standard transport builds a Request, a ReadableStream and an SSE stream for every POST; on the
 * proxy's hot path that was most of a call's cost. This one answers a request with plain JSON when nothing
 * else is sent for it, and switches that POST to an SSE stream only when a notification (progress, logging)
 * comes first, which the specification allows per response. Server-initiated messages unrelated to a request
 * (list_changed) go to the session's GET stream when the client opened one.
 *
 * Authentication, origin checks, body limits and finding the session are the caller's job; this class takes
 * already-parsed JSON, validated here against the SDK's message schemas unless the caller already did
 * (`validateJsonRpcBody`), so that every request it hands the SDK is one the SDK answers.
 */
export interface HttpSessionTransportOptions {
  sessionId: string;
  /** A client's DELETE: the session is over for good (the caller forgets it wherever it is stored). */
  onDelete?: () => void | Promise<void>;
  /** Comment lines on the GET stream so that idle proxies do not cut it (ms; 0 disables). */
  keepAliveMs?: number;
  /**
   * Requests the server sends its client (sampling, elicitation, roots) go out under ids `${prefix}${n}`, unique
   * to this process, and come back to the server under its own ids. A client may post its answer to another
   * gateway process: an answer under an id with a prefix that is not ours goes to `onForeignResponse`, for the host
   * to hand to the process that asked (which calls `acceptResponse`).
   */
  requestIdPrefix?: string;
  onForeignResponse?: (message: JSONRPCMessage & { id: string }) => void;
}

/** The shape of the ids `requestIdPrefix` gives server-to-client requests (`sb.<process>.<n>`). */
export const SERVER_REQUEST_ID = /^sb\.[A-Za-z0-9_-]{1,64}\.\d{1,15}$/;

export class HttpSessionTransport implements Transport {
  readonly sessionId: string;
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;

  private readonly exchanges = new Map<RequestId, PostExchange>();
  private readonly internal = new Map<RequestId, (message: JSONRPCMessage) => void>();
  private standalone: ServerResponse | undefined;
  private keepAlive: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly headers: Record<string, string>;
  /** Server-to-client requests in flight: the id the client sees, and the server's own. */
  private readonly outgoing = new Map<string, RequestId>();
  private readonly outgoingByServerId = new Map<RequestId, string>();
  private nextOutgoing = 0;
  /** The spans of the client's requests in progress (only when tracing is on), ended by their answers. */
  private readonly traced = new Map<RequestId, TracedRequest>();

  constructor(private readonly options: HttpSessionTransportOptions) {
    this.sessionId = options.sessionId;
    this.headers = { "mcp-session-id": options.sessionId };
  }

  async start(): Promise<void> {}

  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * One HTTP request of this session. For POST, `body` is the parsed JSON (the caller read and size-checked it).
   */
  async handle(req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void> {
    if (this.closed) return writeJsonRpcError(res, 404, -32001, "Session not found; initialize a new session");
    const version = req.headers["mcp-protocol-version"];
    if (typeof version === "string" && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
      return writeJsonRpcError(
        res,
        400,
        INVALID_REQUEST,
        `Unsupported MCP-Protocol-Version ${version} (supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")})`,
      );
    }
    switch (req.method) {
      case "POST":
        return this.post(req, res, body);
      case "GET":
        return this.get(req, res);
      case "DELETE":
        try {
          await this.options.onDelete?.();
        } catch (error) {
          // The client is done with the session either way; the host hears why its cleanup failed.
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        }
        await this.close();
        res.writeHead(200, this.headers).end();
        return;
      default:
        return writeJsonRpcError(res, 405, INVALID_REQUEST, "Method not allowed", { allow: "GET, POST, DELETE" });
    }
  }

  /**
   * Hands a message to the server as if the client had sent it and resolves with the server's answer; used to
   * rebuild a session on a process that did not see its initialize request.
   */
  replay(message: JSONRPCMessage & { id: RequestId }): Promise<JSONRPCMessage> {
    if (this.closed || !this.onmessage) return Promise.resolve(sessionClosed(message.id));
    return new Promise((resolve) => {
      this.internal.set(message.id, resolve);
      this.onmessage!(message);
    });
  }

  /**
   * Whether a message sent now reaches the client: on the response stream of request `related` (when given and
   * still open), else on the session's GET stream. A request that reaches nobody would only wait for its timeout.
   */
  canReach(related?: RequestId): boolean {
    if (this.closed) return false;
    if (related !== undefined && this.exchanges.get(related)?.streamable) return true;
    return this.standalone !== undefined && !this.standalone.destroyed;
  }

  /** A client's answer to one of this process's server-to-client requests, received by another process. */
  acceptResponse(message: JSONRPCMessage): void {
    if (this.closed || !isResponse(message) || typeof message.id !== "string" || !this.outgoing.has(message.id)) return;
    this.deliver(message, undefined);
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const prefix = this.options.requestIdPrefix;
    if (prefix !== undefined && "method" in message) {
      if ("id" in message) {
        const wireId = `${prefix}${this.nextOutgoing++}`;
        this.outgoing.set(wireId, message.id);
        this.outgoingByServerId.set(message.id, wireId);
        message = { ...message, id: wireId };
      } else if (message.method === "notifications/cancelled") {
        // The server cancels its own request: the client knows it by the id it was sent under.
        const params = message.params as { requestId?: RequestId } | undefined;
        const wireId = params?.requestId === undefined ? undefined : this.outgoingByServerId.get(params.requestId);
        if (wireId !== undefined) {
          this.forgetOutgoing(wireId);
          message = { ...message, params: { ...params, requestId: wireId } };
          // Usually sent because the call it was asked for ended, whose stream the client no longer reads.
          if (this.standalone && !this.standalone.destroyed) {
            this.standalone.write(sseEvent(message));
            return;
          }
        }
      }
    }
    if (isResponse(message)) {
      const id = message.id;
      this.endTrace(id, message);
      const replayed = this.internal.get(id);
      if (replayed) {
        this.internal.delete(id);
        return replayed(message);
      }
      const exchange = this.exchanges.get(id);
      if (!exchange) return; // The client went away before its answer was ready.
      this.exchanges.delete(id);
      exchange.answer(id, message);
      return;
    }
    const related = options?.relatedRequestId;
    const exchange = related === undefined ? undefined : this.exchanges.get(related);
    if (exchange?.open) return exchange.related(message);
    if (related !== undefined) return; // Its request is answered or its client gone: nowhere to say it.
    if (this.standalone && !this.standalone.destroyed) this.standalone.write(sseEvent(message));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.keepAlive);
    for (const [id, exchange] of this.exchanges) exchange.answer(id, sessionClosed(id));
    this.exchanges.clear();
    for (const id of [...this.traced.keys()]) this.endTrace(id, sessionClosed(id));
    for (const [id, resolve] of this.internal) resolve(sessionClosed(id));
    this.internal.clear();
    this.standalone?.end();
    this.standalone = undefined;
    this.onclose?.();
  }

  private post(req: IncomingMessage, res: ServerResponse, body: unknown): void {
    let post: JsonRpcPost;
    if (body instanceof JsonRpcPost) post = body;
    else {
      const validation = validateJsonRpcBody(body);
      if (!validation.ok) return writeJsonRpcErrors(res, 400, validation.body, this.headers);
      post = validation.post;
    }
    const { messages } = post;
    const ids = post.requestIds();
    // Answers are routed by id: a second request under an id still in progress would take the first one's answer
    // and leave one of the two POSTs waiting forever.
    const busy = ids.find((id) => this.exchanges.has(id) || this.internal.has(id));
    if (busy !== undefined) {
      return writeJsonRpcError(
        res,
        400,
        INVALID_REQUEST,
        `Invalid Request: a request with id ${JSON.stringify(busy)} is still in progress in this session`,
        this.headers,
        post.batch ? null : busy,
      );
    }
    const accept = req.headers.accept ?? "";
    const extra: MessageExtraInfo = {
      requestInfo: { headers: req.headers as IncomingHttpHeaders & Record<string, string> },
    };
    if (ids.length === 0) {
      res.writeHead(202, this.headers).end();
      for (const message of messages) this.deliver(message, extra);
      return;
    }
    // Without text/event-stream in Accept the client gets JSON only (notifications for its requests are dropped).
    const exchange = new PostExchange(res, ids, post.batch, /text\/event-stream|\*\/\*/.test(accept), this.headers);
    for (const id of ids) this.exchanges.set(id, exchange);
    res.once("close", () => {
      // The client hung up: later answers for this POST have nowhere to go.
      for (const id of exchange.outstanding()) if (this.exchanges.get(id) === exchange) this.exchanges.delete(id);
    });
    for (const message of messages) this.deliver(message, extra);
  }

  private forgetOutgoing(wireId: string): RequestId | undefined {
    const serverId = this.outgoing.get(wireId);
    this.outgoing.delete(wireId);
    if (serverId !== undefined) this.outgoingByServerId.delete(serverId);
    return serverId;
  }

  private deliver(message: JSONRPCMessage, extra: MessageExtraInfo | undefined): void {
    if (
      this.options.requestIdPrefix !== undefined &&
      !("method" in message) &&
      "id" in message &&
      typeof message.id === "string"
    ) {
      // The client's answer to a server-to-client request: ours goes to the server under its own id; another
      // process's goes there; anything else is dropped here, as the SDK would.
      const serverId = this.forgetOutgoing(message.id);
      if (serverId !== undefined) message = { ...message, id: serverId } as JSONRPCMessage;
      else {
        if (!message.id.startsWith(this.options.requestIdPrefix) && SERVER_REQUEST_ID.test(message.id)) {
          this.options.onForeignResponse?.(message as JSONRPCMessage & { id: string });
        }
        return;
      }
    }
    let traced: TracedRequest | undefined;
    if ("method" in message && "id" in message) {
      traced = this.startTrace(message, extra);
      // Params its method's schema refuses: -32602 in one sentence here, not the SDK's -32603 and zod's issue list.
      const refused = invalidParamsError(message);
      if (refused) return void this.send(refused);
    }
    if (traced) traced.run(() => this.onmessage?.(message, extra));
    else this.onmessage?.(message, extra);
    // The SDK stops a cancelled request's handler and, as the specification says, sends nothing for it; its
    // POST must still end, so it gets an error the client's SDK ignores (it stopped waiting when it cancelled).
    if ("method" in message && message.method === "notifications/cancelled" && !("id" in message)) {
      const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof requestId !== "string" && typeof requestId !== "number") return;
      const exchange = this.exchanges.get(requestId);
      if (!exchange) return;
      this.exchanges.delete(requestId);
      const cancelled = jsonRpcError(requestId, REQUEST_CANCELLED, "Request cancelled");
      this.endTrace(requestId, cancelled);
      exchange.answer(requestId, cancelled);
    }
  }

  /** A span for a client's request, child of the trace context in its `_meta` or headers (tracing on only). */
  private startTrace(message: { method: string; id: RequestId; params?: unknown }, extra?: MessageExtraInfo) {
    const headers = extra?.requestInfo?.headers;
    const version = headers?.["mcp-protocol-version"];
    const traced = traceRequest(message, {
      headers,
      sessionId: this.sessionId,
      protocolVersion:
        typeof version === "string"
          ? version
          : message.method === "initialize"
            ? (message.params as { protocolVersion?: string } | undefined)?.protocolVersion
            : undefined,
    });
    if (traced) this.traced.set(message.id, traced);
    return traced;
  }

  private endTrace(id: RequestId, answer: JSONRPCMessage): void {
    const traced = this.traced.get(id);
    if (!traced) return;
    this.traced.delete(id);
    traced.end(answer);
  }

  private get(req: IncomingMessage, res: ServerResponse): void {
    if (!(req.headers.accept ?? "").includes("text/event-stream")) {
      return writeJsonRpcError(
        res,
        406,
        INVALID_REQUEST,
        "Not Acceptable: the GET stream needs Accept: text/event-stream",
      );
    }
    if (this.standalone && !this.standalone.destroyed) {
      return writeJsonRpcError(res, 409, INVALID_REQUEST, "Conflict: this session already has a GET stream open");
    }
    this.standalone = res;
    res.writeHead(200, { ...SSE_HEADERS, ...this.headers });
    res.flushHeaders();
    const keepAliveMs = this.options.keepAliveMs ?? 25_000;
    if (keepAliveMs > 0 && !this.keepAlive) {
      this.keepAlive = setInterval(() => {
        if (this.standalone && !this.standalone.destroyed) this.standalone.write(": keep-alive\n\n");
      }, keepAliveMs).unref();
    }
    res.once("close", () => {
      if (this.standalone !== res) return;
      this.standalone = undefined;
      clearInterval(this.keepAlive);
      this.keepAlive = undefined;
    });
  }
}
