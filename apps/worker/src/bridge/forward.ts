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
import { DEFAULT_SERVER_REQUEST_TIMEOUT_MS, relayedCall, relayLogging, requestOptions } from "@switchboard/core/proxy";
import type { ServerToClientRequest, UpstreamConnection } from "@switchboard/core/upstream";
import { capabilityProcessId, processCapabilities } from "../client-processes";

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
 * Where what a hosted stdio server asks its client goes. Only the instance's processes for capable clients ask
 * (`ClientProcesses`: one per set of client capabilities, the main process offers nothing), and such a process
 * is shared by the bridge sessions of the instance (one member's) whose clients declared exactly that set: a
 * request goes to the one of them whose call started last, on that call's stream; with no call in progress, to
 * any of them. Sessions of another capability set or another instance never see it.
 */
export class ServerRequestRelay {
  private readonly sessions = new Map<string, Set<ForwardingSession>>();

  add(instanceId: string, session: ForwardingSession): () => void {
    const set = this.sessions.get(instanceId) ?? new Set();
    set.add(session);
    this.sessions.set(instanceId, set);
    return () => {
      set.delete(session);
      if (set.size === 0 && this.sessions.get(instanceId) === set) this.sessions.delete(instanceId);
    };
  }

  async relay(
    instanceId: string,
    processId: string,
    request: ServerToClientRequest,
    { signal }: { signal: AbortSignal },
  ): Promise<Result> {
    const mode = request.method === "elicitation/create" ? (request.params as { mode?: string }).mode : undefined;
    const able = (s: ForwardingSession) => {
      const caps = s.server.getClientCapabilities() ?? {};
      if (request.method === "sampling/createMessage") return caps.sampling !== undefined;
      if (request.method === "roots/list") return caps.roots !== undefined;
      return caps.elicitation !== undefined && (mode !== "url" || caps.elicitation.url !== undefined);
    };
    const ofProcess = (s: ForwardingSession) => {
      const set = processCapabilities(s.server.getClientCapabilities());
      return set !== undefined && capabilityProcessId(instanceId, set) === processId;
    };
    const sessions = [...(this.sessions.get(instanceId) ?? [])].filter(ofProcess);
    // Sent while a call is in progress: it belongs to that call (the latest, when several), whose client answers
    // it or nobody does. With none in progress, any session whose client can answer it.
    let latest: { session: ForwardingSession; call: Call } | undefined;
    for (const session of sessions)
      for (const call of session.calls)
        if (!latest || call.startedAt > latest.call.startedAt) latest = { session, call };
    const target = latest ? (able(latest.session) ? latest.session : undefined) : sessions.find(able);
    if (!target)
      throw new McpError(
        ErrorCode.InvalidRequest,
        `No connected client can answer ${request.method}${mode === "url" ? " (URL mode)" : ""}`,
      );
    return target.server.request(request as ServerRequest, ResultSchema, {
      signal: latest ? AbortSignal.any([signal, latest.call.signal]) : signal,
      timeout: DEFAULT_SERVER_REQUEST_TIMEOUT_MS,
      ...(latest ? { relatedRequestId: latest.call.requestId } : {}),
    });
  }
}

/**
 * An MCP server for one bridge session that forwards every request to the instance's upstream connection for
 * what this session's client declared (`forClient`): sessions whose clients declared no sampling, elicitation or
 * roots (the proxy route's shared connections, other workers) share the main process; others share the process
 * of their capability set.
 */
export function createForwardingServer(
  first: UpstreamConnection,
  forClient: (capabilities: ClientCapabilities | undefined) => Promise<UpstreamConnection>,
  relay?: { relay: ServerRequestRelay; instanceId: string },
): Server {
  const capabilities = first.getServerCapabilities() ?? {};
  const info = first.getServerVersion() ?? { name: "switchboard-bridge", version: "0.0.0" };
  const server = new Server(info, { capabilities, instructions: first.getInstructions() });
  const connection = () => forClient(server.getClientCapabilities());
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
  const unregister = relay?.relay.add(relay.instanceId, session);
  const releases = new Map<string, () => Promise<void>>();
  server.onclose = () => {
    unregister?.();
    for (const release of releases.values()) void release().catch(() => {});
    releases.clear();
  };

  server.setRequestHandler(ListToolsRequestSchema, async (req) => (await connection()).listTools(req.params));
  // Progress and log messages of a request go back to the session that asked, as the hosted route does with
  // its own clients: the upstream connection asks with a progress token of its own, relayed under the caller's.
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const upstream = await connection();
    const { params, options } = relayedCall(req.params, extra);
    const result = await tracked(extra, () => relayLogging(upstream, extra, () => upstream.callTool(params, options)));
    return result as CallToolResult;
  });
  if (capabilities.resources) {
    server.setRequestHandler(ListResourcesRequestSchema, async (req) => (await connection()).listResources(req.params));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async (req) =>
      (await connection()).listResourceTemplates(req.params),
    );
    server.setRequestHandler(ReadResourceRequestSchema, async (req, extra) => {
      const upstream = await connection();
      return tracked(extra, () =>
        relayLogging(upstream, extra, () => upstream.readResource(req.params, requestOptions(undefined, extra))),
      );
    });
  }
  if (capabilities.resources?.subscribe) {
    server.setRequestHandler(SubscribeRequestSchema, async (req, extra) => {
      const { uri } = req.params;
      if (releases.has(uri)) return {};
      const upstream = await connection();
      await upstream.subscribeResource(uri, requestOptions(undefined, extra));
      const off = upstream.onResourceUpdated((updated) => {
        if (updated === uri) void server.sendResourceUpdated({ uri }).catch(() => {});
      });
      releases.set(uri, async () => {
        off();
        await upstream.unsubscribeResource(uri);
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
    server.setRequestHandler(ListPromptsRequestSchema, async (req) => (await connection()).listPrompts(req.params));
    server.setRequestHandler(GetPromptRequestSchema, async (req, extra) => {
      const upstream = await connection();
      return tracked(extra, () =>
        relayLogging(upstream, extra, () => upstream.getPrompt(req.params, requestOptions(undefined, extra))),
      );
    });
  }
  if (capabilities.completions) {
    server.setRequestHandler(CompleteRequestSchema, async (req, extra) =>
      (await connection()).complete(req.params, requestOptions(undefined, extra)),
    );
  }
  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
    await (await connection()).client?.sendRootsListChanged().catch(() => {});
  });
  return server;
}
