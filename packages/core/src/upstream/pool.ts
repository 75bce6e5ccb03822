import type { Implementation } from "@modelcontextprotocol/sdk/types.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { UpstreamConnection, type Connector, type UpstreamConnectionOptions } from "./connection";
import type { ListKind } from "./connection-listeners";
import type { ServerRequestHandler } from "./server-requests";
import type { ResolvedLaunch } from "./launch";
import { createUpstreamTransport, type UpstreamTransportOptions } from "./transport";

/**
 * Where an instance lives. Either a launch (the pool builds the transport, carrying that member's headers or env)
 * or a ready connector, e.g. `() => supervisor.connect(instanceId)` for supervised stdio servers.
 */
export type UpstreamTarget =
  | ({ launch: ResolvedLaunch } & Pick<UpstreamTransportOptions, "getHeaders" | "authProvider" | "fetch">)
  | { connector: Connector };

export interface ConnectionPoolOptions {
  /** Called on every (re)connect, so a refreshed credential or changed config is picked up. */
  resolve: (instanceId: string) => Promise<UpstreamTarget>;
  requestTimeoutMs?: number;
  clientInfo?: Implementation;
  transport?: Pick<UpstreamTransportOptions, "killGraceMs" | "spawn">;
  /**
   * What the pool's connections offer their servers, decided per instance at each connect, and who answers
   * the server-to-client requests that follows from it (nothing is offered without `onServerRequest`).
   */
  offer?: (instanceId: string) => ClientCapabilities;
  onServerRequest?: (instanceId: string, ...args: Parameters<ServerRequestHandler>) => ReturnType<ServerRequestHandler>;
  /**
   * An upstream said one of its lists changed, on one of the pool's shared connections (dedicated ones are
   * short-lived and per client: not listened to). Listening makes every shared connection to a 2026-07-28
   * server hold a `subscriptions/listen` stream open for as long as it lives.
   */
  onListChanged?: (instanceId: string, kind: ListKind) => void;
}

/** One live connection per instance, created on first use and reused by every call after it. */
export class ConnectionPool {
  private readonly connections = new Map<string, UpstreamConnection>();
  /** Who wants each instance's shared connection as it comes (see `watch`). */
  private readonly watchers = new Map<string, Set<(connection: UpstreamConnection) => void>>();

  constructor(private readonly options: ConnectionPoolOptions) {}

  /** The instance's connection, connected. A failed connect leaves it in the pool to retry on the next get. */
  async get(instanceId: string): Promise<UpstreamConnection> {
    const connection = this.peek(instanceId) ?? this.create(instanceId);
    await connection.connect();
    return connection;
  }

  peek(instanceId: string): UpstreamConnection | undefined {
    return this.connections.get(instanceId);
  }

  /**
   * `listener` gets the instance's shared connection now, if there is one, and each one created after it (an
   * eviction's replacement included), without opening any. Returns the unwatch.
   */
  watch(instanceId: string, listener: (connection: UpstreamConnection) => void): () => void {
    let listeners = this.watchers.get(instanceId);
    if (!listeners) this.watchers.set(instanceId, (listeners = new Set()));
    listeners.add(listener);
    const now = this.connections.get(instanceId);
    if (now) listener(now);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.watchers.get(instanceId) === listeners) this.watchers.delete(instanceId);
    };
  }

  /** Close and forget an instance's connection (config changed, instance removed, member re-authenticated). */
  async evict(instanceId: string): Promise<void> {
    const connection = this.connections.get(instanceId);
    this.connections.delete(instanceId);
    await connection?.close();
  }

  async closeAll(): Promise<void> {
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((connection) => connection.close()));
  }

  get size(): number {
    return this.connections.size;
  }

  /**
   * A connection of its own, outside the pool (the caller closes it): for a downstream session whose client
   * answers server-to-client requests, so that what the upstream asks reaches that client and no other.
   */
  dedicated(
    instanceId: string,
    options: Pick<UpstreamConnectionOptions, "capabilities" | "onServerRequest">,
  ): UpstreamConnection {
    return this.build(instanceId, options);
  }

  private create(instanceId: string): UpstreamConnection {
    const { offer, onServerRequest } = this.options;
    const connection = this.build(
      instanceId,
      offer && onServerRequest
        ? {
            capabilities: () => offer(instanceId),
            onServerRequest: (request, extra) => onServerRequest(instanceId, request, extra),
          }
        : {},
    );
    const onListChanged = this.options.onListChanged;
    if (onListChanged) connection.onListChanged((kind) => onListChanged(instanceId, kind));
    this.connections.set(instanceId, connection);
    for (const listener of this.watchers.get(instanceId) ?? []) listener(connection);
    return connection;
  }

  private build(
    instanceId: string,
    extra: Pick<UpstreamConnectionOptions, "capabilities" | "onServerRequest">,
  ): UpstreamConnection {
    return new UpstreamConnection({
      ...extra,
      instanceId,
      requestTimeoutMs: this.options.requestTimeoutMs,
      clientInfo: this.options.clientInfo,
      connector: async () => {
        const target = await this.options.resolve(instanceId);
        if ("connector" in target) return target.connector();
        const { launch, ...perConnection } = target;
        return createUpstreamTransport(launch, { ...this.options.transport, ...perConnection });
      },
    });
  }
}
