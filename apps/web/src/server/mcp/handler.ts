import "server-only";
import { isInitializeRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { getDb } from "@switchboard/db/client";
import { env } from "~/env";
import { logger } from "../logger";
import { authenticate } from "../services/access-token.service";
import { findSession, SessionScopeError, startSession } from "./sessions";

/** Largest JSON-RPC request body accepted (a batch of tool calls with large arguments fits comfortably). */
export const MAX_BODY_BYTES = 1_048_576;

const JSONRPC_PARSE_ERROR = -32700;
const JSONRPC_INVALID_REQUEST = -32600;

function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

function unauthorized(message: string, invalidToken: boolean): Response {
  const challenge = `Bearer realm="switchboard"${invalidToken ? ', error="invalid_token", error_description="The token is unknown, expired or revoked"' : ""}`;
  return rpcError(401, JSONRPC_INVALID_REQUEST, message, { "www-authenticate": challenge });
}

/**
 * DNS-rebinding protection: the Host must be the console's own (or one listed in MCP_ALLOWED_HOSTS), and a
 * browser Origin, when sent, must be the console's origin.
 */
function checkOrigin(req: Request): Response | null {
  const app = new URL(env().APP_URL);
  const allowedHosts = new Set([app.host, ...(process.env.MCP_ALLOWED_HOSTS ?? "").split(",").map((h) => h.trim()).filter(Boolean)]);
  const host = req.headers.get("host");
  if (host && !allowedHosts.has(host)) return rpcError(403, JSONRPC_INVALID_REQUEST, `Host ${host} is not allowed`);
  const origin = req.headers.get("origin");
  if (origin && origin !== app.origin) return rpcError(403, JSONRPC_INVALID_REQUEST, `Origin ${origin} is not allowed`);
  return null;
}

async function readBody(req: Request): Promise<{ ok: true; text: string } | { ok: false; response: Response }> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) return { ok: false, response: rpcError(413, JSONRPC_INVALID_REQUEST, `Request body exceeds ${MAX_BODY_BYTES} bytes`) };
  const reader = req.body?.getReader();
  if (!reader) return { ok: true, text: "" };
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      return { ok: false, response: rpcError(413, JSONRPC_INVALID_REQUEST, `Request body exceeds ${MAX_BODY_BYTES} bytes`) };
    }
    chunks.push(value);
  }
  return { ok: true, text: Buffer.concat(chunks).toString("utf8") };
}

function isJsonRpcShape(value: unknown): boolean {
  const one = (m: unknown) => typeof m === "object" && m !== null && (m as { jsonrpc?: unknown }).jsonrpc === "2.0";
  return Array.isArray(value) ? value.length > 0 && value.every(one) : one(value);
}

/** The hosted MCP endpoint (`/api/mcp`, and `/api/mcp/servers/{slug}` with `scope`). */
export async function handleMcpRequest(req: Request, scope: string | null = null): Promise<Response> {
  try {
    const refused = checkOrigin(req);
    if (refused) return refused;

    const header = req.headers.get("authorization") ?? "";
    const bearer = /^Bearer\s+(.+)$/i.exec(header)?.[1]?.trim();
    if (!bearer) return unauthorized("Authorization: Bearer <personal access token> is required", false);
    const principal = await authenticate({ db: getDb(), bearer });
    if (!principal) return unauthorized("The token is unknown, expired or revoked", true);

    let parsedBody: unknown;
    if (req.method === "POST") {
      const body = await readBody(req);
      if (!body.ok) return body.response;
      try {
        parsedBody = JSON.parse(body.text);
      } catch {
        return rpcError(400, JSONRPC_PARSE_ERROR, "Parse error: the body is not valid JSON");
      }
      if (!isJsonRpcShape(parsedBody)) return rpcError(400, JSONRPC_INVALID_REQUEST, "Invalid Request: expected a JSON-RPC 2.0 message or batch");
    }

    const sessionId = req.headers.get("mcp-session-id");
    const initialize = req.method === "POST" && !sessionId && isInitializeRequest(parsedBody as JSONRPCMessage);
    let session;
    if (initialize) {
      const params = (parsedBody as { params: { protocolVersion: string; capabilities: Record<string, unknown>; clientInfo: { name: string; version: string } } }).params;
      try {
        session = await startSession({
          tokenId: principal.tokenId,
          userId: principal.userId,
          teamId: principal.teamId,
          mode: principal.mode,
          scope,
          initialize: { protocolVersion: params.protocolVersion, capabilities: params.capabilities ?? {}, clientInfo: params.clientInfo },
        });
      } catch (err) {
        if (err instanceof SessionScopeError) return rpcError(404, JSONRPC_INVALID_REQUEST, err.message);
        throw err;
      }
    } else if (sessionId) {
      session = await findSession(sessionId, principal.tokenId);
      if (!session || session.record.scope !== scope) return rpcError(404, -32001, "Session not found; initialize a new session");
    } else {
      return rpcError(400, JSONRPC_INVALID_REQUEST, "Bad Request: Mcp-Session-Id header is required (or send an initialize request)");
    }

    // The body was read (and size-checked) here, so the transport gets it parsed.
    const rebuilt = new Request(req.url, { method: req.method, headers: req.headers, signal: req.signal });
    return await session.transport.handleRequest(rebuilt, parsedBody === undefined ? undefined : { parsedBody });
  } catch (err) {
    logger.error({ err }, "MCP request failed");
    return rpcError(500, -32603, "Internal error");
  }
}
