import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Implementation,
  type ProgressToken,
  type ServerNotification,
} from "@modelcontextprotocol/sdk/types.js";
import { CallRejectedError, forward, type ForwardDeps } from "./forward";
import { RecoveryCoordinator } from "./recovery";
import { ROUTER_TOOL_NAMES, ROUTER_TOOLS, SEARCH_DEFAULT_LIMIT, searchTools } from "./router-mode";
import { buildRouter, type Router } from "./router";
import type {
  CallSink,
  CatalogueSource,
  MemberInstance,
  ProxyMember,
  ProxyMode,
  RediscoveryTrigger,
  RetryOverrides,
  StatusSink,
  UpstreamClient,
  UpstreamProvider,
} from "./types";

export type CatalogueKind = "tools" | "resources" | "prompts";

export interface ProxyServerOptions {
  member: ProxyMember;
  mode?: ProxyMode;
  /** `all`: every tool of every online instance. `router`: four meta-tools to search and call them (router-mode.ts). */
  toolMode?: "all" | "router";
  catalogue: CatalogueSource;
  upstreams: UpstreamProvider;
  status: StatusSink;
  rediscovery: RediscoveryTrigger;
  /** Share one coordinator across a process's proxy servers; one is made per server otherwise. */
  recovery?: RecoveryCoordinator;
  calls: CallSink;
  retry?: RetryOverrides;
  /** Per-attempt timeout of forwarded requests; the upstream connection's default applies when unset. */
  callTimeoutMs?: number;
  serverInfo?: Implementation;
  now?: () => number;
  onRecoveryError?: (instanceId: string, error: unknown) => void;
  /** The member's catalogue could not be read (the client gets a generic message; the detail goes here). */
  onCatalogueError?: (error: unknown) => void;
  /** An instance's secrets, redacted from the failure messages the proxy composes (see ForwardDeps). */
  redactor?: ForwardDeps["redactor"];
}

export interface ProxyServer {
  /** Connect it to the downstream transport (`server.connect(transport)`). */
  server: Server;
  recovery: RecoveryCoordinator;
  /** Tell the connected client that the member's catalogue changed, e.g. after a discovery or a status change. */
  notifyCatalogueChanged(kinds?: readonly CatalogueKind[]): Promise<void>;
}

export interface DownstreamExtra {
  signal: AbortSignal;
  sendNotification: (notification: ServerNotification) => Promise<void>;
}

