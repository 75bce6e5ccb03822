import type { IncomingMessage, ServerResponse } from "node:http";
import {
  invalidParamsMessage,
  is2026Post,
  readPost,
  writeJsonRpcError,
  writeSessionRequired,
  writeJsonRpcErrors,
  type JsonRpcPost,
} from "@switchboard/core/proxy";
import { getDb } from "@switchboard/db/client";
import { env } from "@switchboard/runtime/env";
import { logger } from "@switchboard/runtime/logger";
import { authenticate } from "../auth/authenticate";
import { authenticateOAuth, looksLikeJwt } from "../auth/oauth";
import type { Principal } from "../auth/token-cache";
import { bearerChallenge } from "./oauth-metadata";
import { findToolset, findToolsetForMember } from "@switchboard/db/queries/toolset";
import { SessionScopeError } from "./member-proxy";
import { findSession, startSession, type LiveSession } from "./sessions";
import { sessionRateMessage, takeSessionRate } from "./session-rate";
import { serve2026 } from "./serve-2026";
import { longLived } from "../lifecycle/streams";
import { routeMetrics } from "../metrics";
import type { AuthFailureReason } from "@switchboard/runtime/metrics";

/**
 * The hosted MCP endpoint (`/api/mcp`, and `/api/mcp/servers/{slug}` for one installation), served straight
 * from Node's HTTP server by `server.ts` ahead of Next: a proxied call pays for no framework routing, no
 * Request/Response conversion and no web stream.
 */

const JSONRPC_INVALID_REQUEST = -32600;
const JSONRPC_INVALID_PARAMS = -32602;
const SESSION_NOT_FOUND = -32001;
/** An implementation-defined server error (-32000 to -32099, none the specification reserves); HTTP 429 says it too. */
const SESSION_RATE_LIMITED = -32029;

/** Session ids are visible ASCII (MCP Streamable HTTP); ours are UUIDs. Anything else is refused unread. */
const SESSION_ID = /^[\x21-\x7e]{1,128}$/;
/** What a server name in the path may decode to: printable text, no NUL or other control characters. */
const SCOPE = /^[^\p{Cc}%/]{1,200}$/u;

/** What a path serves: every server (`null`), one installation by slug, or a toolset (`{ set }`). */
export type McpScope = string | { set: string } | null;

/** Whether a request path is the MCP route's, and for which installation or toolset (`null` scope = every server). */
export function matchMcpPath(url: string | undefined): { scope: McpScope } | null {
  if (!url) return null;
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  if (path === "/api/mcp" || path === "/api/mcp/") return { scope: null };
  const m = /^\/api\/mcp\/(servers|sets)\/([^/]+)\/?$/.exec(path);
  if (!m) return null;
  let name: string;
  try {
    name = decodeURIComponent(m[2]!);
  } catch {
    // Not percent-encoded UTF-8: kept encoded, so the route refuses it (slugs never contain "%").
    name = m[2]!;
  }
  return { scope: m[1] === "sets" ? { set: name } : name };
}

function unauthorized(res: ServerResponse, scope: string | null, message: string, reason: AuthFailureReason): void {
  routeMetrics()?.authFailure(reason);
  const invalidToken = reason !== "missing";
  const challenge = bearerChallenge(scope, invalidToken ? { description: message } : undefined);
  writeJsonRpcError(res, 401, JSONRPC_INVALID_REQUEST, message, { "www-authenticate": challenge });
}

const REFUSED_OAUTH = {
  invalid: "The token is unknown, expired or revoked",
  audience: "The token was issued for another MCP route (its resource); sign in again for this URL",
  revoked: "This client's access was revoked, or its member left the team; sign in again",
} as const;

/** A personal access token, or an OAuth access token (a JWT of our authorization server) for this route. */
async function principalOf(
  bearer: string,
  scope: string | null,
): Promise<{ ok: true; principal: Principal } | { ok: false; message: string; reason: keyof typeof REFUSED_OAUTH }> {
  if (looksLikeJwt(bearer)) {
    const result = await authenticateOAuth({ db: getDb(), bearer, appUrl: env().APP_URL, scope });
    return result.ok ? result : { ok: false, message: REFUSED_OAUTH[result.reason], reason: result.reason };
  }
  const principal = await authenticate({ db: getDb(), bearer });
  return principal ? { ok: true, principal } : { ok: false, message: REFUSED_OAUTH.invalid, reason: "invalid" };
}

