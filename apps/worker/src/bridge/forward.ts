import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  ResultSchema,
  RootsListChangedNotificationSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
  type CallToolResult,
  type ClientCapabilities,
  type RequestId,
  type Result,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import {
  canAnswer,
  DEFAULT_SERVER_REQUEST_TIMEOUT_MS,
  relayedCall,
  relayLogging,
  requestOptions,
} from "@switchboard/core/proxy";
import { ConnectionClosedError, type ServerToClientRequest, type UpstreamConnection } from "@switchboard/core/upstream";

interface Call {
  requestId: RequestId;
  signal: AbortSignal;
  startedAt: number;
}

interface ForwardingSession {
  server: Server;
  calls: Call[];
}

let sequence = 0;

/**
 * Where what a hosted stdio server asks its client goes. Only processes for capable clients ask (the main process
 * offers nothing), and each belongs to one bridge session (`ClientProcesses`), which the route opens for one
 * client session or one request: a request goes to that session, on the stream of its call in progress (the
 * latest, when several), or refused when its client did not declare what it needs. No other session ever sees it.
 */
export class ServerRequestRelay {
  private readonly sessions = new Map<string, ForwardingSession>();

  add(owner: string, session: ForwardingSession): () => void {
    this.sessions.set(owner, session);
    return () => {
      if (this.sessions.get(owner) === session) this.sessions.delete(owner);
    };
  }

  async relay(owner: string, request: ServerToClientRequest, { signal }: { signal: AbortSignal }): Promise<Result> {
    const session = this.sessions.get(owner);
    const mode = request.method === "elicitation/create" ? (request.params as { mode?: string }).mode : undefined;
    if (!session || !canAnswer(session.server.getClientCapabilities(), request))
      throw new McpError(
        ErrorCode.InvalidRequest,
        `No connected client can answer ${request.method}${mode === "url" ? " (URL mode)" : ""}`,
      );
    // Sent while a call is in progress: it belongs to that call (the latest, when several), whose stream carries it.
    const latest = session.calls.reduce<Call | undefined>(
      (a, c) => (!a || c.startedAt > a.startedAt ? c : a),
      undefined,
    );
    return session.server.request(request as ServerRequest, ResultSchema, {
      signal: latest ? AbortSignal.any([signal, latest.signal]) : signal,
      timeout: DEFAULT_SERVER_REQUEST_TIMEOUT_MS,
      ...(latest ? { relatedRequestId: latest.requestId } : {}),
    });
  }
}

/**
 * An MCP server for one bridge session that forwards every request to the instance's upstream connection for
 * what this session's client declared (`forClient`): sessions whose clients declared no sampling, elicitation or
 * roots (the proxy route's shared connections, other workers) share the main process; every other session has a
 * process of its own, whose requests to its client come back here (`relay`, under the session's `owner` name).
 */
export function createForwardingServer(
  first: UpstreamConnection,
  forClient: (capabilities: ClientCapabilities | undefined) => Promise<UpstreamConnection>,
  relay?: { relay: ServerRequestRelay; owner: string },
): Server {
  const capabilities = first.getServerCapabilities() ?? {};
  const info = first.getServerVersion() ?? { name: "switchboard-bridge", version: "0.0.0" };
  const server = new Server(info, { capabilities, instructions: first.getInstructions() });
  const connection = () => forClient(server.getClientCapabilities());
  // A request that got the connection just before it was replaced (its process faulted or restarted) finds it
  // closed before anything was sent: it goes once more, on the connection that replaced it.
  const upstream = async <T>(use: (connection: UpstreamConnection) => Promise<T>): Promise<T> => {
    try {
      return await use(await connection());
    } catch (error) {
      if (!(error instanceof ConnectionClosedError)) throw error;
      return use(await connection());
    }
  };
  const session: ForwardingSession = { server, calls: [] };
  const tracked = async <T>(
    extra: { requestId: RequestId; signal: AbortSignal },
    run: () => Promise<T>,
  ): Promise<T> => {
    const call = { requestId: extra.requestId, signal: extra.signal, startedAt: ++sequence };
    session.calls.push(call);
    try {
      return await run();
    } finally {
      session.calls.splice(session.calls.indexOf(call), 1);
    }
  };
  const unregister = relay?.relay.add(relay.owner, session);
  const releases = new Map<string, () => Promise<void>>();
  server.onclose = () => {
    unregister?.();
    for (const release of releases.values()) void release().catch(() => {});
    releases.clear();
  };

  server.setRequestHandler(ListToolsRequestSchema, (req) => upstream((c) => c.listTools(req.params)));
  // Progress and log messages of a request go back to the session that asked, as the hosted route does with
  // its own clients: the upstream connection asks with a progress token of its own, relayed under the caller's.
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const { params, options } = relayedCall(req.params, extra);
    const result = await tracked(extra, () =>
      upstream((c) => relayLogging(c, extra, () => c.callTool(params, options))),
    );
    return result as CallToolResult;
  });
  if (capabilities.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, (req) => upstream((c) => c.listResources(req.params)));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, (req) =>
      upstream((c) => c.listResourceTemplates(req.params)),
    );
    server.setRequestHandler(ReadResourceRequestSchema, (req, extra) =>
      tracked(extra, () =>
        upstream((c) => relayLogging(c, extra, () => c.readResource(req.params, requestOptions(undefined, extra)))),
      ),
    );
  }
  if (capabilities.resources?.subscribe) {
    server.setRequestHandler(SubscribeRequestSchema, async (req, extra) => {
      const { uri } = req.params;
      if (releases.has(uri)) return {};
      const subscribed = await upstream(async (c) => {
        await c.subscribeResource(uri, requestOptions(undefined, extra));
        return c;
      });
      const off = subscribed.onResourceUpdated((updated) => {
        if (updated === uri) void server.sendResourceUpdated({ uri }).catch(() => {});
      });
      releases.set(uri, async () => {
        off();
        await subscribed.unsubscribeResource(uri);
      });
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, async (req) => {
      const release = releases.get(req.params.uri);
      releases.delete(req.params.uri);
      await release?.();
      return {};
    });
  }
  if (capabilities.prompts) {
    server.setRequestHandler(ListPromptsRequestSchema, (req) => upstream((c) => c.listPrompts(req.params)));
    server.setRequestHandler(GetPromptRequestSchema, (req, extra) =>
      tracked(extra, () =>
        upstream((c) => relayLogging(c, extra, () => c.getPrompt(req.params, requestOptions(undefined, extra)))),
      ),
    );
  }
  if (capabilities.completions) {
    server.setRequestHandler(CompleteRequestSchema, (req, extra) =>
      upstream((c) => c.complete(req.params, requestOptions(undefined, extra))),
    );
  }
  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    await (await connection()).client?.sendRootsListChanged().catch(() => {});
  });
  return server;
}
