import {
  Client as ModernSdkClient,
  LOG_LEVEL_META_KEY,
  ProtocolError,
  SdkError,
  SdkErrorCode,
} from "@modelcontextprotocol/client";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError, type ClientCapabilities, type Implementation } from "@modelcontextprotocol/sdk/types.js";
import type { DiscoverResult, SubscriptionFilter } from "@modelcontextprotocol/client";
import { z } from "zod";
import { backoffDelay, type BackoffOptions } from "../policies/backoff";
import { HEADER_MISMATCH } from "../revisions/param-headers";
import { CLIENT_CAPABILITIES_META_KEY, toolSchemasOf, type ToolSchemas } from "./revision";

/** How soon a dropped `subscriptions/listen` stream to an upstream is opened again. */
const RELISTEN_BACKOFF: BackoffOptions = { baseMs: 250, maxMs: 30_000, jitter: 0.2 };

/** What a connection's requests use of its client: the SDK 1.x `Client` (2025) or a `ModernClient` (2026). */
export type SessionClient = Pick<
  Client,
  | "callTool"
  | "listTools"
  | "listResources"
  | "listResourceTemplates"
  | "listPrompts"
  | "readResource"
  | "getPrompt"
  | "complete"
  | "subscribeResource"
  | "unsubscribeResource"
  | "ping"
  | "sendRootsListChanged"
  | "close"
  | "getServerCapabilities"
  | "getServerVersion"
  | "getInstructions"
>;

/** The 2026-07-28 tasks extension (`io.modelcontextprotocol/tasks`), as client and server declare it. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
export type TaskMethod = "tasks/get" | "tasks/update" | "tasks/cancel";

/**
 * Where a task result travels inside the SDK: v2 2.4.0 knows `resultType: "task"` by name only and rejects it
 * ("unsupported result type"), so the connection's transport hands it to the SDK as a complete result carrying
 * the task under this `_meta` key, and `callTool` takes it out again.
 */
const TASK_CARRIER = "dev.switchboard/task";

/** A request a 2026-07-28 server embeds in an `input_required` result, answered by the connection's relay. */
export type EmbeddedRequestHandler = (
  request: { method: string; params?: Record<string, unknown> },
  extra: { signal: AbortSignal; requestId: string | number },
) => Promise<Record<string, unknown>>;

export interface ModernClientOptions {
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  /** Answers `elicitation/create`, `sampling/createMessage` and `roots/list` of `input_required` results. */
  onEmbeddedRequest?: EmbeddedRequestHandler;
  onLoggingMessage?: (params: unknown) => void;
  /**
   * The 2026-07-28 revision sends a call's log lines only when the request names a level (per request, no
   * `logging/setLevel`): asked for calls while this says one, typically while someone listens.
   */
  logLevel?: () => "debug" | undefined;
  onClose?: () => void;
  /** A list-changed notification of the upstream's `subscriptions/listen` stream. */
  onListChanged?: (kind: "tools" | "resources" | "prompts") => void;
  /** A `notifications/resources/updated` of the upstream's `subscriptions/listen` stream. */
  onResourceUpdated?: (uri: string) => void;
  /**
   * A new transport to the same upstream. Over HTTP each listen stream gets one of its own: SDK 1.x's transport
   * cannot abort one request's stream, and a stateless server hears a `notifications/cancelled` in another
   * request, so closing the transport is the only way to end a listen stream on the server.
   */
  openTransport?: () => Promise<Transport>;
}

/** One open `subscriptions/listen` stream to the upstream. */
interface ListenStream {
  close(): Promise<void>;
}
type OpenListen = (filter: SubscriptionFilter, onDrop: () => void) => Promise<ListenStream>;

/**
 * A JSON-RPC error a 2026-07-28 server answered with an HTTP error status (400 for -32020, -32021, -32022; 404
 * for -32601): the transport throws it as an HTTP failure, but the body is the server's answer to the request.
 */
