import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CancelledNotificationSchema,
  ErrorCode,
  McpError,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ToolListChangedNotificationSchema,
  type CallToolRequest,
  type ClientCapabilities,
  type CompleteRequest,
  type CreateMessageRequest,
  type ElicitRequest,
  type ListRootsRequest,
  type RequestId,
  type Result,
  type GetPromptRequest,
  type Implementation,
  type ListPromptsRequest,
  type ListResourcesRequest,
  type ListResourceTemplatesRequest,
  type ListToolsRequest,
  type LoggingMessageNotification,
  type ReadResourceRequest,
  type ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { isConnectionFailure } from "./failure";
import { LazyJsonSchemaValidator } from "./json-schema-validator";
import { ModernClient, type SessionClient } from "./modern-client";
import type { TaskMethod } from "./modern-tasks";
import { probeRevision } from "./revision";
import type { DiscoverResult } from "@modelcontextprotocol/client";

/**
 * Why a transport ended itself, when it knows (a stdio server that broke a limit: `ProcessTransport.fault`). The
 * SDK fails the requests in flight with a bare "Connection closed"; the caller gets this reason instead.
 */
function faultOf(transport: Transport): Error | undefined {
  const fault = (transport as { fault?: unknown }).fault;
  return fault instanceof Error ? fault : undefined;
}

function isSessionExpired(error: unknown, session: Session): boolean {
  if (error instanceof StreamableHTTPError) return error.code === 404 && Boolean(session.transport.sessionId);
  // Legacy SSE: the message endpoint answers 404 for a session id it does not know (the server restarted and
  // its stream is gone); the SDK says so only in words.
  return (
    session.transport instanceof SSEClientTransport &&
    error instanceof Error &&
    error.message.startsWith("Error POSTing to endpoint (HTTP 404)")
  );
}

/** Opens a fresh transport; called on the first request and again after every connection failure. */
export type Connector = () => Promise<Transport>;

export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** How long `close({ endSession: true })` waits for the server to take the DELETE before closing anyway. */
export const END_SESSION_TIMEOUT_MS = 2_000;
export const DEFAULT_CLIENT_INFO: Implementation = { name: "switchboard", version: "0.0.0" };

export interface UpstreamConnectionOptions {
  instanceId: string;
  connector: Connector;
  /** Applies to every request, initialize included, unless a call passes its own `timeout`. */
  requestTimeoutMs?: number;
  clientInfo?: Implementation;
  /**
   * What this connection offers the server (sampling, elicitation, roots); nothing by default. A connection that
   * offers something must be able to answer for it: `onServerRequest` gets every such request the server sends.
   */
  capabilities?: ClientCapabilities | (() => ClientCapabilities);
  onServerRequest?: ServerRequestHandler;
}

/** A request a server sends its client: answered by whoever the connection relays to (the proxy's downstream client). */
export type ServerToClientRequest = CreateMessageRequest | ElicitRequest | ListRootsRequest;
export type ServerRequestHandler = (request: ServerToClientRequest, extra: { signal: AbortSignal }) => Promise<Result>;
export type ResourceUpdatedListener = (uri: string) => void;

export type LoggingListener = (params: LoggingMessageNotification["params"]) => void;
export type ListKind = "tools" | "resources" | "prompts";
export type ListChangedListener = (kind: ListKind) => void;
export type CallOptions = Pick<RequestOptions, "onprogress" | "signal" | "timeout" | "resetTimeoutOnProgress"> & {
  /**
   * For a caller that speaks 2026-07-28 itself: a 2026 upstream's `input_required` result (of tools/call,
   * prompts/get, resources/read) is handed back as it came instead of being fulfilled through `onServerRequest`;
   * the caller retries with `inputResponses` and `requestState` in the params. No effect on a 2025 upstream.
   */
  passInputRequired?: boolean;
  /**
   * For a caller that declares the 2026-07-28 tasks extension: the tools/call declares it to a 2026 upstream too,
   * which may then answer with a task (`resultType: "task"`), handed back as it came. No effect on a 2025 upstream.
   */
  passTasks?: boolean;
  /**
   * The called tool's input schema as the catalogue has it: a 2026 upstream over HTTP gets the `Mcp-Param-*`
   * headers its `x-mcp-header` annotations ask for without listing its tools first.
   */
  toolInputSchema?: unknown;
};

