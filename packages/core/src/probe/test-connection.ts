import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ResolvedLaunch } from "../config/types";
import { discover } from "../discovery/discover";
import { humanizeError } from "../errors/human";
import { classifyError } from "../policies/classify-error";
import { createUpstreamTransport, UpstreamConnection, type UpstreamTransportOptions } from "../upstream";

/**
 * "Test connection" before installing: connect once, list what the server offers, close. For a remote URL the
 * transport is detected (Streamable HTTP first, then legacy SSE), and a 401 is read as "requires OAuth" when
 * the server publishes OAuth metadata. Bounded by `timeoutMs` as a whole; the answer is always a result, never
 * an exception, with one readable sentence.
 */
export interface ConnectionTestResult {
  ok: boolean;
  transport: "stdio" | "streamable_http" | "sse" | null;
  requiresOAuth: boolean;
  protocolVersion: string | null;
  serverName: string | null;
  serverVersion: string | null;
  toolCount: number;
  totalTokens: number;
  /** One sentence: what was found, or why not. */
  message: string;
  /** Raw detail of a failure (bounded), for the disclosure. */
  detail: string | null;
}

export const CONNECTION_TEST_TIMEOUT_MS = 20_000;

const empty = {
  requiresOAuth: false,
  protocolVersion: null,
  serverName: null,
  serverVersion: null,
  toolCount: 0,
  totalTokens: 0,
  detail: null,
};

async function within<T>(timeoutMs: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(
        Object.assign(new Error(`No answer within ${Math.round(timeoutMs / 1000)} s (timed out).`), {
          name: "TimeoutError",
        }),
      );
    }, timeoutMs);
  });
  try {
    return await Promise.race([run(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function tryOnce(
  launch: ResolvedLaunch,
  options: UpstreamTransportOptions,
  timeoutMs: number,
): Promise<ConnectionTestResult> {
  const connection = new UpstreamConnection({
    instanceId: "connection-test",
    connector: () => createUpstreamTransport(launch, options),
    requestTimeoutMs: timeoutMs,
  });
  try {
    const result = await within(timeoutMs, () => discover(connection, { slug: "test" }));
    const server = connection.getServerVersion();
    const tools = result.tools.length;
    const name = server?.name ?? "The server";
    return {
      ...empty,
      ok: true,
      transport: launch.transport,
      protocolVersion: connection.getProtocolVersion() ?? null,
      serverName: server?.name ?? null,
      serverVersion: server?.version ?? null,
      toolCount: tools,
      totalTokens: result.tokens.total,
      message: `${name} answered: ${tools} tool${tools === 1 ? "" : "s"}, ${result.tokens.total.toLocaleString("en")} tokens in a prompt.`,
    };
  } finally {
    await connection.close().catch(() => {});
  }
}

/** A test that found nothing: what went wrong in one sentence, the details apart. */
export function failedConnectionTest(
  transport: ConnectionTestResult["transport"],
  message: string,
  detail: string | null = null,
): ConnectionTestResult {
  return { ...empty, ok: false, transport, message, detail };
}

function failure(err: unknown, transport: ConnectionTestResult["transport"]): ConnectionTestResult {
  const human = humanizeError(err);
  return failedConnectionTest(transport, human.summary, human.detail);
}

/** Whether the URL's server publishes OAuth protected-resource metadata (RFC 9728), asked without a token. */
async function offersOAuth(url: string, fetchImpl: FetchLike, timeoutMs: number): Promise<boolean> {
  const { discoverOAuthProtectedResourceMetadata } = await import("@modelcontextprotocol/sdk/client/auth.js");
  try {
    await within(timeoutMs, () => discoverOAuthProtectedResourceMetadata(url, {}, fetchImpl));
    return true;
  } catch {
    return false;
  }
}

export async function testConnection(
  launch: ResolvedLaunch,
  options: UpstreamTransportOptions & { timeoutMs?: number } = {},
): Promise<ConnectionTestResult> {
  const timeoutMs = options.timeoutMs ?? CONNECTION_TEST_TIMEOUT_MS;
  if (launch.transport === "stdio") {
    try {
      return await tryOnce(launch, options, timeoutMs);
    } catch (err) {
      return failure(err, "stdio");
    }
  }
  const started = Date.now();
  const left = () => Math.max(1_000, timeoutMs - (Date.now() - started));
  let first: unknown;
  try {
    return await tryOnce({ ...launch, transport: "streamable_http" }, options, left());
  } catch (err) {
    first = err;
  }
  const kind = classifyError(first).kind;
  if (kind === "http_unauthorized" || kind === "http_forbidden" || kind === "oauth") {
    const oauth = options.fetch ? await offersOAuth(launch.url, options.fetch, left()) : false;
    const human = humanizeError(first);
    return {
      ...empty,
      ok: false,
      transport: "streamable_http",
      requiresOAuth: oauth,
      message: oauth
        ? "The server answers and requires OAuth: each member connects their own account after installing."
        : human.summary,
      detail: human.detail,
    };
  }
  // Nothing listening, no such host, a refused address: SSE would not fare better.
  if (kind === "connection_refused" || kind === "dns" || kind === "egress_refused" || kind === "timeout")
    return failure(first, null);
  try {
    return await tryOnce({ ...launch, transport: "sse" }, options, left());
  } catch {
    // Neither transport: the first answer (Streamable HTTP's) says best what is at the URL.
    return failure(first, null);
  }
}
