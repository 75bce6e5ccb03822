import { ErrorCode, McpError, type ClientCapabilities, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { ResolvedLaunch } from "@switchboard/core/config";
import {
  spawnStdioProcess,
  StdioSupervisor,
  type StdioLaunch,
  type SupervisedState,
  type SupervisorEvent,
} from "@switchboard/core/stdio";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ConnectionPool,
  nodeFetch,
  type HttpLaunch,
  type ListKind,
  type ServerRequestHandler,
  type UpstreamConnection,
  type UpstreamTarget,
  type UpstreamTransportOptions,
} from "@switchboard/core/upstream";
import { ClientProcesses, DISCOVERY_OWNER, FULL_OFFER, type ProcessOwner } from "./client-processes";

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
  /** What the processes for capable clients report (logged; they never change the instance's status). */
  onClientProcessEvent?: (event: { type: string; instanceId: string; processId: string }) => void;
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
  /**
   * An upstream said one of its lists changed on the instance's pooled connection (the one health checks keep
   * open), so the catalogue follows a server's changes even while no client uses the route.
   */
  onListChanged?: (instanceId: string, kind: ListKind) => void;
  /** Per-connection transport options for remote servers (OAuth: the member's token, refresh on 401). */
  httpAuth?: (instanceId: string) => Promise<Pick<UpstreamTransportOptions, "fetch"> | undefined>;
}

/**
 * What the worker's connections to remote servers offer: everything a client can answer, so that tools they show
 * only to capable clients are in the catalogue (the gateway's own connections offer exactly what each client
 * declared); the worker answers what they ask with an error. A hosted stdio server's main process is offered
 * nothing: clients that declared capabilities get processes of their own (ClientProcesses).
 */
const REMOTE_OFFER: ClientCapabilities = FULL_OFFER;