let allowed: { hosts: Set<string>; origins: Set<string>; extra: readonly string[] } | undefined;

/**
 * DNS-rebinding protection: the Host must be the console's own (or one listed in MCP_ALLOWED_HOSTS), and a
 * browser Origin, when sent, must be the console's origin or name one of those extra hosts (an operator who
 * serves the route under another name serves it to browsers there too).
 */
function refusedOrigin(req: IncomingMessage): string | null {
  const { APP_URL, MCP_ALLOWED_HOSTS: extraHosts } = env();
  if (!allowed || allowed.extra !== extraHosts) {
    const app = new URL(APP_URL);
    const hosts = new Set([app.host, ...extraHosts]);
    const origins = new Set([app.origin, ...extraHosts.flatMap((h) => [`http://${h}`, `https://${h}`])]);
    allowed = { hosts, origins, extra: extraHosts };
  }
  const host = req.headers.host;
  if (host && !allowed.hosts.has(host)) return `Host ${host} is not allowed`;
  const origin = req.headers.origin;
  if (origin && !allowed.origins.has(origin)) return `Origin ${origin} is not allowed`;
  return null;
}

/**
 * The toolset a request is served from: the one in the path (the member's own of that name, else the team's),
 * or the token's own limit. A limited token on another path is refused with a sentence saying where it works.
 */
async function resolveToolset(
  principal: Principal,
  scope: string | null,
  set: string | null,
): Promise<{ id: string | null } | { refused: string; status: number }> {
  if (set === null && principal.toolsetId === null) return { id: null };
  const db = getDb();
  if (principal.toolsetId !== null) {
    const own = await findToolset(db, principal.toolsetId);
    if (!own) return { refused: "The toolset this token was limited to no longer exists.", status: 403 };
    if (scope !== null || (set !== null && set !== own.name))
      return {
        refused: `This token is limited to the toolset “${own.name}”; use /api/mcp/sets/${own.name}.`,
        status: 403,
      };
    return { id: own.id };
  }
  const found = await findToolsetForMember(db, { teamId: principal.teamId, userId: principal.userId, name: set! });
  if (!found) return { refused: `No toolset “${set}” exists for you in this team.`, status: 404 };
  return { id: found.id };
}