/** The retry of a 2026-07-28 request that answered `input_required` (see `CallOptions.passInputRequired`). */
export interface InputRetry {
  inputResponses?: Record<string, unknown>;
  requestState?: string;
}

/** What initialize told us; kept after a disconnect so discovery and the console can still show it. */
export interface Negotiated {
  capabilities: ServerCapabilities;
  serverVersion: Implementation;
  protocolVersion: string | undefined;
  instructions: string | undefined;
}

interface Session {
  /** SDK 1.x's `Client` for a 2025 upstream (after `initialize`), a `ModernClient` for a 2026-07-28 one. */
  client: SessionClient;
  transport: Transport;
  protocolVersion: string | undefined;
  /** The server answered 404 for this session's id: it no longer knows it. */
  expired?: boolean;
}

/**
 * The one live MCP client of an instance. Requests connect lazily; a connection failure drops the session so the
 * next request (typically the next attempt of a retry loop) reconnects transparently, e.g. after the server was
 * restarted and forgot our session id.
 */
/**
 * The connection was closed (evicted: its process faulted, was restarted or removed) before this request left:
 * nothing reached the server, so a caller holding a stale reference may send it again on a fresh connection.
 */
export class ConnectionClosedError extends Error {
  override readonly name = "ConnectionClosedError";
  constructor(instanceId: string) {
    super(`connection to instance ${instanceId} is closed`);
  }
}

export class UpstreamConnection {
  readonly instanceId: string;
  private readonly connector: Connector;
  readonly requestTimeoutMs: number;
  private readonly clientInfo: Implementation;
  private session: Session | undefined;
  private connecting: Promise<Session> | undefined;
  private readonly loggingListeners = new Set<LoggingListener>();
  private readonly listChangedListeners = new Set<ListChangedListener>();
  private readonly updatedListeners = new Set<ResourceUpdatedListener>();
  /** Resource URIs subscribed on the server, with how many subscribers each; re-subscribed after a reconnect. */
  private readonly subscriptions = new Map<string, number>();
  private readonly offered: ClientCapabilities | (() => ClientCapabilities);
  private capabilities: ClientCapabilities = {};
  private readonly onServerRequest: ServerRequestHandler | undefined;
  private closed = false;
  private negotiated: Negotiated | undefined;

  constructor(options: UpstreamConnectionOptions) {
    this.instanceId = options.instanceId;
    this.connector = options.connector;
    this.requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.clientInfo = options.clientInfo ?? DEFAULT_CLIENT_INFO;
    this.onServerRequest = options.onServerRequest;
    // Only what can be answered is offered.
    this.offered = this.onServerRequest ? (options.capabilities ?? {}) : {};
  }

  get connected(): boolean {
    return this.session !== undefined;
  }

  /** The client of the current session, if any; prefer the request helpers, which reconnect. */
  get client(): SessionClient | undefined {
    return this.session?.client;
  }

  /** Capabilities negotiated by the latest successful initialize (kept after a disconnect). */
  getServerCapabilities(): ServerCapabilities | undefined {
    return this.negotiated?.capabilities;
  }

  getServerVersion(): Implementation | undefined {
    return this.negotiated?.serverVersion;
  }

  /**
   * The revision the upstream speaks, as negotiated by the latest connect: "2026-07-28" when it answered
   * `server/discover`, else what `initialize` agreed (e.g. "2025-11-25").
   */
  getProtocolVersion(): string | undefined {
    return this.negotiated?.protocolVersion;
  }

  getInstructions(): string | undefined {
    return this.negotiated?.instructions;
  }

  /** Connect now (idempotent; concurrent callers share one attempt). */
  async connect(): Promise<void> {
    await this.ensureSession();
  }

  callTool(params: CallToolRequest["params"] & InputRetry, options?: CallOptions) {
    return this.run((client, opts) => client.callTool(params, undefined, opts), options);
  }

