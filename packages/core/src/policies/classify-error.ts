import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { OAuthError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { InvalidConfigValueError } from "../config/resolve-launch";
import { isEgressRefused } from "../egress/errors";
import { ConnectionClosedError } from "../errors/connection-closed";
import { LimitError } from "../errors/limit";
import { WorkerHandoverError, WorkerNotAnsweringError, WorkerUnavailableError } from "../stdio/events";

export type FailureStatus = "requires_reauth" | "offline" | "error";

export type ErrorKind =
  | "http_unauthorized"
  | "http_forbidden"
  | "oauth"
  | "http_unavailable"
  | "http_error"
  | "connection_refused"
  | "connection_reset"
  | "timeout"
  | "dns"
  | "network"
  | "connection_closed"
  | "egress_refused"
  | "invalid_config"
  | "limit_exceeded"
  | "worker_unavailable"
  | "worker_handover"
  | "unknown";

export interface ErrorClassification {
  status: FailureStatus;
  retryable: boolean;
  message: string;
  kind: ErrorKind;
}

/** Node/undici system error codes that mean "the server could not be reached", mapped to a kind. */
const NETWORK_CODES: Readonly<Record<string, ErrorKind>> = {
  ECONNREFUSED: "connection_refused",
  ECONNRESET: "connection_reset",
  EPIPE: "connection_reset",
  ECONNABORTED: "connection_reset",
  ETIMEDOUT: "timeout",
  ESOCKETTIMEDOUT: "timeout",
  UND_ERR_CONNECT_TIMEOUT: "timeout",
  UND_ERR_HEADERS_TIMEOUT: "timeout",
  UND_ERR_BODY_TIMEOUT: "timeout",
  UND_ERR_SOCKET: "connection_reset",
  UND_ERR_CLOSED: "connection_reset",
  ENOTFOUND: "dns",
  EAI_AGAIN: "dns",
  EHOSTUNREACH: "network",
  ENETUNREACH: "network",
  ENETDOWN: "network",
};

/**
 * HTTP statuses that mean "the upstream is not there right now" rather than "it answered with an error":
 * a gateway in front of a down server (502/503/504) or a request timeout (408). We treat them as offline and
 * retryable; every other non-auth status is an `error`.
 */
const UNAVAILABLE_HTTP = new Set([408, 502, 503, 504]);

/** OAuth error codes that are transient server trouble, not a credential the member must renew. */
const TRANSIENT_OAUTH = new Set(["server_error", "temporarily_unavailable", "too_many_requests"]);

function describe(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  if (typeof err === "string") return err;
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}

function fromHttpStatus(code: number, message: string): ErrorClassification | undefined {
  if (code === 401) return { status: "requires_reauth", retryable: false, kind: "http_unauthorized", message };
  if (code === 403) return { status: "requires_reauth", retryable: false, kind: "http_forbidden", message };
  if (UNAVAILABLE_HTTP.has(code)) return { status: "offline", retryable: true, kind: "http_unavailable", message };
  if (code >= 400 && code < 600) return { status: "error", retryable: false, kind: "http_error", message };
  return undefined;
}

function offline(kind: ErrorKind, message: string): ErrorClassification {
  return { status: "offline", retryable: true, kind, message };
}

/** Walks err, err.cause, err.cause.cause ... (bounded, cycle-safe). AggregateError members are visited too. */
function* causeChain(err: unknown): Generator<unknown> {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0 && seen.size < 16) {
    const current = queue.shift();
    if (current === undefined || current === null || seen.has(current)) continue;
    seen.add(current);
    yield current;
    if (typeof current === "object") {
      const { cause, errors } = current as { cause?: unknown; errors?: unknown };
      if (cause !== undefined) queue.push(cause);
      if (Array.isArray(errors)) queue.push(...errors);
    }
  }
}

function classifyStructured(link: unknown, message: string): ErrorClassification | undefined {
  if (link instanceof UnauthorizedError) {
    return { status: "requires_reauth", retryable: false, kind: "oauth", message };
  }
  if (link instanceof OAuthError) {
    if (TRANSIENT_OAUTH.has(link.errorCode)) return offline("network", message);
    return { status: "requires_reauth", retryable: false, kind: "oauth", message };
  }
  if (link instanceof StreamableHTTPError || link instanceof SseError) {
    const code = link.code;
    if (typeof code === "number") {
      // The SDK's text does not always carry the status ("Error POSTing to endpoint: " and an empty body).
      const byStatus = fromHttpStatus(code, message.includes(String(code)) ? message : `${message} (HTTP ${code})`);
      if (byStatus) return byStatus;
    }
    // SseError wraps EventSource failures whose code may be undefined: look further down the chain.
    return undefined;
  }
  if (link instanceof McpError) {
    if (link.code === ErrorCode.RequestTimeout) return offline("timeout", message);
    // The SDK's text ("MCP error -32000: Connection closed"), doubled when a worker's bridge relays it: a sentence.
    if (link.code === ErrorCode.ConnectionClosed) return offline("connection_closed", CONNECTION_LOST_MESSAGE);
    return { status: "error", retryable: false, kind: "unknown", message };
  }
  if (typeof link === "object" && link !== null) {
    const { code, name } = link as { code?: unknown; name?: unknown };
    if (typeof code === "string" && code in NETWORK_CODES) {
      const text = message.includes(code) ? message : `${message} (${code})`;
      return offline(NETWORK_CODES[code] ?? "network", text);
    }
    if (name === "AbortError" || name === "TimeoutError") return offline("timeout", message);
  }
  return undefined;
}

