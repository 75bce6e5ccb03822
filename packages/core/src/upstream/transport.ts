import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isEgressRefused } from "../egress/errors";
import { spawnStdioProcess, type SpawnOptions } from "../stdio/process";
import type { HttpLaunch, ResolvedLaunch } from "./launch";
import { strictEgressFetch } from "./egress-fetch";
import { isSignalSafe, withPerRequestSignal } from "./node-fetch";
import { attachToolSchemas, ToolSchemas, withRevisionHeaders } from "./revision";
import { withBoundedEventStreams } from "./response-limits";

export type HeaderSource = () => Record<string, string> | Promise<Record<string, string>>;

export interface UpstreamTransportOptions {
  /** Headers computed per request (e.g. a refreshed OAuth access token); they win over the launch headers. */
  getHeaders?: HeaderSource;
  /** Left for OAuth: handed to the SDK transport as is. */
  authProvider?: OAuthClientProvider;
  /**
   * The fetch to use for this connection only. Without one, the default egress rules apply (public addresses
   * only: `strictEgressFetch`); pass `egressFetch(policy)` for a deployment's rules, or `nodeFetch` for an address
   * Switchboard configured itself (a worker's bridge), never for a URL a team configured.
   */
  fetch?: FetchLike;
  /** For unsupervised stdio launches: how long a stopped process gets between SIGTERM and SIGKILL. */
  killGraceMs?: number;
  spawn?: SpawnOptions;
}

/**
 * Build the SDK transport for one connection. Everything that identifies the member (headers, tokens, env) is
 * carried by this transport alone, so two connections never see each other's credentials.
 */
export async function createUpstreamTransport(
  launch: ResolvedLaunch,
  options: UpstreamTransportOptions = {},
): Promise<Transport> {
  if (launch.transport === "stdio") {
    // Without a supervisor the connection owns the process: closing the transport kills its whole group.
    const proc = await spawnStdioProcess(launch, options.spawn);
    const graceMs = options.killGraceMs ?? 2_000;
    return proc.createTransport({
      onClose: async () => void (await proc.kill(graceMs)),
      onFault: () => void proc.kill(graceMs),
    });
  }
  return createHttpTransport(launch, options);
}

function createHttpTransport(launch: HttpLaunch, options: UpstreamTransportOptions): Transport {
  const url = new URL(launch.url);
  const requestInit: RequestInit = { headers: { ...launch.headers } };
  // nodeFetch and egressFetch drop their abort listener with each request; another fetch gets a dependent
  // signal per request.
  const given = options.fetch ?? strictEgressFetch();
  const base = isSignalSafe(given) ? given : withPerRequestSignal(given);
  // An event that never ends or a stream that floods closes the connection, and what waited on it fails with
  // the limit's sentence (UpstreamConnection reads `fault`), not with a bare "Connection closed".
  let transport: Transport | undefined;
  const bounded = withBoundedEventStreams(base, (error) => {
    if (!transport) return;
    Object.assign(transport, { fault: error });
    void transport.close().catch(() => {});
  });
  const fetchImpl = withDynamicHeaders(bounded, options.getHeaders);
  if (launch.transport === "sse") {
    // EventSource turns a failed fetch into an error event with only its text: keep an egress refusal whole.
    let refused: unknown;
    const keepRefusal: FetchLike = (input, init) =>
      fetchImpl(input, init).catch((err: unknown) => {
        if (isEgressRefused(err)) refused = err;
        throw err;
      });
    const sse = new SSEClientTransport(url, {
      requestInit,
      fetch: keepRefusal,
      authProvider: options.authProvider,
    });
    const start = sse.start.bind(sse);
    sse.start = () => start().catch((err: unknown) => Promise.reject(refused ?? err));
    return (transport = sse);
  }
  // A 2026-07-28 upstream needs headers derived from each request's body, which the SDK 1.x transport never sets.
  // A tools/call's Mcp-Param-* headers come from its tool's schema, which the connection's client lists into it.
  const schemas = new ToolSchemas();
  transport = new StreamableHTTPClientTransport(url, {
    requestInit,
    fetch: withRevisionHeaders(fetchImpl, schemas),
    authProvider: options.authProvider,
  });
  attachToolSchemas(transport, schemas);
  return transport;
}

function withDynamicHeaders(base: FetchLike, getHeaders: HeaderSource | undefined): FetchLike {
  if (!getHeaders) return base;
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(await getHeaders())) headers.set(name, value);
    return base(input, { ...init, headers });
  };
}