  /**
   * `tasks/get`, `tasks/update` or `tasks/cancel` of a task this upstream created (the 2026-07-28 tasks
   * extension). A 2025 upstream has no such tasks: -32601.
   */
  taskRequest(method: TaskMethod, params: { taskId: string } & Record<string, unknown>, options?: CallOptions) {
    return this.run((client, opts) => {
      if (!(client instanceof ModernClient))
        throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method} (the upstream speaks 2025-11-25)`);
      return client.taskRequest(method, params, opts);
    }, options);
  }

  listTools(params?: ListToolsRequest["params"], options?: CallOptions) {
    return this.run((client, opts) => client.listTools(params, opts), options);
  }

  listResources(params?: ListResourcesRequest["params"], options?: CallOptions) {
    return this.run((client, opts) => client.listResources(params, opts), options);
  }

  listResourceTemplates(params?: ListResourceTemplatesRequest["params"], options?: CallOptions) {
    return this.run((client, opts) => client.listResourceTemplates(params, opts), options);
  }

  listPrompts(params?: ListPromptsRequest["params"], options?: CallOptions) {
    return this.run((client, opts) => client.listPrompts(params, opts), options);
  }

  readResource(params: ReadResourceRequest["params"] & InputRetry, options?: CallOptions) {
    return this.run((client, opts) => client.readResource(params, opts), options);
  }

  getPrompt(params: GetPromptRequest["params"] & InputRetry, options?: CallOptions) {
    return this.run((client, opts) => client.getPrompt(params, opts), options);
  }

  complete(params: CompleteRequest["params"], options?: CallOptions) {
    return this.run((client, opts) => client.complete(params, opts), options);
  }

  /**
   * Subscribe to updates of a resource. The subscription is the connection's, shared by its users: the server
   * hears one subscribe per URI, one unsubscribe when the last user leaves, and a subscribe again after every
   * reconnect (a new session on the server knows nothing of the old one's subscriptions).
   */
  async subscribeResource(uri: string, options?: CallOptions): Promise<void> {
    if (!this.subscriptions.has(uri))
      await this.run((client, opts) => client.subscribeResource({ uri }, opts), options);
    this.subscriptions.set(uri, (this.subscriptions.get(uri) ?? 0) + 1);
  }

  async unsubscribeResource(uri: string, options?: CallOptions): Promise<void> {
    const count = this.subscriptions.get(uri);
    if (count === undefined) return;
    if (count > 1) {
      this.subscriptions.set(uri, count - 1);
      return;
    }
    this.subscriptions.delete(uri);
    await this.run((client, opts) => client.unsubscribeResource({ uri }, opts), options);
  }

  /** Subscribe to the server's `notifications/resources/updated` (the URI as the server knows it). */
  onResourceUpdated(listener: ResourceUpdatedListener): () => void {
    this.updatedListeners.add(listener);
    return () => this.updatedListeners.delete(listener);
  }

  /** The cheapest request that proves the server answers: `ping`, or `server/discover` on 2026-07-28 (no ping). */
  ping(options?: CallOptions) {
    return this.run((client, opts) => client.ping(opts), options);
  }

  /**
   * Subscribe to the server's `notifications/message`. The connection belongs to one member's instance, so the
   * proxy subscribes for the duration of a call and forwards what arrives to that call's client.
   */
  onLoggingMessage(listener: LoggingListener): () => void {
    this.loggingListeners.add(listener);
    return () => this.loggingListeners.delete(listener);
  }

  /**
   * Subscribe to the server's list_changed notifications (of a 2026-07-28 server: on a `subscriptions/listen`
   * stream held open while someone subscribes). The route's and the worker's ConnectionPools subscribe on their
   * shared connections (`ConnectionPoolOptions.onListChanged`) and ask the worker to refresh the instance's
   * catalogue in place.
   */
  onListChanged(listener: ListChangedListener): () => void {
    this.listChangedListeners.add(listener);
    this.wantListChanges();
    return () => {
      this.listChangedListeners.delete(listener);
      this.wantListChanges();
    };
  }

  private wantListChanges(): void {
    const client = this.session?.client;
    if (client instanceof ModernClient) void client.wantListChanges(this.listChangedListeners.size > 0);
  }

  /** Drop the current session (if any); the next request reconnects. */
  async reset(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    if (session) await session.client.close().catch(() => {});
  }

  /**
   * Close for good: later requests fail instead of reconnecting. With `endSession`, a Streamable HTTP server is
   * told the session is over (DELETE, bounded by END_SESSION_TIMEOUT_MS), so what it keeps for the session goes
   * now: for a connection of one client's own that nobody uses again (a worker's bridge stops that client's process).
   */
  async close({ endSession = false }: { endSession?: boolean } = {}): Promise<void> {
    this.closed = true;
    await this.connecting?.catch(() => {});
    const transport = this.session?.transport;
    if (endSession && transport instanceof StreamableHTTPClientTransport && transport.sessionId !== undefined) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        transport.terminateSession().catch(() => {}),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, END_SESSION_TIMEOUT_MS))),
      ]);
      clearTimeout(timer);
    }
    await this.reset();
  }

  private async run<T>(
    fn: (client: SessionClient, options: RequestOptions) => Promise<T>,
    options: CallOptions = {},
  ): Promise<T> {
    const session = await this.ensureSession();
    const requestOptions = { ...options, timeout: options.timeout ?? this.requestTimeoutMs };
    try {
      return await fn(session.client, requestOptions);
    } catch (error) {
      const expired = isSessionExpired(error, session);
      if (expired) session.expired = true;
      if ((expired || isConnectionFailure(error)) && this.session === session) await this.reset();
      // A 404 for a request that carried our session id: the server (restarted, or scaled to another replica)
      // forgot the session and did not run the request. The specification says to initialize anew; doing it
      // here, once, makes the restart invisible to the caller. Requests that were in flight on that session
      // fail with "connection closed" when it is dropped, before their own 404 arrives: they go again too.
      if (expired || (session.expired && isConnectionFailure(error)))
        return fn((await this.ensureSession()).client, requestOptions);
      throw isConnectionFailure(error) ? (faultOf(session.transport) ?? error) : error;
    }
  }

  private ensureSession(): Promise<Session> {
    if (this.closed) return Promise.reject(new ConnectionClosedError(this.instanceId));
    if (this.session) return Promise.resolve(this.session);
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<Session> {
    const transport = await this.connector();
    // Decided per connect, after the connector ran: it may depend on where the instance turned out to live.
    this.capabilities = typeof this.offered === "function" ? this.offered() : this.offered;
    // What the upstream speaks is asked anew on every connect: a server may have been upgraded (or downgraded).
    let verdict: Awaited<ReturnType<typeof probeRevision>>;
    try {
      verdict = await probeRevision(transport, {
        clientInfo: this.clientInfo,
        capabilities: this.capabilities,
        timeoutMs: this.requestTimeoutMs,
      });
    } catch (error) {
      await transport.close().catch(() => {});
      throw faultOf(transport) ?? error;
    }
    const session = await (
      verdict.kind === "modern" ? this.openModern(transport, verdict.discover) : this.openLegacy(transport)
    ).catch((error: unknown) => Promise.reject(faultOf(transport) ?? error));
    if (this.closed) {
      await session.client.close().catch(() => {});
      throw new ConnectionClosedError(this.instanceId);
    }
    this.session = session;
    this.negotiated = {
      capabilities: session.client.getServerCapabilities() ?? {},
      serverVersion: session.client.getServerVersion() ?? { name: "unknown", version: "unknown" },
      protocolVersion: session.protocolVersion,
      instructions: session.client.getInstructions(),
    };
    // A reconnect (the server restarted or forgot the session): subscriptions made on the old session are renewed.
    for (const uri of this.subscriptions.keys()) void session.client.subscribeResource({ uri }).catch(() => {});
    return session;
  }

  /** A 2026-07-28 upstream: stateless, no session to open; requests carry the revision in their `_meta`. */
  private async openModern(transport: Transport, discover: DiscoverResult): Promise<Session> {
    const onServerRequest = this.onServerRequest;
    let session: Session | undefined = undefined;
    const client = await ModernClient.connect(transport, discover, {
      clientInfo: this.clientInfo,
      capabilities: this.capabilities,
      // An input_required result's embedded requests reach whoever this connection serves, as a 2025 server's
      // own requests do; the SDK then retries the call with the answers and the server's requestState.
      onEmbeddedRequest: onServerRequest
        ? (request, extra) => onServerRequest(request as ServerToClientRequest, { signal: extra.signal })
        : undefined,
      onLoggingMessage: (params) => {
        for (const listener of this.loggingListeners) listener(params as LoggingMessageNotification["params"]);
      },
      // Everything, as a 2025 server sends without logging/setLevel; the proxy applies each session's own level.
      logLevel: () => (this.loggingListeners.size > 0 ? "debug" : undefined),
      onClose: () => {
        if (session && this.session === session) this.session = undefined;
      },
      onListChanged: (kind) => {
        for (const listener of this.listChangedListeners) listener(kind);
      },
      onResourceUpdated: (uri) => {
        for (const listener of this.updatedListeners) listener(uri);
      },
      openTransport: () => this.connector(),
    });
    if (this.listChangedListeners.size > 0) void client.wantListChanges(true);
    session = { client, transport, protocolVersion: client.getProtocolVersion() };
    return session;
  }

  private async openLegacy(transport: Transport): Promise<Session> {
    const client = new Client(this.clientInfo, {
      capabilities: this.capabilities,
      jsonSchemaValidator: new LazyJsonSchemaValidator(),
    });
    const session: Session = { client, transport, protocolVersion: undefined };
    // The SDK tells the transport the negotiated version; listen in on this instance to keep it.
    const setVersion = transport.setProtocolVersion?.bind(transport);
    transport.setProtocolVersion = (version: string) => {
      session.protocolVersion = version;
      setVersion?.(version);
    };
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => {
      for (const listener of this.loggingListeners) listener(notification.params);
    });
    const changed = (kind: ListKind) => () => {
      for (const listener of this.listChangedListeners) listener(kind);
    };
    client.setNotificationHandler(ToolListChangedNotificationSchema, changed("tools"));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, changed("resources"));
    client.setNotificationHandler(PromptListChangedNotificationSchema, changed("prompts"));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      for (const listener of this.updatedListeners) listener(notification.params.uri);
    });
    const onServerRequest = this.onServerRequest;
    if (onServerRequest) {
      // Requests the server sends while serving a call (or on its own) go to whoever this connection serves.
      // The SDK ignores a cancellation of request id 0 (a falsy-id check), which is the first request of every
      // server session: relayed requests are cancelled through a controller of our own.
      const cancels = new Map<RequestId, AbortController>();
      const relay = async (request: ServerToClientRequest, extra: { signal: AbortSignal; requestId: RequestId }) => {
        const controller = new AbortController();
        const follow = () => controller.abort(extra.signal.reason);
        extra.signal.addEventListener("abort", follow, { once: true });
        cancels.set(extra.requestId, controller);
        try {
          return await onServerRequest(request, { signal: controller.signal });
        } finally {
          cancels.delete(extra.requestId);
          extra.signal.removeEventListener("abort", follow);
        }
      };
      const sdkCancel = (client as unknown as { _oncancel?: (n: unknown) => Promise<void> })._oncancel?.bind(client);
      client.setNotificationHandler(CancelledNotificationSchema, async (notification) => {
        const id = notification.params.requestId;
        if (id !== undefined) cancels.get(id)?.abort(notification.params.reason);
        await sdkCancel?.(notification);
      });
      if (this.capabilities.sampling)
        client.setRequestHandler(CreateMessageRequestSchema, (request, extra) => relay(request, extra) as never);
      if (this.capabilities.elicitation)
        client.setRequestHandler(ElicitRequestSchema, (request, extra) => relay(request, extra) as never);
      if (this.capabilities.roots)
        client.setRequestHandler(ListRootsRequestSchema, (request, extra) => relay(request, extra) as never);
    }
    client.onclose = () => {
      if (this.session === session) this.session = undefined;
    };
    // Errors surface through the failing request; the default handler would only log them.
    client.onerror = () => {};
    await client.connect(transport, { timeout: this.requestTimeoutMs });
    return session;
  }
}
