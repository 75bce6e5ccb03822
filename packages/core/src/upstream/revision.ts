import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ErrorCode,
  McpError,
  type ClientCapabilities,
  type Implementation,
  type JSONRPCMessage,
} from "@modelcontextprotocol/sdk/types.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { DiscoverResult } from "@modelcontextprotocol/client";
import { MCP_NAME_FIELD, REVISION_2026 } from "../revisions";
import { encodeHeaderValue, mcpParamHeaders } from "../revisions/param-headers";

export { encodeHeaderValue };

/** The `_meta` keys of the 2026-07-28 per-request envelope. */
export const PROTOCOL_VERSION_META_KEY = "io.modelcontextprotocol/protocolVersion";
export const CLIENT_INFO_META_KEY = "io.modelcontextprotocol/clientInfo";
export const CLIENT_CAPABILITIES_META_KEY = "io.modelcontextprotocol/clientCapabilities";

/** The era an upstream turned out to speak; `2026` carries its `server/discover` answer. */
export type RevisionVerdict = { kind: "2026"; discover: DiscoverResult } | { kind: "2025" };

export interface ProbeOptions {
  clientInfo: Implementation;
  capabilities: ClientCapabilities;
  timeoutMs: number;
}

const PROBE_ID = "switchboard-discover";
/** A silent stdio server is a legacy one (some never answer what they do not know): no need to wait long. */
const STDIO_PROBE_TIMEOUT_MS = 5_000;

/**
 * Asks an upstream what it speaks with `server/discover`, on the transport the connection will use afterwards
 * (started here; `start` becomes a no-op so the client that follows can call it again). An answer listing
 * 2026-07-28 means `2026`; any refusal (a JSON-RPC error, an HTTP 4xx such as a 2025 server's "no session") means
 * legacy, and `initialize` follows. A network failure rejects, as `initialize` would have. The SSE transport
 * (2024-11-05) is never probed.
 */
export async function probeRevision(transport: Transport, options: ProbeOptions): Promise<RevisionVerdict> {
  if (transport instanceof SSEClientTransport) return { kind: "2025" };
  const http = transport instanceof StreamableHTTPClientTransport;
  const timeoutMs = http ? options.timeoutMs : Math.min(options.timeoutMs, STDIO_PROBE_TIMEOUT_MS);
  let settle: (message: JSONRPCMessage | undefined) => void = () => {};
  const answered = new Promise<JSONRPCMessage | undefined>((resolve) => (settle = resolve));
  transport.onmessage = (message) => {
    if ("id" in message && message.id === PROBE_ID && !("method" in message)) settle(message);
  };
  transport.onclose = () => settle(undefined);
  transport.onerror = () => {};
  await transport.start();
  transport.start = async () => {};
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs)));
    const sent = transport
      .send({
        jsonrpc: "2.0",
        id: PROBE_ID,
        method: "server/discover",
        params: {
          _meta: {
            [PROTOCOL_VERSION_META_KEY]: REVISION_2026,
            [CLIENT_INFO_META_KEY]: options.clientInfo,
            [CLIENT_CAPABILITIES_META_KEY]: options.capabilities,
          },
        },
      })
      .then(() => answered);
    const outcome = await Promise.race([sent, timeout]);
    if (outcome === "timeout") {
      if (http) throw new McpError(ErrorCode.RequestTimeout, "Request timed out", { timeout: timeoutMs });
      return { kind: "2025" };
    }
    // The same errors as the SDK's for initialize, so the failure is classified and worded as before.
    if (outcome === undefined) throw new McpError(ErrorCode.ConnectionClosed, "Connection closed");
    if (!("result" in outcome)) return { kind: "2025" };
    const discover = outcome.result as unknown as DiscoverResult;
    const versions: unknown = (discover as { supportedVersions?: unknown }).supportedVersions;
    if (Array.isArray(versions) && versions.includes(REVISION_2026)) return { kind: "2026", discover };
    return { kind: "2025" };
  } catch (error) {
    // An HTTP refusal of an unknown request without a session is how a 2025 server says no. 401 is not a verdict:
    // it is the same for initialize, which reports it in the usual way.
    if (error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 400 && error.code !== 401)
      return { kind: "2025" };
    throw error;
  } finally {
    clearTimeout(timer);
    transport.onmessage = undefined;
    transport.onclose = undefined;
    transport.onerror = undefined;
  }
}

