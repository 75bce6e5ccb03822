import type { IncomingHttpHeaders } from "node:http";
import {
  ErrorCode,
  LoggingLevelSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type LoggingLevel,
  type RequestId,
} from "@modelcontextprotocol/sdk/types.js";
import { MCP_NAME_FIELD, REVISION_2026 } from "../revisions";
import { decodeHeaderValue, HEADER_MISMATCH, mcpParamMismatch } from "../revisions/param-headers";
import { jsonRpcError, type JsonRpcPost } from "./jsonrpc";
import { invalidParamsMessage } from "./params";

/**
 * MCP 2026-07-28 (the stateless revision) as the route serves it beside 2025-11-25 on the same URLs: which
 * requests are 2026 ones, and what the specification requires of them before anything is served (per-request
 * `_meta`, the mirrored `MCP-Protocol-Version` / `Mcp-Method` / `Mcp-Name` headers, removed methods). Pure
 * functions over the already-parsed body: nothing here reads or writes the network.
 */

/** Every revision the route serves; 2025-11-25 and earlier through `initialize` and a session. */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = [REVISION_2026, ...SUPPORTED_PROTOCOL_VERSIONS];
const VERSIONS_2026 = new Set([REVISION_2026]);
const VERSIONS_2025 = new Set(SUPPORTED_PROTOCOL_VERSIONS);

/** Error codes the 2026-07-28 revision reserves (basic/index, "Error Codes"). */
export const ErrorCode2026 = {
  HeaderMismatch: HEADER_MISMATCH,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

export const META = {
  protocolVersion: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  clientCapabilities: "io.modelcontextprotocol/clientCapabilities",
  logLevel: "io.modelcontextprotocol/logLevel",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscriptionId: "io.modelcontextprotocol/subscriptionId",
} as const;

const RESERVED_PREFIX = "io.modelcontextprotocol/";

/** Methods this route serves to 2026-07-28 clients; anything else is 404 + -32601 (removed or unknown). */
export const METHODS_2026: ReadonlySet<string> = new Set([
  "server/discover",
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "completion/complete",
  "subscriptions/listen",
  // The tasks extension (io.modelcontextprotocol/tasks), routed to the upstream that owns the task.
  "tasks/get",
  "tasks/update",
  "tasks/cancel",
]);

/** Results that carry caching hints (server/utilities/caching). */
export const CACHEABLE_METHODS: ReadonlySet<string> = new Set([
  "server/discover",
  "tools/list",
  "prompts/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
]);

/** Log levels by severity, lowest first (the schema's enum is in that order). */
const LOG_LEVELS: readonly LoggingLevel[] = LoggingLevelSchema.options;
function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(", ") : value;
}

function metaOf(message: JSONRPCMessage): Record<string, unknown> | undefined {
  if (!("method" in message)) return undefined;
  const meta = (message.params as { _meta?: unknown } | undefined)?._meta;
  return typeof meta === "object" && meta !== null && !Array.isArray(meta)
    ? (meta as Record<string, unknown>)
    : undefined;
}

/**
 * Whether a POST without a session is a 2026-07-28 one: its `_meta` (or, when that is missing, its
 * `MCP-Protocol-Version` header) names a version that is not a handshake-era one. A request naming no version,
 * or 2025-11-25 and earlier, is a legacy one (`initialize` opens a session; anything else needs one).
 */
export function is2026Post(headers: IncomingHttpHeaders, post: JsonRpcPost): boolean {
  const first = post.messages[0]!;
  const declared = post.batch ? undefined : metaOf(first)?.[META.protocolVersion];
  const version = typeof declared === "string" ? declared : header(headers, "mcp-protocol-version");
  if (declared !== undefined && typeof declared !== "string") return true;
  return version !== undefined && !VERSIONS_2025.has(version);
}