function answeredError(error: unknown): McpError | undefined {
  if (!(error instanceof StreamableHTTPError) || error.code === undefined || error.code < 400 || error.code >= 500)
    return undefined;
  const body = error.message.slice(error.message.indexOf("{"));
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown; data?: unknown } };
    const { code, message, data } = parsed.error ?? {};
    if (typeof code !== "number" || typeof message !== "string") return undefined;
    return new McpError(code, stripPrefix(message), data);
  } catch {
    return undefined;
  }
}

/** SDK v2's errors as the SDK 1.x `McpError` the rest of core (retry policy, discovery, the proxy) understands. */
function asLegacyError(error: unknown): unknown {
  const answered = answeredError(error);
  if (answered) return answered;
  if (error instanceof ProtocolError) return new McpError(error.code, stripPrefix(error.message), error.data);
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout)
      return new McpError(ErrorCode.RequestTimeout, stripPrefix(error.message));
    if (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected)
      return new McpError(ErrorCode.ConnectionClosed, stripPrefix(error.message));
    return new McpError(ErrorCode.InternalError, stripPrefix(error.message));
  }
  return error;
}

const stripPrefix = (message: string) => message.replace(/^MCP error -?\d+: /, "");

/**
 * The client of a connection to a 2026-07-28 upstream: SDK v2's `Client`, adopting the `server/discover` answer the
 * probe got (no second round trip), which then sends the per-request `_meta` envelope (protocol version, client
 * info and capabilities) with every request, and fulfils `input_required` results through `onEmbeddedRequest`
 * before retrying with `inputResponses` and `requestState`. It answers in the SDK 1.x shapes and errors.
 */
export class ModernClient implements SessionClient {
  private readonly sdk: ModernSdkClient;

  private readonly logLevel: () => string | undefined;
  private readonly capabilities: ClientCapabilities;

  /** Resource URIs the listen stream asks updates of (the connection counts their users). */
  private readonly uris = new Set<string>();
  /** Whether the listen stream asks for list changes too. */
  private lists = false;
  private stream: ListenStream | undefined;
  /** Bumped by every change of what the stream should carry: an older (re)listen that lands late stands down. */
  private generation = 0;
  private attempt = 0;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private ended = false;

  private readonly openListen: OpenListen;
  /** Over HTTP: the tools' schemas a call's `Mcp-Param-*` headers are read from (none over stdio). */
  private readonly schemas: ToolSchemas | undefined;

  private constructor(
    sdk: ModernSdkClient,
    logLevel: (() => string | undefined) | undefined,
    capabilities: ClientCapabilities,
    openListen: OpenListen,
    schemas: ToolSchemas | undefined,
  ) {
    this.sdk = sdk;
    this.schemas = schemas;
    this.logLevel = logLevel ?? (() => undefined);
    this.capabilities = capabilities;
    this.openListen = openListen;
  }

  /**
   * Ask for (or stop asking for) the upstream's list changes on the listen stream. 2026-07-28 has no GET stream:
   * an upstream's notifications arrive only on a `subscriptions/listen` this client holds open while wanted.
   */
  async wantListChanges(wanted: boolean): Promise<void> {
    if (this.lists === wanted) return;
    this.lists = wanted;
    await this.relisten().catch(() => {});
  }

  /**
   * Open a `subscriptions/listen` stream carrying what is wanted now, then close the one it replaces (the overlap
   * may repeat a notification, never lose one); none when nothing is wanted. A stream that drops is opened again
   * after a backoff.
   */
  private async relisten(): Promise<void> {
    const generation = ++this.generation;
    clearTimeout(this.retry);
    const previous = this.stream;
    this.stream = undefined;
    try {
      if (this.ended || (!this.lists && this.uris.size === 0)) return;
      const filter = {
        ...(this.lists ? { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true } : {}),
        ...(this.uris.size > 0 ? { resourceSubscriptions: [...this.uris] } : {}),
      };
      let stream: ListenStream | undefined = undefined;
      const dropped = () => {
        if (stream && this.stream === stream) {
          this.stream = undefined;
          this.relistenLater();
        }
      };
      try {
        stream = await this.openListen(filter, dropped);
      } catch (error) {
        if (generation === this.generation) this.relistenLater();
        throw asLegacyError(error);
      }
      if (generation !== this.generation || this.ended) {
        await stream.close().catch(() => {});
        return;
      }
      this.stream = stream;
      this.attempt = 0;
    } finally {
      await previous?.close().catch(() => {});
    }
  }