/** Health probes are not use: a server only probed must still go idle. */
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
  /** The processes of hosted stdio servers for clients that declared sampling, elicitation or roots. */
  readonly clientProcesses: ClientProcesses;
  /** Instances whose process this worker runs (as opposed to reaching another worker's bridge). */
  private readonly local = new Set<string>();
  /** Stdio instances, hosted here or reached through another worker's bridge. */
  private readonly stdio = new Set<string>();
  /**
   * Who answers what a hosted stdio server's process for capable clients asks (the bridge), by process id
   * (`ClientProcesses`); such a request is answered with an error while unset.
   */
  serverRequests:
    ((processId: string, ...args: Parameters<ServerRequestHandler>) => ReturnType<ServerRequestHandler>) | undefined;

  constructor(private readonly options: InstanceConnectionsOptions) {
    // Every process of an instance (main or for capable clients) is launched alike: same checks, same sandbox.
    const processes = {
      resolveLaunch: async (instanceId: string) => {
        const { launch, sandbox } = await options.resolveLaunch(instanceId);
        if (launch.transport !== "stdio") throw new Error(`instance ${instanceId} is not a stdio server any more`);
        return options.wrapStdio ? options.wrapStdio(instanceId, launch, sandbox) : (launch satisfies StdioLaunch);
      },
      spawn: (launch: StdioLaunch) => spawnStdioProcess(launch, options.wrapStdio ? { inheritEnv: [] } : {}),
      idleStopMs: options.idleStopMs,
      killGraceMs: options.killGraceMs ?? 2_000,
      isActivity: countsAsUse,
    };
    this.supervisor = new StdioSupervisor({ ...processes, onEvent: options.onSupervisorEvent });
    this.pool = new ConnectionPool({
      requestTimeoutMs: options.requestTimeoutMs,
      resolve: (instanceId) => this.target(instanceId),
      // Decided after the connector ran, so the target (stdio or remote) is known.
      offer: (instanceId) => (this.stdio.has(instanceId) ? {} : REMOTE_OFFER),
      onServerRequest: (_instanceId, request) =>
        Promise.reject(new McpError(ErrorCode.InvalidRequest, `No connected client can answer ${request.method}`)),
      onListChanged: options.onListChanged,
    });
    this.clientProcesses = new ClientProcesses({
      ...processes,
      requestTimeoutMs: options.requestTimeoutMs,
      target: (instanceId) => this.target(instanceId),
      serverRequests: (processId, request, extra) =>
        this.serverRequests
          ? this.serverRequests(processId, request, extra)
          : Promise.reject(new McpError(ErrorCode.InvalidRequest, `No connected client can answer ${request.method}`)),
      onEvent: (event) => options.onClientProcessEvent?.(event),
    });
  }

  /**
   * A connection to the instance for one owner (a bridge session) whose client declared these capabilities: for a
   * stdio server, the owner's own process offered exactly the sampling / elicitation / roots the client declared
   * (started on first use), or the main process when it declared none; for a remote server, the pooled connection.
   */
  async forClient(
    instanceId: string,
    capabilities: ClientCapabilities | undefined,
    owner: ProcessOwner,
  ): Promise<UpstreamConnection> {
    // Where the instance lives is known once its main connection was made; it need not be running meanwhile.
    if (!this.stdio.has(instanceId) || !this.pool.peek(instanceId)) {
      const main = await this.pool.get(instanceId);
      if (!this.stdio.has(instanceId)) return main;
    }
    return (await this.clientProcesses.get(instanceId, capabilities, owner)) ?? this.pool.get(instanceId);
  }

  /**
   * Runs discovery's lists on a connection offered everything a client can answer, so the catalogue holds the
   * tools a server shows only to capable clients, and hands it a connection offered nothing, to tell those tools
   * apart. For a stdio server the first is a process of discovery's own offered everything (stopped afterwards)
   * and the second its main process, which is the instance's status;
   * for a remote server, the pooled connection and a session of its own, closed afterwards.
   */
  async forDiscovery<T>(
    instanceId: string,
    run: (full: UpstreamConnection, plain: UpstreamConnection) => Promise<T>,
  ): Promise<T> {
    const main = await this.pool.get(instanceId);
    if (!this.stdio.has(instanceId)) {
      const plain = this.pool.dedicated(instanceId, { capabilities: {} });
      try {
        return await run(main, plain);
      } finally {
        await plain.close().catch(() => {});
      }
    }
    try {
      // Not subject to the bound on processes per instance: discovery must not fail because clients are busy.
      const full = await this.clientProcesses.get(instanceId, FULL_OFFER, DISCOVERY_OWNER, { unbounded: true });
      return await run(full ?? main, main);
    } catch {
      // That process failed (crashed, or crashed too often): it is not the instance's status, the main process
      // is. Discovery goes on with the main process alone (tools only capable clients see are missing until
      // the next discovery), and the main process's own failure, if it has one, is what is reported.
      return await run(main, main);
    } finally {
      await this.clientProcesses.release(instanceId, DISCOVERY_OWNER);
    }
  }

  /** True when one of the instance's processes (main or for capable clients) runs on this worker. */
  hasLocalProcess(instanceId: string): boolean {
    return this.supervisor.state(instanceId).running || this.clientProcesses.anyRunning(instanceId);
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
    await this.clientProcesses.closeInstance(instanceId);
    await this.supervisor.stop(instanceId);
  }

  /**
   * Closes the connection for good and stops the process (reconnect attempt, new config, call failures). The
   * supervisor keeps the crash history: an evicted instance that crashed too often stays refused.
   */
  async evict(instanceId: string): Promise<void> {
    await this.pool.evict(instanceId);
    await this.clientProcesses.closeInstance(instanceId);
    if (this.local.delete(instanceId)) await this.supervisor.stop(instanceId);
  }

  /** Evicts and forgets everything about the instance, crash history included (removal). */
  async remove(instanceId: string): Promise<void> {
    await this.pool.evict(instanceId);
    await this.clientProcesses.closeInstance(instanceId);
    this.local.delete(instanceId);
    this.stdio.delete(instanceId);
    await this.supervisor.remove(instanceId);
    this.options.onRemoved?.(instanceId);
  }

  /**
   * The explicit restart of a stdio instance: the supervisor forgets its crash history (lifting a permanent
   * failure) and starts a fresh process, if this worker is the one that runs it. Other transports: nothing to do.
   */
  async restart(instanceId: string): Promise<void> {
    await this.pool.evict(instanceId);
    await this.clientProcesses.closeInstance(instanceId);
    const target = await this.target(instanceId);
    if ("connector" in target) await this.supervisor.restart(instanceId);
  }

  /** Stops taking requests and kills every process group this worker runs (graceful shutdown). */
  async closeAll(): Promise<void> {
    await this.pool.closeAll();
    this.local.clear();
    await Promise.all([this.supervisor.closeAll(), this.clientProcesses.closeAll()]);
  }

  get size(): number {
    return this.pool.size;
  }

  private async target(instanceId: string): Promise<UpstreamTarget> {
    const { launch } = await this.options.resolveLaunch(instanceId);
    if (launch.transport !== "stdio") {
      this.stdio.delete(instanceId);
      return { launch, fetch: this.options.upstreamFetch, ...(await this.options.httpAuth?.(instanceId)) };
    }
    this.stdio.add(instanceId);
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