/** Last resort, for errors that lost their structure (re-thrown as plain strings, serialized across a queue). */
function classifyByMessage(message: string): ErrorClassification | undefined {
  const m = message.toLowerCase();
  if (/\b401\b|unauthorized|authorization required/.test(m)) {
    return { status: "requires_reauth", retryable: false, kind: "http_unauthorized", message };
  }
  if (/\b403\b|forbidden/.test(m))
    return { status: "requires_reauth", retryable: false, kind: "http_forbidden", message };
  if (/\boauth\b|invalid_grant|invalid_token/.test(m)) {
    return { status: "requires_reauth", retryable: false, kind: "oauth", message };
  }
  if (m.includes("econnrefused")) return offline("connection_refused", message);
  if (m.includes("econnreset") || m.includes("socket hang up")) return offline("connection_reset", message);
  if (m.includes("etimedout") || m.includes("timed out") || m.includes("timeout")) return offline("timeout", message);
  if (m.includes("enotfound") || m.includes("eai_again")) return offline("dns", message);
  if (m.includes("fetch failed")) return offline("network", message);
  return undefined;
}

/** A failure's message when the connection to a server closed before the server answered the request. */
export const CONNECTION_LOST_MESSAGE = "The connection to the server closed before it answered.";

/**
 * Maps any failure of an upstream call to the instance status it implies and whether retrying can help.
 *
 * Order of evidence: SDK error classes (HTTP status on StreamableHTTPError/SseError, UnauthorizedError,
 * OAuthError, McpError timeout/connection-closed codes), then Node system error codes and AbortError/TimeoutError
 * names anywhere on the `cause` chain (undici's "fetch failed" keeps the real code on `cause`), and message
 * text only when nothing structured matched.
 *
 * - requires_reauth (not retryable): 401, 403, OAuth failures.
 * - offline (retryable): refused, reset, timeout, DNS, generic network failure, 408/502/503/504, a worker restarted
 *   where an instance's lease still points (its own sentence is the message).
 * - offline (not retryable): no worker is running stdio servers (its own sentence is the message).
 * - a worker's bridge that did not answer: its cause's classification, with its own sentence as the message.
 * - error (not retryable): a URL the egress policy refuses (its message is the policy's sentence), a stdio
 *   server stopped for breaking a limit, an HTTP answer over its bound (their sentences name the limit),
 *   everything else, including other HTTP statuses and JSON-RPC errors.
 */
export function classifyError(err: unknown): ErrorClassification {
  // A URL the egress policy refuses is a configuration matter: its own sentence is the message, not a wrapper's.
  for (const link of causeChain(err)) {
    if (isEgressRefused(link))
      return { status: "error", retryable: false, kind: "egress_refused", message: (link as Error).message };
    if (link instanceof InvalidConfigValueError)
      return { status: "error", retryable: false, kind: "invalid_config", message: link.message };
    // A stdio server stopped for breaking a limit, an HTTP answer over its bound: the same request would meet
    // the same end (a stopped server would be started to do it again).
    if (link instanceof LimitError)
      return { status: "error", retryable: false, kind: "limit_exceeded", message: link.message };
    // Known without trying: no worker runs stdio servers now. Retrying cannot help before one starts.
    if (link instanceof WorkerUnavailableError)
      return { status: "offline", retryable: false, kind: "worker_unavailable", message: link.message };
    // A connection closed under a request before it left: a fresh one serves it (its own sentence is the message).
    if (link instanceof ConnectionClosedError)
      return { status: "offline", retryable: true, kind: "connection_closed", message: link.message };
    // A worker restarted where the instance's lease still points: it moves within seconds, and nothing was sent.
    if (link instanceof WorkerHandoverError)
      return { status: "offline", retryable: true, kind: "worker_handover", message: link.message };
    // A worker's bridge that did not answer: what its cause says (refused, reset: offline, retryable), in its sentence.
    if (link instanceof WorkerNotAnsweringError) return { ...classifyError(link.cause), message: link.message };
  }
  const message = describe(err);
  for (const link of causeChain(err)) {
    const found = classifyStructured(link, message);
    if (found) return found;
  }
  for (const link of causeChain(err)) {
    const found = classifyByMessage(describe(link));
    if (found) return { ...found, message };
  }
  return { status: "error", retryable: false, kind: "unknown", message };
}

/**
 * True when the upstream server *answered* a request with a JSON-RPC error (invalid params, method not found,
 * an internal error in the tool...). That is the tool's result, not a connection failure: the proxy must
 * forward it to the client as is, must not retry it, and must not change the instance status (an offline or
 * error instance that answers this way is in fact reachable, so the proxy may even count it as recovery).
 * Connection-level McpErrors (RequestTimeout, ConnectionClosed) are not tool errors.
 */
export function isJsonRpcToolError(err: unknown): err is McpError {
  return err instanceof McpError && err.code !== ErrorCode.RequestTimeout && err.code !== ErrorCode.ConnectionClosed;
}
