import type { IncomingMessage, ServerResponse } from "node:http";
import {
  checkModernPost,
  legacyRequest,
  logAllowed,
  modernResult,
  SERVED_PROTOCOL_VERSIONS,
  StatelessExchange,
  writeJsonRpcError,
  writeJsonRpcErrors,
  type JsonRpcPost,
  type ModernRequest,
} from "@switchboard/core/proxy";
import type { JSONRPCMessage, RequestId } from "@modelcontextprotocol/sdk/types.js";
import { onMemberEvent } from "@switchboard/runtime/live-events";
import { CATALOGUE_TTL_MS } from "./catalogue-cache";
import { createMemberProxy, SessionScopeError, staleConnection, type MemberContext } from "./sessions";
import { forgetSecrets, upstreamPool } from "./upstreams";

/**
 * MCP 2026-07-28 on the route: every request stands alone. Its `_meta` says who the client is and what it can
 * do; the member's proxy is built for the request from the same catalogue cache, upstream connections and
 * sinks the 2025-11-25 sessions use, answers it, and is dropped. Nothing is kept for a later request, so any
 * gateway process serves any request without sessions in Redis or sticky routing.
 */

export const SERVER_INFO = { name: "switchboard", version: "0.1.0" };
/** Resource contents are read from the upstream on every request, so a read is never fresh for long. */
const READ_TTL_MS = 0;
/** 2025-11-25's "resource not found"; 2026-07-28 says -32602 and forbids emitting the old code. */
const LEGACY_RESOURCE_NOT_FOUND = -32002;

const ttlMs = (method: string) => (method === "resources/read" ? READ_TTL_MS : CATALOGUE_TTL_MS);

/**
 * Upstream connections are shared with the member's 2025 sessions, whose event handlers drop them after a
 * restart. A process that serves only 2026 requests has no session to do that, so it watches the member itself.
 */
const watched = new Map<string, () => void>();
function watchConnections(userId: string): void {
  if (watched.has(userId)) return;
  watched.set(
    userId,
    onMemberEvent(userId, (event) => {
      if (!staleConnection(event)) return;
      void upstreamPool().evict(event.instanceId);
      forgetSecrets(event.instanceId);
    }),
  );
}

function shape(method: string, message: JSONRPCMessage & { id: RequestId }): JSONRPCMessage {
  if ("result" in message)
    return { ...message, result: modernResult(method, message.result, SERVER_INFO, ttlMs) } as JSONRPCMessage;
  if ("error" in message && message.error.code === LEGACY_RESOURCE_NOT_FOUND)
    return { ...message, error: { ...message.error, code: -32602 } };
  return message;
}

/** What `server/discover` answers: the member's aggregated capabilities on this path. */
function discovered(offers: { completions: boolean }): Record<string, unknown> {
  return {
    supportedVersions: SERVED_PROTOCOL_VERSIONS,
    capabilities: {
      tools: {},
      resources: {},
      prompts: {},
      logging: {},
      ...(offers.completions ? { completions: {} } : {}),
    },
  };
}

function writeJson(res: ServerResponse, message: JSONRPCMessage): void {
  const body = JSON.stringify(message);
  res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** Serves one 2026-07-28 POST (the caller authenticated it and read its body). Never throws for client input. */
export async function serveModern(
  req: IncomingMessage,
  res: ServerResponse,
  post: JsonRpcPost,
  member: MemberContext,
): Promise<void> {
  const check = checkModernPost(req.headers, post);
  if (!check.ok) return writeJsonRpcErrors(res, check.status, check.error);
  if ("notification" in check) return void res.writeHead(202).end();
  const request: ModernRequest = check.request;
  const { id, method } = request.message;
  watchConnections(member.userId);
  let built: Awaited<ReturnType<typeof createMemberProxy>>;
  try {
    // Sampling, elicitation and roots reach a 2026 client only as input_required results: the request is served
    // on the member's shared connections, which offer upstreams none of the three.
    built = await createMemberProxy(member, undefined);
  } catch (err) {
    if (err instanceof SessionScopeError) return writeJsonRpcError(res, 404, -32600, err.message, {}, id);
    throw err;
  }
  const { proxy, offers } = built;
  try {
    if (method === "server/discover") {
      return writeJson(res, {
        jsonrpc: "2.0",
        id,
        result: modernResult(method, discovered(offers), SERVER_INFO, ttlMs) as never,
      });
    }
    const exchange = new StatelessExchange(res, id, {
      sse: /text\/event-stream|\*\/\*/.test(req.headers.accept ?? ""),
      shape: (message) => shape(method, message),
      relay: (message) =>
        message.method !== "notifications/message" ||
        logAllowed((message as { params?: { level?: unknown } }).params?.level, request.logLevel),
    });
    await proxy.server.connect(exchange);
    exchange.dispatch(legacyRequest(request.message) as JSONRPCMessage, {
      requestInfo: { headers: req.headers as never },
    });
    await exchange.done;
  } finally {
    await proxy.server.close().catch(() => undefined);
    await proxy.dispose();
  }
}