  private relistenLater(): void {
    if (this.ended) return;
    clearTimeout(this.retry);
    const delay = backoffDelay(RELISTEN_BACKOFF, this.attempt++);
    this.retry = setTimeout(() => void this.relisten().catch(() => {}), delay);
    this.retry.unref?.();
  }

  /** The params of a request whose client declares the tasks extension (per request, as 2026-07-28 allows). */
  private withTasks<P extends { _meta?: Record<string, unknown> }>(params: P): P {
    const capabilities = {
      ...this.capabilities,
      extensions: { ...this.capabilities.extensions, [TASKS_EXTENSION]: {} },
    };
    return { ...params, _meta: { ...params._meta, [CLIENT_CAPABILITIES_META_KEY]: capabilities } };
  }

  /** The params of a call, asking for its log lines when someone listens (the caller's own `_meta` wins). */
  private withLogLevel<P extends { _meta?: Record<string, unknown> }>(params: P): P {
    const level = this.logLevel();
    return level ? { ...params, _meta: { [LOG_LEVEL_META_KEY]: level, ...params._meta } } : params;
  }

  static async connect(transport: Transport, discover: DiscoverResult, options: ModernClientOptions) {
    // The same JSON in both SDKs; v2 types `experimental` more narrowly.
    const sdk = new ModernSdkClient(options.clientInfo, { capabilities: options.capabilities as never });
    const handler = options.onEmbeddedRequest;
    if (handler) {
      const relay = (
        request: { method: string; params?: unknown },
        ctx: { mcpReq: { signal: AbortSignal; id: string | number } },
      ) => handler(request as never, { signal: ctx.mcpReq.signal, requestId: ctx.mcpReq.id }) as never;
      if (options.capabilities.elicitation) sdk.setRequestHandler("elicitation/create", relay);
      if (options.capabilities.sampling) sdk.setRequestHandler("sampling/createMessage", relay);
      if (options.capabilities.roots) sdk.setRequestHandler("roots/list", relay);
    }
    const onLog = options.onLoggingMessage;
    if (onLog) sdk.setNotificationHandler("notifications/message", (n) => onLog(n.params));
    sdk.onclose = options.onClose;
    sdk.onerror = () => {};
    try {
      // The SDK 1.x and v2 transport contracts are the same shape: the transport the connector built serves both.
      await sdk.connect(transport as never, { prior: { kind: "modern", discover } });
    } catch (error) {
      throw asLegacyError(error);
    }
    carryTasks(transport);
    const openTransport = options.openTransport;
    const openListen: OpenListen =
      openTransport && transport instanceof StreamableHTTPClientTransport
        ? (filter, onDrop) => listenOwnTransport(openTransport, discover, options, filter, onDrop)
        : async (filter, onDrop) => {
            hearChanges(sdk, options);
            const subscription = await sdk.listen(filter);
            void subscription.closed.then((how) => how !== "local" && onDrop());
            return subscription;
          };
    return new ModernClient(sdk, options.logLevel, options.capabilities, openListen, toolSchemasOf(transport));
  }

  getProtocolVersion(): string | undefined {
    return this.sdk.getNegotiatedProtocolVersion();
  }

  private async run<T>(request: () => Promise<unknown>): Promise<T> {
    try {
      return (await request()) as T;
    } catch (error) {
      throw asLegacyError(error);
    }
  }

