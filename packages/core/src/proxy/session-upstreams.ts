import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import type { ConnectionPool, ServerRequestHandler, UpstreamConnection } from "../upstream";
import type { UpstreamProvider } from "./types";

/**
 * What of a downstream client's capabilities an upstream connection can offer on its behalf: sampling,
 * elicitation (form and URL mode, as the client declared them) and roots. Nothing else is the client's to offer.
 */
export function relayableCapabilities(client: ClientCapabilities | undefined): ClientCapabilities | undefined {
  if (!client) return undefined;
  const out: ClientCapabilities = {};
  if (client.sampling) out.sampling = client.sampling;
  if (client.elicitation) out.elicitation = client.elicitation;
  if (client.roots) out.roots = client.roots;
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * Whether a client that declared `capabilities` can answer a request a server sends its client: sampling needs
 * `sampling`, roots need `roots`, elicitation needs `elicitation`, and a URL-mode elicitation its `url` flag too.
 * Anything else is never the client's to answer.
 */
export function canAnswer(
  capabilities: ClientCapabilities | undefined,
  request: { method: string; params?: unknown },
): boolean {
  const declared = capabilities ?? {};
  switch (request.method) {
    case "sampling/createMessage":
      return declared.sampling !== undefined;
    case "roots/list":
      return declared.roots !== undefined;
    case "elicitation/create": {
      const mode = (request.params as { mode?: unknown } | undefined)?.mode;
      return declared.elicitation !== undefined && (mode !== "url" || declared.elicitation.url !== undefined);
    }
    default:
      return false;
  }
}

/**
 * The upstream connections of one downstream session whose client can answer server-to-client requests.
 *
 * A member's connection to an instance is normally shared by all their sessions and offers the server nothing.
 * A session whose client declared sampling, elicitation or roots gets connections of its own instead, offering
 * exactly what that client declared: every request such an upstream sends then belongs to this session (and to
 * the call in progress on it), so it can never reach another client, let alone another member.
 */
export class SessionUpstreams implements UpstreamProvider {
  private readonly connections = new Map<string, UpstreamConnection>();
  private closed = false;

  constructor(
    private readonly pool: Pick<ConnectionPool, "dedicated">,
    private readonly capabilities: ClientCapabilities,
    private readonly relay: (
      instanceId: string,
      ...args: Parameters<ServerRequestHandler>
    ) => ReturnType<ServerRequestHandler>,
  ) {}

  async get(instanceId: string): Promise<UpstreamConnection> {
    if (this.closed) throw new Error("this MCP session is closed");
    let connection = this.connections.get(instanceId);
    if (!connection) {
      connection = this.pool.dedicated(instanceId, {
        capabilities: this.capabilities,
        onServerRequest: (request, extra) => this.relay(instanceId, request, extra),
      });
      this.connections.set(instanceId, connection);
    }
    await connection.connect();
    return connection;
  }

  /** The client's roots changed: every upstream it offered roots to hears it. */
  rootsChanged(): void {
    for (const connection of this.connections.values()) void connection.client?.sendRootsListChanged().catch(() => {});
  }

  // These connections are this session's alone: their upstream sessions end with them (for a stdio server, the
  // worker's bridge then stops the process it ran for this client).
  async evict(instanceId: string): Promise<void> {
    const connection = this.connections.get(instanceId);
    this.connections.delete(instanceId);
    await connection?.close({ endSession: true });
  }

  async closeAll(): Promise<void> {
    this.closed = true;
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((c) => c.close({ endSession: true }).catch(() => {})));
  }
}