/** The MCP server a member's client talks to: their online instances' catalogue, routed to live upstreams. */
export function createProxyServer(options: ProxyServerOptions): ProxyServer {
  const mode = options.mode ?? "namespaced";
  const recovery =
    options.recovery ??
    new RecoveryCoordinator({ status: options.status, rediscovery: options.rediscovery, onError: options.onRecoveryError });
  const deps: ForwardDeps = {
    member: options.member,
    upstreams: options.upstreams,
    status: options.status,
    recovery,
    calls: options.calls,
    retry: options.retry,
    now: options.now ?? Date.now,
    redactor: options.redactor,
  };
  const server = new Server(options.serverInfo ?? { name: "switchboard", version: "0.0.0" }, {
    capabilities: {
      tools: { listChanged: true },
      resources: { listChanged: true },
      prompts: { listChanged: true },
      logging: {},
    },
  });
  // The routing index is rebuilt only when the catalogue source hands back a different snapshot (apps cache it),
  // not on every call: for a member with a thousand tools that index is most of a call's work.
  let built: { instances: readonly MemberInstance[]; router: Router } | undefined;
  const router = async (): Promise<Router> => {
    let instances: readonly MemberInstance[];
    try {
      instances = await options.catalogue.list(options.member);
    } catch (error) {
      // A store's error text (SQL, driver detail) is not for the client.
      options.onCatalogueError?.(error);
      throw new McpError(ErrorCode.InternalError, "Your servers could not be loaded right now; try again in a moment.");
    }
    if (built?.instances !== instances) built = { instances, router: buildRouter(mode, instances) };
    return built.router;
  };

  const routerMode = options.toolMode === "router";
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: routerMode ? ROUTER_TOOLS : (await router()).tools() }));
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: (await router()).resources() }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: (await router()).resourceTemplates(),
  }));
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: (await router()).prompts() }));

  const callTool = async (name: string, args: Record<string, unknown> | undefined, _meta: Record<string, unknown> | undefined, extra: DownstreamExtra): Promise<CallToolResult> => {
    const route = (await router()).resolveTool(name);
    if (!route) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const relayed = relayedCall({ name: route.target, arguments: args, _meta }, extra, options.callTimeoutMs);
    try {
      return (await forward(deps, {
        route,
        kind: "tool",
        requested: name,
        arguments: args,
        signal: extra.signal,
        run: (client) =>
          relayLogging(client, extra, () => client.callTool(relayed.params, relayed.options)),
        isToolError: (result) => result.isError === true,
      })) as CallToolResult;
    } catch (error) {
      // Tool failures go back as a tool result so the model reads the reason and can tell the member.
      if (error instanceof CallRejectedError) return { isError: true, content: [{ type: "text", text: error.message }] };
      throw error;
    }
  };

  const readResource = async (uri: string, extra: DownstreamExtra) => {
    const route = (await router()).resolveResource(uri);
    if (!route) throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${uri}`);
    // Content is read from the upstream every time; only the listing is cached.
    return rejectAsMcpError(() =>
      forward(deps, {
        route,
        kind: "resource",
        requested: uri,
        arguments: undefined,
        signal: extra.signal,
        run: (client) =>
          relayLogging(client, extra, () => client.readResource({ uri: route.target }, requestOptions(options.callTimeoutMs, extra))),
      }),
    );
  };

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name, arguments: args, _meta } = request.params;
    if (!routerMode) return callTool(name, args, _meta, extra);
    return callRouterTool(name, args ?? {}, _meta, extra);
  });

  /** The four meta-tools of router mode; `call_tool` and `read_resource` take the same path as direct calls. */
  const callRouterTool = async (name: string, args: Record<string, unknown>, _meta: Record<string, unknown> | undefined, extra: DownstreamExtra): Promise<CallToolResult> => {
    const text = (value: unknown): CallToolResult => ({ content: [{ type: "text", text: JSON.stringify(value, null, 2) }] });
    switch (name) {
      case ROUTER_TOOL_NAMES.search: {
        if (typeof args.query !== "string") throw new McpError(ErrorCode.InvalidParams, "search_tools needs a string `query`");
        const limit = typeof args.limit === "number" ? args.limit : SEARCH_DEFAULT_LIMIT;
        const found = searchTools((await router()).tools(), args.query, limit);
        return text({ tools: found.map((t) => ({ name: t.name, description: t.description ?? "", inputSchema: t.inputSchema })) });
      }
      case ROUTER_TOOL_NAMES.call: {
        if (typeof args.name !== "string") throw new McpError(ErrorCode.InvalidParams, "call_tool needs the tool's `name`");
        const inner = args.arguments;
        if (inner !== undefined && (typeof inner !== "object" || inner === null || Array.isArray(inner))) {
          throw new McpError(ErrorCode.InvalidParams, "call_tool `arguments` must be an object");
        }
        return callTool(args.name, inner as Record<string, unknown> | undefined, _meta, extra);
      }
      case ROUTER_TOOL_NAMES.listResources: {
        const r = await router();
        return text({ resources: r.resources(), resourceTemplates: r.resourceTemplates() });
      }
      case ROUTER_TOOL_NAMES.readResource: {
        if (typeof args.uri !== "string") throw new McpError(ErrorCode.InvalidParams, "read_resource needs a `uri`");
        try {
          const result = await readResource(args.uri, extra);
          return { content: result.contents.map((resource) => ({ type: "resource" as const, resource })) };
        } catch (error) {
          if (error instanceof McpError) return { isError: true, content: [{ type: "text", text: error.message }] };
          throw error;
        }
      }
      default:
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}. In router mode, use search_tools and call_tool.`);
    }
  };

  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => readResource(request.params.uri, extra));

  server.setRequestHandler(GetPromptRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    const route = (await router()).resolvePrompt(name);
    if (!route) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    return rejectAsMcpError(() =>
      forward(deps, {
        route,
        kind: "prompt",
        requested: name,
        arguments: args,
        signal: extra.signal,
        run: (client) =>
          relayLogging(client, extra, () =>
            client.getPrompt({ name: route.target, arguments: args }, requestOptions(options.callTimeoutMs, extra)),
          ),
      }),
    );
  });

  return {
    server,
    recovery,
    async notifyCatalogueChanged(kinds = ["tools", "resources", "prompts"]) {
      if (!server.transport) return;
      const send: Record<CatalogueKind, () => Promise<void>> = {
        tools: () => server.sendToolListChanged(),
        resources: () => server.sendResourceListChanged(),
        prompts: () => server.sendPromptListChanged(),
      };
      // A client that went away is not our caller's problem.
      await Promise.all(kinds.map((kind) => send[kind]().catch(() => {})));
    },
  };
}

/** Upstream progress for this request goes to the downstream client under the client's own progress token. */
export function requestOptions(timeout: number | undefined, extra: DownstreamExtra, progressToken?: unknown): RequestOptions {
  const options: RequestOptions = { signal: extra.signal, ...(timeout !== undefined ? { timeout } : {}) };
  if (typeof progressToken === "string" || typeof progressToken === "number") {
    const token: ProgressToken = progressToken;
    options.resetTimeoutOnProgress = true;
    options.onprogress = (progress) => {
      void extra
        .sendNotification({ method: "notifications/progress", params: { ...progress, progressToken: token } })
        .catch(() => {});
    };
  }
  return options;
}

/**
 * A tools/call to send upstream on behalf of a downstream request: the caller's progress token comes off the
 * params (the upstream connection asks with a token of its own) and its progress is relayed under the caller's.
 */
export function relayedCall<P extends { _meta?: Record<string, unknown> }>(
  params: P,
  extra: DownstreamExtra,
  timeout?: number,
): { params: P; options: RequestOptions } {
  const { _meta, ...rest } = params;
  const { progressToken, ...meta } = _meta ?? {};
  const forwarded = (Object.keys(meta).length > 0 ? { ...rest, _meta: meta } : rest) as P;
  return { params: forwarded, options: requestOptions(timeout, extra, progressToken) };
}

/**
 * Upstream log messages that arrive while the request runs are sent to the downstream client as related to
 * this request. The upstream connection is the member's own, so nothing leaks to another member; two
 * concurrent calls on one instance both see its messages.
 */
export async function relayLogging<T>(client: UpstreamClient, extra: DownstreamExtra, run: () => Promise<T>): Promise<T> {
  const unsubscribe = client.onLoggingMessage?.((params) => {
    void extra.sendNotification({ method: "notifications/message", params }).catch(() => {});
  });
  try {
    return await run();
  } finally {
    unsubscribe?.();
  }
}

async function rejectAsMcpError<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof CallRejectedError) {
      throw new McpError(error.outcome === "blocked" ? ErrorCode.InvalidRequest : ErrorCode.InternalError, error.message);
    }
    throw error;
  }
}