/** Serves one request of the MCP route. Never throws: failures become JSON-RPC errors. */
export async function handleMcpHttp(req: IncomingMessage, res: ServerResponse, path: McpScope): Promise<void> {
  try {
    const refused = refusedOrigin(req);
    if (refused) return writeJsonRpcError(res, 403, JSONRPC_INVALID_REQUEST, refused);
    let scope = typeof path === "string" ? path : null;
    const set = path !== null && typeof path === "object" ? path.set : null;
    // A server name that decodes to NUL or a control character, or does not decode at all, is not one we have.
    if (scope !== null && !SCOPE.test(scope)) {
      return writeJsonRpcError(
        res,
        400,
        JSONRPC_INVALID_REQUEST,
        "The server name in the path is not valid: use the installation's slug, percent-encoded UTF-8 without control characters",
      );
    }
    if (set !== null && !SCOPE.test(set)) {
      return writeJsonRpcError(
        res,
        400,
        JSONRPC_INVALID_REQUEST,
        "The toolset name in the path is not valid: use the toolset's name, percent-encoded UTF-8 without control characters",
      );
    }
    const sessionId = req.headers["mcp-session-id"];
    if (sessionId !== undefined && (typeof sessionId !== "string" || !SESSION_ID.test(sessionId))) {
      return writeJsonRpcError(
        res,
        400,
        JSONRPC_INVALID_REQUEST,
        "Bad Request: the Mcp-Session-Id header is malformed",
      );
    }

    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "")?.[1]?.trim();
    if (!bearer)
      return unauthorized(
        res,
        scope,
        "Authorization: Bearer <token> is required: sign in with OAuth, or use a personal access token",
        "missing",
      );
    const auth = await principalOf(bearer, scope);
    if (!auth.ok) return unauthorized(res, scope, auth.message, auth.reason);
    const principal = auth.principal;
    // A token limited to a toolset serves that toolset: at /api/mcp and at its own set's path, nowhere else.
    const toolset = await resolveToolset(principal, scope, set);
    if ("refused" in toolset) return writeJsonRpcError(res, toolset.status, JSONRPC_INVALID_REQUEST, toolset.refused);
    if (toolset.id !== null) scope = null;

    let post: JsonRpcPost | undefined;
    if (req.method === "POST") {
      const read = await readPost(req, res);
      if (!read) return;
      post = read;
    } else if (req.method !== "GET" && req.method !== "DELETE") {
      return writeJsonRpcError(res, 405, JSONRPC_INVALID_REQUEST, "Method not allowed", { allow: "GET, POST, DELETE" });
    }

    const member = {
      tokenId: principal.tokenId,
      userId: principal.userId,
      teamId: principal.teamId,
      mode: principal.mode,
      scope,
      toolset: toolset.id,
    };
    // A 2026-07-28 request stands alone: no initialize, no session (chosen by its _meta and headers).
    if (!sessionId && post && is2026Post(req.headers, post)) return await serve2026(req, res, post, member);

    let session: LiveSession;
    if (sessionId) {
      const found = await findSession(sessionId, principal);
      if (found && "closed" in found) return writeJsonRpcError(res, 404, SESSION_NOT_FOUND, found.message);
      if (!found || found.record.scope !== scope || (found.record.toolset ?? null) !== toolset.id)
        return writeJsonRpcError(res, 404, SESSION_NOT_FOUND, "Session not found; initialize a new session");
      session = found;
    } else {
      const initialize = post?.onlyRequest();
      if (initialize?.method !== "initialize") {
        return writeSessionRequired(res, initialize?.id ?? null);
      }
      // Refused before a session exists, in the sentence every other request's bad params get.
      const badParams = invalidParamsMessage(initialize);
      if (badParams) return writeJsonRpcError(res, 400, JSONRPC_INVALID_PARAMS, badParams, {}, initialize.id);
      // Opening sessions in a loop is refused before anything is built, with when to come back.
      const refusal = await takeSessionRate(member);
      if (refusal) {
        const resetsAt = new Date(Date.now() + refusal.retryAfterSeconds * 1000).toISOString();
        return writeJsonRpcErrors(
          res,
          429,
          {
            jsonrpc: "2.0",
            id: initialize.id,
            error: { code: SESSION_RATE_LIMITED, message: sessionRateMessage(refusal), data: { ...refusal, resetsAt } },
          },
          { "retry-after": String(refusal.retryAfterSeconds) },
        );
      }
      // The client's own objects, not zod's copies: what the SDK sees again when another process rebuilds the session.
      const params = initialize.params as {
        protocolVersion: string;
        capabilities: Record<string, unknown>;
        clientInfo: { name: string; version: string };
      };
      try {
        session = await startSession({
          ...member,
          initialize: {
            protocolVersion: params.protocolVersion,
            capabilities: params.capabilities,
            clientInfo: params.clientInfo,
          },
        });
      } catch (err) {
        if (err instanceof SessionScopeError)
          return writeJsonRpcError(res, 404, JSONRPC_INVALID_REQUEST, err.message, {}, initialize.id);
        throw err;
      }
    }
    await session.transport.handle(req, res, post);
    // The session's GET stream stays open while its client listens: a process shutting down ends it at once.
    if (req.method === "GET" && res.headersSent && !res.writableEnded) longLived(res);
  } catch (err) {
    // Not the client's doing (the input was checked above): the detail goes to the log, never to the client.
    logger.error({ err }, "MCP request failed");
    writeJsonRpcError(res, 500, -32603, "Internal error: the request could not be served; try again shortly");
  }
}
