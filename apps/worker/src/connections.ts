import { ErrorCode, McpError, type ClientCapabilities, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { ResolvedLaunch } from "@switchboard/core/config";
import { spawnStdioProcess, StdioSupervisor, type StdioLaunch, type SupervisedState, type SupervisorEvent } from "@switchboard/core/stdio";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ConnectionPool, nodeFetch, type HttpLaunch, type ServerRequestHandler, type UpstreamConnection, type UpstreamTarget, type UpstreamTransportOptions } from "@switchboard/core/upstream";

export interface InstanceConnectionsOptions {
  /**
   * The launch of an instance from its configuration, resolved afresh on every (re)connect and spawn, with the
   * sandbox settings its installation stores (handed to `wrapStdio`, so a spawn loads the instance once).
   */
  resolveLaunch: (instanceId: string) => Promise<{ launch: ResolvedLaunch; sandbox?: unknown }>;
  /**
   * For a stdio instance: null when this worker runs its process (it holds the lease, or there are no leases),
   * otherwise how to reach the worker that does (its bridge).
   */
  remoteStdio?: (instanceId: string) => Promise<HttpLaunch | null>;
  /** Everything the supervisor reports (crashes, permanent failure, idle and intentional stops). */
  onSupervisorEvent: (event: SupervisorEvent) => void;
  idleStopMs?: number;
  requestTimeoutMs?: number;
  killGraceMs?: number;
  /**
   * Wraps the launch of a stdio process this worker is about to spawn (the sandbox). When given, the process
   * gets exactly the environment of the wrapped launch: nothing of the worker's own.
   */
  wrapStdio?: (instanceId: string, launch: StdioLaunch, sandbox: unknown) => Promise<StdioLaunch>;
  /** The instance is gone for good (removal): drop what it kept on this host (its sandbox's home). */
  onRemoved?: (instanceId: string) => void;
  /** The fetch of remote servers (core egressFetch: the egress policy applied). The bridge uses nodeFetch. */
  upstreamFetch: FetchLike;
  /** Per-connection transport options for remote servers (OAuth: the member's token, refresh on 401). */
  httpAuth?: (instanceId: string) => Promise<Pick<UpstreamTransportOptions, "fetch"> | undefined>;
}

/** Health probes are not use: a server only probed must still go idle. */
/**
 * What the worker's connections offer: everything a client can answer. A hosted stdio server's one process
 * serves one member's instance for all their sessions, so it cannot be offered per client; the bridge relays
 * each request to a session whose client declared it, and answers with an error when none did. Remote servers
 * are offered the same at discovery, so that tools they show only to capable clients are in the catalogue
 * (the web route's own connections offer exactly what each client declared); the worker answers what they
 * ask with an error.
 */
const STDIO_OFFER: ClientCapabilities = { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true } };

const countsAsUse = (message: JSONRPCMessage) => !("method" in message && message.method === "ping");

/**
 * The worker's live upstream connections, one per instance (core ConnectionPool). The stdio servers this worker
 * hosts run under one core StdioSupervisor: the pool's connector for them is `() => supervisor.connect(id)`,
 * and the supervisor applies the crash policy (restart, then permanently failed after 3 crashes in 5 minutes),
 * the idle stop and the process-group kill. Closing a pool connection only detaches from the process; stopping
 * the process goes through the supervisor.
 */
export class InstanceConnections {
  readonly supervisor: StdioSupervisor;
  private readonly pool: ConnectionPool;
  /** Instances whose process this worker runs (as opposed to reaching another worker's bridge). */
  private readonly local = new Set<string>();
  /** Who answers what a hosted stdio server asks its client (the bridge); nothing is offered while unset. */
  serverRequests: ((instanceId: string, ...args: Parameters<ServerRequestHandler>) => ReturnType<ServerRequestHandler>) | undefined;