/** A 2026-07-28 request that passed every check: what the rest of the route needs from its `_meta`. */
export interface Request2026 {
  message: JSONRPCMessage & { id: RequestId; method: string; params?: Record<string, unknown> };
  clientCapabilities: Record<string, unknown>;
  clientInfo?: { name: string; version: string };
  /** Log notifications at or above it reach the client; none when the request set no level. */
  logLevel?: LoggingLevel;
}

export type Check2026 =
  | { ok: true; request: Request2026 }
  /** A notification: accepted (202) and dropped; the revision defines none over Streamable HTTP. */
  | { ok: true; notification: true }
  | { ok: false; status: number; error: JSONRPCErrorResponse };

function refuse(
  status: number,
  id: RequestId | null,
  code: number,
  message: string,
  data?: unknown,
): { ok: false; status: number; error: JSONRPCErrorResponse } {
  const error = jsonRpcError(id, code, message);
  if (data !== undefined) error.error.data = data;
  return { ok: false, status, error };
}

/** An `Mcp-Name` / `Mcp-Param-*` value as sent (see revisions/param-headers). */
export const decodeMcpHeaderValue = decodeHeaderValue;

/**
 * Checks a 2026-07-28 POST in the order the specification's errors need: one message; a request's `_meta`
 * with a protocol version and client capabilities (-32602); the headers mirroring the body (-32020); a version
 * we serve (-32022); a method we serve (404 + -32601); params its method's schema accepts (-32602). Every error
 * carries the request's id.
 */
export function check2026Post(headers: IncomingHttpHeaders, post: JsonRpcPost): Check2026 {
  if (post.batch)
    return refuse(400, null, ErrorCode.InvalidRequest, "Invalid Request: a 2026-07-28 POST carries one message");
  const message = post.messages[0]!;
  const kind = post.kinds[0];
  if (kind === "notification") return { ok: true, notification: true };
  if (kind !== "request")
    return refuse(400, null, ErrorCode.InvalidRequest, "Invalid Request: clients send no responses in 2026-07-28");
  const request = message as Request2026["message"];
  const id = request.id;
  const meta = metaOf(request);
  const version = meta?.[META.protocolVersion];
  const capabilities = meta?.[META.clientCapabilities];
  if (typeof version !== "string" || typeof capabilities !== "object" || capabilities === null)
    return refuse(
      400,
      id,
      ErrorCode.InvalidParams,
      `Invalid params: _meta must carry ${META.protocolVersion} (a string) and ${META.clientCapabilities} (an object)`,
    );
  const level = meta?.[META.logLevel];
  if (level !== undefined && !LOG_LEVELS.includes(level as LoggingLevel))
    return refuse(400, id, ErrorCode.InvalidParams, `Invalid params: ${META.logLevel} is not a log level`);
  const info = meta?.[META.clientInfo];
  // A mirrored header: required, and equal to the body's value (Mcp-Name may come in the Base64 sentinel form).
  const mismatch = (name: string, sent: string | undefined, body: string, encoded = false) => {
    if (sent === undefined)
      return refuse(400, id, ErrorCode2026.HeaderMismatch, `Header mismatch: the ${name} header is required`);
    const value = encoded ? decodeMcpHeaderValue(sent) : sent;
    if (value === null)
      return refuse(400, id, ErrorCode2026.HeaderMismatch, `Header mismatch: the ${name} header is malformed`);
    if (value === body) return undefined;
    return refuse(
      400,
      id,
      ErrorCode2026.HeaderMismatch,
      `Header mismatch: ${name} header value '${value}' does not match body value '${body}'`,
    );
  };
  const versionRefused = mismatch("MCP-Protocol-Version", header(headers, "mcp-protocol-version"), version);
  if (versionRefused) return versionRefused;
  if (!VERSIONS_2026.has(version))
    return refuse(400, id, ErrorCode2026.UnsupportedProtocolVersion, "Unsupported protocol version", {
      supported: SERVED_PROTOCOL_VERSIONS,
      requested: version,
    });
  const methodRefused = mismatch("Mcp-Method", header(headers, "mcp-method"), request.method);
  if (methodRefused) return methodRefused;
  const field = MCP_NAME_FIELD[request.method];
  const named = field === undefined ? undefined : request.params?.[field];
  if (typeof named === "string") {
    const nameRefused = mismatch("Mcp-Name", header(headers, "mcp-name"), named, true);
    if (nameRefused) return nameRefused;
  }
  if (!METHODS_2026.has(request.method))
    return refuse(404, id, ErrorCode.MethodNotFound, `Method not found: ${request.method} is not served in 2026-07-28`);
  // Checked as the 2025 engine will take it (our `_meta` keys and a 2025 `task` param dropped), as sessions are.
  const badParams = invalidParamsMessage(request2025(request));
  if (badParams) return refuse(400, id, ErrorCode.InvalidParams, badParams);
  return {
    ok: true,
    request: {
      message: request,
      clientCapabilities: capabilities as Record<string, unknown>,
      clientInfo: typeof info === "object" && info !== null ? (info as { name: string; version: string }) : undefined,
      logLevel: level as LoggingLevel | undefined,
    },
  };
}

