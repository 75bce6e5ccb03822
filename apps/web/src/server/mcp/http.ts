import type { IncomingMessage, ServerResponse } from "node:http";
import { writeJsonRpcError } from "@switchboard/core/proxy";
import { getDb } from "@switchboard/db/client";
import { env } from "~/env";
import { logger } from "../logger";
import { authenticate } from "../services/access-token.service";
import { findSession, SessionScopeError, startSession, type LiveSession } from "./sessions";

/**
 * The hosted MCP endpoint (`/api/mcp`, and `/api/mcp/servers/{slug}` for one installation), served straight
 * from Node's HTTP server by `server.ts` ahead of Next: a proxied call pays for no framework routing, no
 * Request/Response conversion and no web stream.
 */

/** Largest JSON-RPC request body accepted (a batch of tool calls with large arguments fits comfortably). */
export const MAX_BODY_BYTES = 1_048_576;

const JSONRPC_PARSE_ERROR = -32700;
const JSONRPC_INVALID_REQUEST = -32600;

/** Whether a request path is the MCP route's, and for which installation (`null` scope = every server). */
export function matchMcpPath(url: string | undefined): { scope: string | null } | null {
  if (!url) return null;
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  if (path === "/api/mcp" || path === "/api/mcp/") return { scope: null };
  const m = /^\/api\/mcp\/servers\/([^/]+)\/?$/.exec(path);
  if (!m) return null;
  try {
    return { scope: decodeURIComponent(m[1]!) };
  } catch {
    return { scope: m[1]! };
  }
}

function unauthorized(res: ServerResponse, message: string, invalidToken: boolean): void {
  const challenge = `Bearer realm="switchboard"${invalidToken ? ', error="invalid_token", error_description="The token is unknown, expired or revoked"' : ""}`;
  writeJsonRpcError(res, 401, JSONRPC_INVALID_REQUEST, message, { "www-authenticate": challenge });
}

let allowed: { hosts: Set<string>; origin: string; extra: string | undefined } | undefined;

/**
 * DNS-rebinding protection: the Host must be the console's own (or one listed in MCP_ALLOWED_HOSTS), and a
 * browser Origin, when sent, must be the console's origin.
 */
function refusedOrigin(req: IncomingMessage): string | null {
  const extra = process.env.MCP_ALLOWED_HOSTS;
  if (!allowed || allowed.extra !== extra) {
    const app = new URL(env().APP_URL);
    const hosts = new Set([app.host, ...(extra ?? "").split(",").map((h) => h.trim()).filter(Boolean)]);
    allowed = { hosts, origin: app.origin, extra };
  }
  const host = req.headers.host;
  if (host && !allowed.hosts.has(host)) return `Host ${host} is not allowed`;
  const origin = req.headers.origin;
  if (origin && origin !== allowed.origin) return `Origin ${origin} is not allowed`;
  return null;
}

type Body = { ok: true; text: string } | { ok: false; status: number; message: string };

function readBody(req: IncomingMessage): Promise<Body> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > MAX_BODY_BYTES) return Promise.resolve({ ok: false, status: 413, message: `Request body exceeds ${MAX_BODY_BYTES} bytes` });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on("data", (chunk: Buffer) => {
      if (over) return;
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        over = true;
        chunks.length = 0;
        resolve({ ok: false, status: 413, message: `Request body exceeds ${MAX_BODY_BYTES} bytes` });
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!over) resolve({ ok: true, text: chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8") });
    });
    req.on("error", (err) => resolve({ ok: false, status: 400, message: `The request body could not be read: ${err.message}` }));
    // A client that hangs up mid-body may close without an error event: settle anyway (nobody reads the answer).
    req.on("close", () => {
      if (!req.complete) resolve({ ok: false, status: 400, message: "The request body was cut off" });
    });
  });
}