  callTool: Client["callTool"] = (params, _schema, options) =>
    this.run(async () => {
      const tasks = (options as { passTasks?: boolean } | undefined)?.passTasks === true;
      const call = () => this.sdk.callTool(this.withLogLevel(tasks ? this.withTasks(params) : params), v2(options));
      // The tool's x-mcp-header annotations decide the call's Mcp-Param-* headers: the caller's copy of its schema,
      // else the upstream's list, read once before the first call.
      const schema = (options as { toolInputSchema?: unknown } | undefined)?.toolInputSchema;
      if (schema !== undefined) this.schemas?.learn(params.name, schema);
      else if (this.schemas && !this.schemas.listed) await this.listAllTools().catch(() => {});
      let result;
      try {
        result = await call();
      } catch (error) {
        // A HeaderMismatch: the tool's schema may have changed; the specification asks for a new list and one retry.
        if (!this.schemas || (asLegacyError(error) as { code?: unknown }).code !== HEADER_MISMATCH) throw error;
        await this.listAllTools();
        result = await call();
      }
      const task = (result as { _meta?: Record<string, unknown> })._meta?.[TASK_CARRIER];
      return task ?? result;
    });

  /** Every page of the upstream's tools, which `listTools` records in `schemas`. */
  private async listAllTools(): Promise<void> {
    let cursor: string | undefined;
    do {
      const page = await this.listTools(cursor ? { cursor } : undefined);
      cursor = page.nextCursor;
    } while (cursor);
  }

  /**
   * `tasks/get`, `tasks/update` or `tasks/cancel` (the tasks extension), declaring the extension; the result as
   * the server sent it, without `resultType` (the SDK consumes it).
   */
  taskRequest(
    method: TaskMethod,
    params: { taskId: string; _meta?: Record<string, unknown> } & Record<string, unknown>,
    options?: RequestOptions,
  ): Promise<Record<string, unknown>> {
    return this.run(() => this.sdk.request({ method, params: this.withTasks(params) }, ANY_RESULT, v2(options)));
  }
  listTools: Client["listTools"] = (params, options) =>
    this.run(async () => {
      const result = await this.sdk.listTools(params, { ...v2(options), cacheMode: "bypass" });
      // SDK v2's client has already left out tools whose x-mcp-header annotations are invalid.
      this.schemas?.remember(result.tools, !params?.cursor);
      return result;
    });
  listResources: Client["listResources"] = (params, options) =>
    this.run(() => this.sdk.listResources(params, { ...v2(options), cacheMode: "bypass" }));
  listResourceTemplates: Client["listResourceTemplates"] = (params, options) =>
    this.run(() => this.sdk.listResourceTemplates(params, { ...v2(options), cacheMode: "bypass" }));
  listPrompts: Client["listPrompts"] = (params, options) =>
    this.run(() => this.sdk.listPrompts(params, { ...v2(options), cacheMode: "bypass" }));
  readResource: Client["readResource"] = (params, options) =>
    this.run(() => this.sdk.readResource(this.withLogLevel(params), { ...v2(options), cacheMode: "bypass" }));
  getPrompt: Client["getPrompt"] = (params, options) =>
    this.run(() => this.sdk.getPrompt(this.withLogLevel(params), v2(options)));
  complete: Client["complete"] = (params, options) => this.run(() => this.sdk.complete(params, v2(options)));
  /** 2026-07-28 has no `resources/subscribe`: the URI joins the listen stream's `resourceSubscriptions`. */
  subscribeResource: Client["subscribeResource"] = async (params) => {
    if (this.uris.has(params.uri)) return {};
    this.uris.add(params.uri);
    try {
      await this.relisten();
    } catch (error) {
      this.uris.delete(params.uri);
      throw error;
    }
    return {};
  };
  unsubscribeResource: Client["unsubscribeResource"] = async (params) => {
    if (this.uris.delete(params.uri)) await this.relisten().catch(() => {});
    return {};
  };
  /** 2026-07-28 removed `ping`: `server/discover` is the cheapest request that proves the server answers. */
  ping: Client["ping"] = (options) => this.run(() => this.sdk.discover(v2(options)).then(() => ({})));
  /** The stateless revision has no roots-changed notification to a server; roots travel with each request. */
  sendRootsListChanged: Client["sendRootsListChanged"] = async () => {};
  close: Client["close"] = async () => {
    this.ended = true;
    clearTimeout(this.retry);
    const stream = this.stream;
    this.stream = undefined;
    await stream?.close().catch(() => {});
    await this.sdk.close();
  };
  getServerCapabilities: Client["getServerCapabilities"] = () => this.sdk.getServerCapabilities() as never;
  getServerVersion: Client["getServerVersion"] = () => this.sdk.getServerVersion() as never;
  getInstructions: Client["getInstructions"] = () => this.sdk.getInstructions();
}