/**
 * The input schemas of a 2026-07-28 upstream's tools, as its client last listed them: which arguments of a
 * `tools/call` travel in `Mcp-Param-*` headers too (their `x-mcp-header` annotations).
 */
export class ToolSchemas {
  private readonly byName = new Map<string, unknown>();
  /** Whether a `tools/list` has been read since the connection opened. */
  listed = false;

  remember(tools: readonly { name: string; inputSchema?: unknown }[], firstPage: boolean): void {
    if (firstPage) this.byName.clear();
    for (const tool of tools) this.byName.set(tool.name, tool.inputSchema);
    this.listed = true;
  }

  /** A tool's schema as the caller knows it (the catalogue's copy), until the next list. */
  learn(name: string, inputSchema: unknown): void {
    this.byName.set(name, inputSchema);
  }

  get(name: string): unknown {
    return this.byName.get(name);
  }
}

const transportSchemas = new WeakMap<object, ToolSchemas>();
/** The tool schemas a transport's requests read their `Mcp-Param-*` headers from (see `withRevisionHeaders`). */
export const toolSchemasOf = (transport: object): ToolSchemas | undefined => transportSchemas.get(transport);
export function attachToolSchemas(transport: object, schemas: ToolSchemas): void {
  transportSchemas.set(transport, schemas);
}

/**
 * The headers a 2026-07-28 request must carry over HTTP (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`, and for
 * a `tools/call` the `Mcp-Param-*` of its tool's annotated arguments), read from the message itself; none for a
 * message without a 2026 envelope (2025 traffic stays byte-identical).
 */
export function revisionHeaders(message: unknown, schemas?: ToolSchemas): Record<string, string> | undefined {
  if (!message || typeof message !== "object" || Array.isArray(message)) return undefined;
  const { method, params } = message as { method?: unknown; params?: unknown };
  if (typeof method !== "string" || !params || typeof params !== "object") return undefined;
  const meta = (params as { _meta?: Record<string, unknown> })._meta;
  const version = meta?.[PROTOCOL_VERSION_META_KEY];
  if (typeof version !== "string") return undefined;
  const headers: Record<string, string> = { "mcp-protocol-version": version, "mcp-method": method };
  const field = MCP_NAME_FIELD[method];
  const name = field ? (params as Record<string, unknown>)[field] : undefined;
  if (typeof name === "string") headers["mcp-name"] = encodeHeaderValue(name);
  if (method === "tools/call" && typeof name === "string" && schemas)
    Object.assign(headers, mcpParamHeaders(schemas.get(name), (params as { arguments?: unknown }).arguments));
  return headers;
}

/**
 * A fetch that adds the 2026-07-28 request headers derived from the body it posts. The SDK 1.x transport knows
 * nothing of them; 2025 requests (no envelope key in the body) are passed through untouched, without parsing.
 */
export function withRevisionHeaders(base: FetchLike, schemas?: ToolSchemas): FetchLike {
  return (input, init) => {
    const body = init?.body;
    if (init?.method !== "POST" || typeof body !== "string" || !body.includes(PROTOCOL_VERSION_META_KEY))
      return base(input, init);
    let extra: Record<string, string> | undefined;
    try {
      extra = revisionHeaders(JSON.parse(body), schemas);
    } catch {
      extra = undefined;
    }
    if (!extra) return base(input, init);
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(extra)) headers.set(name, value);
    return base(input, { ...init, headers });
  };
}
