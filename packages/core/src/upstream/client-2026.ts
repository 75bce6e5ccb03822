import { Client as SdkClientV2, LOG_LEVEL_META_KEY } from "@modelcontextprotocol/client";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { DiscoverResult } from "@modelcontextprotocol/client";
import { HEADER_MISMATCH } from "../revisions/param-headers";
import { asLegacyError, v2 } from "./compat-2026";
import { ListenKeeper, listenOpener, type ListenOptions } from "./listen-2026";
import { ANY_RESULT, carryTasks, uncarryTask, withTasks, type TaskMethod } from "./tasks-2026";
import { toolSchemasOf, type ToolSchemas } from "./revision";

/** What a connection's requests use of its client: the SDK 1.x `Client` (2025) or a `Client2026` (2026). */
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

/** A request a 2026-07-28 server embeds in an `input_required` result, answered by the connection's relay. */
export type EmbeddedRequestHandler = (
  request: { method: string; params?: Record<string, unknown> },
  extra: { signal: AbortSignal; requestId: string | number },
) => Promise<Record<string, unknown>>;

export interface Client2026Options extends ListenOptions {
  /** Answers `elicitation/create`, `sampling/createMessage` and `roots/list` of `input_required` results. */
  onEmbeddedRequest?: EmbeddedRequestHandler;
  onLoggingMessage?: (params: unknown) => void;
  /**
   * The 2026-07-28 revision sends a call's log lines only when the request names a level (per request, no
   * `logging/setLevel`): asked for calls while this says one, typically while someone listens.
   */
  logLevel?: () => "debug" | undefined;
  onClose?: () => void;
}

/**
 * The client of a connection to a 2026-07-28 upstream: SDK v2's `Client`, adopting the `server/discover` answer the
 * probe got (no second round trip), which then sends the per-request `_meta` envelope (protocol version, client
 * info and capabilities) with every request, and fulfils `input_required` results through `onEmbeddedRequest`
 * before retrying with `inputResponses` and `requestState`. It answers in the SDK 1.x shapes and errors.
 */
export class Client2026 implements SessionClient {
  private readonly sdk: SdkClientV2;

  private readonly logLevel: () => string | undefined;
  private readonly capabilities: ClientCapabilities;
  private readonly listen: ListenKeeper;
  /** Over HTTP: the tools' schemas a call's `Mcp-Param-*` headers are read from (none over stdio). */
  private readonly schemas: ToolSchemas | undefined;

  private constructor(
    sdk: SdkClientV2,
    logLevel: (() => string | undefined) | undefined,
    capabilities: ClientCapabilities,
    listen: ListenKeeper,
    schemas: ToolSchemas | undefined,
  ) {
    this.sdk = sdk;
    this.schemas = schemas;
    this.logLevel = logLevel ?? (() => undefined);
    this.capabilities = capabilities;
    this.listen = listen;
  }

  /**
   * Ask for (or stop asking for) the upstream's list changes on the listen stream. 2026-07-28 has no GET stream:
   * an upstream's notifications arrive only on a `subscriptions/listen` this client holds open while wanted.
   */
  wantListChanges(wanted: boolean): Promise<void> {
    return this.listen.wantListChanges(wanted);
  }

  /** The params of a call, asking for its log lines when someone listens (the caller's own `_meta` wins). */
  private withLogLevel<P extends { _meta?: Record<string, unknown> }>(params: P): P {
    const level = this.logLevel();
    return level ? { ...params, _meta: { [LOG_LEVEL_META_KEY]: level, ...params._meta } } : params;
  }

  static async connect(transport: Transport, discover: DiscoverResult, options: Client2026Options) {
    // The same JSON in both SDKs; v2 types `experimental` more narrowly.
    const sdk = new SdkClientV2(options.clientInfo, { capabilities: options.capabilities as never });
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
      // `kind: "modern"` is SDK v2's own name for a 2026-07-28 prior discovery.
      await sdk.connect(transport as never, { prior: { kind: "modern", discover } });
    } catch (error) {
      throw asLegacyError(error);
    }
    carryTasks(transport);
    const listen = new ListenKeeper(listenOpener(sdk, transport, discover, options));
    return new Client2026(sdk, options.logLevel, options.capabilities, listen, toolSchemasOf(transport));
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
      const call = () =>
        this.sdk.callTool(this.withLogLevel(tasks ? withTasks(params, this.capabilities) : params), v2(options));
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
      return uncarryTask(result);
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
    return this.run(() =>
      this.sdk.request({ method, params: withTasks(params, this.capabilities) }, ANY_RESULT, v2(options)),
    );
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
    await this.listen.subscribe(params.uri);
    return {};
  };
  unsubscribeResource: Client["unsubscribeResource"] = async (params) => {
    await this.listen.unsubscribe(params.uri);
    return {};
  };
  /** 2026-07-28 removed `ping`: `server/discover` is the cheapest request that proves the server answers. */
  ping: Client["ping"] = (options) => this.run(() => this.sdk.discover(v2(options)).then(() => ({})));
  /** The stateless revision has no roots-changed notification to a server; roots travel with each request. */
  sendRootsListChanged: Client["sendRootsListChanged"] = async () => {};
  close: Client["close"] = async () => {
    await this.listen.end();
    await this.sdk.close();
  };
  getServerCapabilities: Client["getServerCapabilities"] = () => this.sdk.getServerCapabilities() as never;
  getServerVersion: Client["getServerVersion"] = () => this.sdk.getServerVersion() as never;
  getInstructions: Client["getInstructions"] = () => this.sdk.getInstructions();
}