/** Route the listen stream's change notifications of `sdk` to the connection (idempotent). */
function hearChanges(sdk: ModernSdkClient, options: ModernClientOptions): void {
  const onListChanged = options.onListChanged;
  if (onListChanged) {
    sdk.setNotificationHandler("notifications/tools/list_changed", () => onListChanged("tools"));
    sdk.setNotificationHandler("notifications/resources/list_changed", () => onListChanged("resources"));
    sdk.setNotificationHandler("notifications/prompts/list_changed", () => onListChanged("prompts"));
  }
  const onUpdated = options.onResourceUpdated;
  if (onUpdated) sdk.setNotificationHandler("notifications/resources/updated", (n) => onUpdated(n.params.uri));
}

/**
 * A listen stream on a client and transport of its own, ended by closing them. SDK 1.x's HTTP transport reports a
 * stream that broke off only through `onerror` (the request would wait forever): any error of this client, which
 * carries nothing but the listen request, counts as the stream dropping.
 */
async function listenOwnTransport(
  openTransport: () => Promise<Transport>,
  discover: DiscoverResult,
  options: ModernClientOptions,
  filter: SubscriptionFilter,
  onDrop: () => void,
): Promise<ListenStream> {
  const own = new ModernSdkClient(options.clientInfo, { capabilities: options.capabilities as never });
  hearChanges(own, options);
  let ending = false;
  const drop = () => {
    if (ending) return;
    ending = true;
    void own.close().catch(() => {});
    onDrop();
  };
  own.onerror = drop;
  own.onclose = drop;
  const close = async () => {
    ending = true;
    await own.close().catch(() => {});
  };
  try {
    await own.connect((await openTransport()) as never, { prior: { kind: "modern", discover } });
    const subscription = await own.listen(filter);
    void subscription.closed.then((how) => how !== "local" && drop());
  } catch (error) {
    await close();
    throw error;
  }
  return { close };
}

/** A result taken as it comes: the upstream's answer to a request of an extension the SDK has no schema for. */
const ANY_RESULT = z.record(z.string(), z.unknown());

/**
 * Lets a task result (`resultType: "task"`) through SDK v2, which would reject it: a response carrying one
 * reaches the SDK as a complete tool result with the task in `_meta` (see `TASK_CARRIER`).
 */
function carryTasks(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message, extra) => {
    const result = "result" in message ? (message.result as Record<string, unknown>) : undefined;
    if (result?.resultType !== "task") return deliver(message, extra);
    const { content, ...task } = result;
    // The SDK 1.x server behind a 2026 one may add an empty content array; a task has none.
    const carried = Array.isArray(content) && content.length === 0 ? task : result;
    deliver(
      { ...message, result: { resultType: "complete", content: [], _meta: { [TASK_CARRIER]: carried } } } as never,
      extra,
    );
  };
}

/** SDK 1.x request options as v2's (the same fields), with `passInputRequired` as v2's manual multi-round-trip mode. */
function v2(
  options:
    (RequestOptions & { passInputRequired?: boolean; passTasks?: boolean; toolInputSchema?: unknown }) | undefined,
) {
  const { passInputRequired, passTasks: _tasks, toolInputSchema: _schema, ...rest } = options ?? {};
  return (passInputRequired ? { ...rest, allowInputRequired: true } : rest) as never as Record<string, never>;
}
