import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  McpError,
  type CallToolRequest,
  type ClientCapabilities,
  type CompleteRequest,
  type GetPromptRequest,
  type Implementation,
  type ListPromptsRequest,
  type ListResourcesRequest,
  type ListResourceTemplatesRequest,
  type ListToolsRequest,
  type ReadResourceRequest,
  type ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ConnectionListeners,
  type ListChangedListener,
  type LoggingListener,
  type ResourceUpdatedListener,
  type TaskStatusListener,
} from "./connection-listeners";
import {
  faultOf,
  isSessionExpired,
  negotiatedOf,
  openSession,
  type Negotiated,
  type Session,
} from "./connection-session";
import type { CallOptions, InputRetry } from "./call-options";
import { ConnectionClosedError } from "../errors/connection-closed";
import { isConnectionFailure } from "./failure";
import { Client2026, type SessionClient } from "./client-2026";
import { ANY_RESULT, type TaskMethod2025, type TaskMethod } from "./tasks-2026";
import type { ServerRequestHandler } from "./server-requests";

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

export { ConnectionClosedError } from "../errors/connection-closed";

/**
 * The one live MCP client of an instance. Requests connect lazily; a connection failure drops the session so the
 * next request (typically the next attempt of a retry loop) reconnects transparently, e.g. after the server was
 * restarted and forgot our session id.
 */
export class UpstreamConnection {
  readonly instanceId: string;
  private readonly connector: Connector;
  readonly requestTimeoutMs: number;
  private readonly clientInfo: Implementation;
  private session: Session | undefined;
  private connecting: Promise<Session> | undefined;
  private readonly listeners = new ConnectionListeners();
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

  /**
   * A tool call. With `task` (a 2025-11-25 task-augmented call) a 2025 upstream that offers task calls answers
   * with the task it started (`{ task }`), taken as it comes; a 2026 upstream gets the call without it (its tasks
   * are the extension's, which the server decides on).
   */
  callTool(params: CallToolRequest["params"] & InputRetry, options?: CallOptions) {
    return this.run((client, opts) => {
      if (params.task === undefined) return client.callTool(params, undefined, opts);
      if (client instanceof Client2026) {
        const { task: _task, ...plain } = params;
        return client.callTool(plain, undefined, opts);
      }
      // Not the SDK's callTool: it refuses a tool whose calls must be tasks, and validates a plain result.
      return (client as Client).request({ method: "tools/call", params }, ANY_RESULT, opts) as Promise<
        Record<string, unknown>
      >;
    }, options);
  }

  /** A 2025 upstream's task calls (`capabilities.tasks.requests.tools.call`), as its latest connect declared. */
  offersTaskCalls(): boolean {
    return this.negotiated?.capabilities?.tasks?.requests?.tools?.call !== undefined;
  }

  /**
   * `tasks/get`, `tasks/update` or `tasks/cancel` of a task this upstream created (the 2026-07-28 tasks
   * extension). A 2025 upstream has no such tasks: -32601.
   */
  taskRequest(method: TaskMethod, params: { taskId: string } & Record<string, unknown>, options?: CallOptions) {
    return this.run((client, opts) => {
      if (!(client instanceof Client2026))
        throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method} (the upstream speaks 2025-11-25)`);
      return client.taskRequest(method, params, opts);
    }, options);
  }

  /**
   * `tasks/get|result|list|cancel` of a 2025-11-25 upstream's experimental tasks, answered as it came. A 2026
   * upstream has none of these (its tasks are the extension's): -32601.
   */
  taskRequest2025(method: TaskMethod2025, params: Record<string, unknown>, options?: CallOptions) {
    return this.run((client, opts) => {
      if (client instanceof Client2026)
        throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method} (the upstream speaks 2026-07-28)`);
      // Not Client2026: the SDK 1.x client of a session (SessionClient names only what both share).
      return (client as Client).request({ method, params }, ANY_RESULT, opts) as Promise<Record<string, unknown>>;
    }, options);
  }

  /** A 2025 upstream's `notifications/tasks/status` (the task as the upstream knows it). */
  onTaskStatus(listener: TaskStatusListener): () => void {
    this.listeners.taskStatus.add(listener);
    return () => this.listeners.taskStatus.delete(listener);
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
    this.listeners.resourceUpdated.add(listener);
    return () => this.listeners.resourceUpdated.delete(listener);
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
    this.listeners.logging.add(listener);
    return () => this.listeners.logging.delete(listener);
  }

  /**
   * Subscribe to the server's list_changed notifications (of a 2026-07-28 server: on a `subscriptions/listen`
   * stream held open while someone subscribes). The route's and the worker's ConnectionPools subscribe on their
   * shared connections (`ConnectionPoolOptions.onListChanged`) and ask the worker to refresh the instance's
   * catalogue in place.
   */
  onListChanged(listener: ListChangedListener): () => void {
    this.listeners.listChanged.add(listener);
    this.wantListChanges();
    return () => {
      this.listeners.listChanged.delete(listener);
      this.wantListChanges();
    };
  }

  private wantListChanges(): void {
    const client = this.session?.client;
    if (client instanceof Client2026) void client.wantListChanges(this.listeners.listChanged.size > 0);
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
      // The caller gave up on the request (its client cancelled it): the SDK rejects it as a RequestTimeout, but
      // the session is fine, and the SDK is telling the upstream on it (notifications/cancelled). Dropping the
      // session here aborted that notification, so the upstream ran the call on, and failed every other request
      // in flight on the connection. A deadline's abort (a RequestTimeout reason) still counts as a timeout.
      if (callerCancelled(options.signal)) throw error;
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
    const session = await openSession(transport, {
      clientInfo: this.clientInfo,
      capabilities: this.capabilities,
      onServerRequest: this.onServerRequest,
      requestTimeoutMs: this.requestTimeoutMs,
      listeners: this.listeners,
      connector: () => this.connector(),
      onClose: (closed) => {
        if (this.session === closed) this.session = undefined;
      },
    });
    if (this.closed) {
      await session.client.close().catch(() => {});
      throw new ConnectionClosedError(this.instanceId);
    }
    this.session = session;
    this.negotiated = negotiatedOf(session);
    // A reconnect (the server restarted or forgot the session): subscriptions made on the old session are renewed.
    for (const uri of this.subscriptions.keys()) void session.client.subscribeResource({ uri }).catch(() => {});
    return session;
  }
}

/** Whether `signal` was aborted by its caller, not by a deadline (whose reason is the SDK's RequestTimeout). */
function callerCancelled(signal: AbortSignal | undefined): boolean {
  if (!signal?.aborted) return false;
  const reason: unknown = signal.reason;
  return !(reason instanceof McpError && reason.code === ErrorCode.RequestTimeout);
}