  constructor(private readonly options: InstanceConnectionsOptions) {
    this.supervisor = new StdioSupervisor({
      resolveLaunch: async (instanceId) => {
        const { launch, sandbox } = await options.resolveLaunch(instanceId);
        if (launch.transport !== "stdio") throw new Error(`instance ${instanceId} is not a stdio server any more`);
        return options.wrapStdio ? options.wrapStdio(instanceId, launch, sandbox) : (launch satisfies StdioLaunch);
      },
      spawn: (launch) => spawnStdioProcess(launch, options.wrapStdio ? { inheritEnv: [] } : {}),
      onEvent: options.onSupervisorEvent,
      idleStopMs: options.idleStopMs,
      killGraceMs: options.killGraceMs ?? 2_000,
      isActivity: countsAsUse,
    });
    this.pool = new ConnectionPool({
      requestTimeoutMs: options.requestTimeoutMs,
      resolve: (instanceId) => this.target(instanceId),
      offer: () => STDIO_OFFER,
      onServerRequest: (instanceId, request, extra) =>
        this.serverRequests && this.local.has(instanceId)
          ? this.serverRequests(instanceId, request, extra)
          : Promise.reject(new McpError(ErrorCode.InvalidRequest, `No connected client can answer ${request.method}`)),
    });
  }

  /** The instance's connection, connected (starting its stdio process if this worker hosts it). */
  async get(instanceId: string): Promise<UpstreamConnection> {
    return this.pool.get(instanceId);
  }

  peek(instanceId: string): UpstreamConnection | undefined {
    return this.pool.peek(instanceId);
  }

  /** True when a session is open right now (for a local stdio server: its process runs). */
  isConnected(instanceId: string): boolean {
    return this.pool.peek(instanceId)?.connected ?? false;
  }

  /** True when this worker runs the instance's process. */
  isLocalStdio(instanceId: string): boolean {
    return this.local.has(instanceId);
  }

  stdioState(instanceId: string): SupervisedState {
    return this.supervisor.state(instanceId);
  }

  /** Stops the process (idle, lease lost) but keeps the slot and its crash history: the next get() starts it. */
  async stop(instanceId: string): Promise<void> {
    await this.pool.peek(instanceId)?.reset();
    await this.supervisor.stop(instanceId);
  }

  /**
   * Closes the connection for good and stops the process (reconnect attempt, new config, call failures). The
   * supervisor keeps the crash history: an evicted instance that crashed too often stays refused.
   */
  async evict(instanceId: string): Promise<void> {
    await this.pool.evict(instanceId);
    if (this.local.delete(instanceId)) await this.supervisor.stop(instanceId);
  }

  /** Evicts and forgets everything about the instance, crash history included (removal). */
  async remove(instanceId: string): Promise<void> {
    await this.pool.evict(instanceId);
    this.local.delete(instanceId);
    await this.supervisor.remove(instanceId);
    this.options.onRemoved?.(instanceId);
  }

  /**
   * The explicit restart of a stdio instance: the supervisor forgets its crash history (lifting a permanent
   * failure) and starts a fresh process, if this worker is the one that runs it. Other transports: nothing to do.
   */
  async restart(instanceId: string): Promise<void> {
    await this.pool.evict(instanceId);
    const target = await this.target(instanceId);
    if ("connector" in target) await this.supervisor.restart(instanceId);
  }

  /** Stops taking requests and kills every process group this worker runs (graceful shutdown). */
  async closeAll(): Promise<void> {
    await this.pool.closeAll();
    this.local.clear();
    await this.supervisor.closeAll();
  }

  get size(): number {
    return this.pool.size;
  }

  private async target(instanceId: string): Promise<UpstreamTarget> {
    const { launch } = await this.options.resolveLaunch(instanceId);
    if (launch.transport !== "stdio") return { launch, fetch: this.options.upstreamFetch, ...(await this.options.httpAuth?.(instanceId)) };
    const remote = (await this.options.remoteStdio?.(instanceId)) ?? null;
    if (remote) {
      this.local.delete(instanceId);
      // Another worker's bridge: an address we advertised ourselves, not a configured URL.
      return { launch: remote, fetch: nodeFetch };
    }
    this.local.add(instanceId);
    return { connector: () => this.supervisor.connect(instanceId) };
  }
}