function isJsonRpcShape(value: unknown): boolean {
  const one = (m: unknown) => typeof m === "object" && m !== null && (m as { jsonrpc?: unknown }).jsonrpc === "2.0";
  return Array.isArray(value) ? value.length > 0 && value.every(one) : one(value);
}

function isInitialize(body: unknown): body is { id: string | number; params: { protocolVersion: string; capabilities?: Record<string, unknown>; clientInfo: { name: string; version: string } } } {
  const m = body as { method?: unknown; id?: unknown; params?: { protocolVersion?: unknown; clientInfo?: { name?: unknown; version?: unknown } } };
  return (
    typeof body === "object" &&
    body !== null &&
    !Array.isArray(body) &&
    m.method === "initialize" &&
    (typeof m.id === "string" || typeof m.id === "number") &&
    typeof m.params?.protocolVersion === "string" &&
    typeof m.params.clientInfo?.name === "string" &&
    typeof m.params.clientInfo.version === "string"
  );
}

/** Serves one request of the MCP route. Never throws: failures become JSON-RPC errors. */
export async function handleMcpHttp(req: IncomingMessage, res: ServerResponse, scope: string | null): Promise<void> {
  try {
    const refused = refusedOrigin(req);
    if (refused) return writeJsonRpcError(res, 403, JSONRPC_INVALID_REQUEST, refused);

    const bearer = /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? "")?.[1]?.trim();
    if (!bearer) return unauthorized(res, "Authorization: Bearer <personal access token> is required", false);
    const principal = await authenticate({ db: getDb(), bearer });
    if (!principal) return unauthorized(res, "The token is unknown, expired or revoked", true);

    let body: unknown;
    if (req.method === "POST") {
      const type = req.headers["content-type"];
      if (type !== undefined && !/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
        return writeJsonRpcError(res, 415, JSONRPC_INVALID_REQUEST, `Unsupported Media Type: the body must be application/json (got ${type})`, { connection: "close" });
      }
      const read = await readBody(req);
      if (!read.ok) return writeJsonRpcError(res, read.status, JSONRPC_INVALID_REQUEST, read.message, { connection: "close" });
      try {
        body = JSON.parse(read.text);
      } catch {
        return writeJsonRpcError(res, 400, JSONRPC_PARSE_ERROR, "Parse error: the body is not valid JSON");
      }
      if (!isJsonRpcShape(body)) return writeJsonRpcError(res, 400, JSONRPC_INVALID_REQUEST, "Invalid Request: expected a JSON-RPC 2.0 message or batch");
    } else if (req.method !== "GET" && req.method !== "DELETE") {
      return writeJsonRpcError(res, 405, JSONRPC_INVALID_REQUEST, "Method not allowed", { allow: "GET, POST, DELETE" });
    }

    const sessionId = req.headers["mcp-session-id"];
    let session: LiveSession | null;
    if (typeof sessionId === "string" && sessionId) {
      session = await findSession(sessionId, principal.tokenId);
      if (!session || session.record.scope !== scope) return writeJsonRpcError(res, 404, -32001, "Session not found; initialize a new session");
    } else if (req.method === "POST" && isInitialize(body)) {
      try {
        session = await startSession({
          tokenId: principal.tokenId,
          userId: principal.userId,
          teamId: principal.teamId,
          mode: principal.mode,
          scope,
          initialize: { protocolVersion: body.params.protocolVersion, capabilities: body.params.capabilities ?? {}, clientInfo: body.params.clientInfo },
        });
      } catch (err) {
        if (err instanceof SessionScopeError) return writeJsonRpcError(res, 404, JSONRPC_INVALID_REQUEST, err.message);
        throw err;
      }
    } else {
      return writeJsonRpcError(res, 400, JSONRPC_INVALID_REQUEST, "Bad Request: Mcp-Session-Id header is required (or send an initialize request)");
    }
    await session.transport.handle(req, res, body);
  } catch (err) {
    logger.error({ err }, "MCP request failed");
    writeJsonRpcError(res, 500, -32603, "Internal error");
  }
}