/**
 * A 2026-07-28 `tools/call`'s `Mcp-Param-*` headers checked against its arguments, for the tool it calls as we
 * list it (its input schema's `x-mcp-header` annotations): the refusal (400, -32020) when they disagree.
 */
export function checkParamHeaders(
  headers: IncomingHttpHeaders,
  request: Request2026["message"],
  inputSchema: unknown,
): { ok: false; status: number; error: JSONRPCErrorResponse } | undefined {
  const mismatch = mcpParamMismatch(headers, inputSchema, request.params?.arguments);
  return mismatch === undefined ? undefined : refuse(400, request.id, ErrorCode2026.HeaderMismatch, mismatch);
}

/**
 * The request as the 2025-11-25 proxy engine takes it: the revision's own `_meta` keys are ours, not the
 * upstream's, and so is a 2025 `task` param; anything else in `_meta` (progress token, trace context `traceparent` / `tracestate` / `baggage`,
 * vendor keys) stays and travels on as the 2025 path sends it.
 */
export function request2025(request: Request2026["message"]): Request2026["message"] {
  const params = request.params;
  const meta = params?._meta as Record<string, unknown> | undefined;
  if (!params || (!meta && !("task" in params))) return request;
  let kept: Record<string, unknown> | undefined;
  for (const key in meta) {
    if (key.startsWith(RESERVED_PREFIX)) continue;
    (kept ??= {})[key] = meta[key];
  }
  // 2025-11-25's task-augmented request (`params.task`) is not one in 2026-07-28, where it is ignored; the 2025
  // engine would refuse it (tasks are the extension here, which the server decides on).
  const { _meta: _dropped, task: _task, ...rest } = params;
  return { ...request, params: kept ? { ...rest, _meta: kept } : rest };
}

/** Whether a log message of `level` may reach a client that asked for `threshold` (none: never). */
export function logAllowed(level: unknown, threshold: LoggingLevel | undefined): boolean {
  if (threshold === undefined) return false;
  return LOG_LEVELS.indexOf(level as LoggingLevel) >= LOG_LEVELS.indexOf(threshold);
}

/**
 * A 2025 result as a 2026-07-28 one: `resultType: "complete"`, our identity in `_meta`, and caching hints on
 * the results that take them (`cacheScope: "private"`: every answer is one member's).
 */
export function result2026(
  method: string,
  result: Record<string, unknown>,
  serverInfo: { name: string; version: string },
  ttlMs: (method: string) => number,
): Record<string, unknown> {
  const meta = result._meta as Record<string, unknown> | undefined;
  const shaped: Record<string, unknown> = {
    ...result,
    resultType: "complete",
    _meta: { ...meta, [META.serverInfo]: serverInfo },
  };
  if (CACHEABLE_METHODS.has(method)) {
    shaped.ttlMs = ttlMs(method);
    shaped.cacheScope = "private";
  }
  return shaped;
}
