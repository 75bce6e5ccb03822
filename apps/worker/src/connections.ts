import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ResolvedLaunch } from "@switchboard/core/config";
import { ConnectionPool, createUpstreamTransport, type UpstreamConnection } from "@switchboard/core/upstream";

export interface StdioExit {
  instanceId: string;
  at: Date;
}

export interface InstanceConnectionsOptions {
  /** The launch of an instance, resolved afresh on every (re)connect so config changes are picked up. */
  resolveLaunch: (instanceId: string) => Promise<ResolvedLaunch>;
  /** A stdio process this worker owns went away without us closing it: a crash. */
  onStdioExit: (exit: StdioExit) => void;
  /** A local stdio process was stopped on purpose (idle, eviction, shutdown): its lease can go. */
  onStdioStopped?: (instanceId: string) => void;
  requestTimeoutMs?: number;
  killGraceMs?: number;
  clock?: () => Date;
}

/**
 * The worker's live upstream connections, one per instance (core ConnectionPool). For stdio instances the
 * connection owns the process (core upstream's stdio transport kills the process group on close): closing
 * through us is intentional, an exit we did not ask for is reported as a crash.
 *
 * Core's StdioSupervisor (crash and idle policies) is not there yet; the worker applies the crash policy
 * from these exit reports and the idle policy from `lastUsedAt`.
 */
export class InstanceConnections {
  private readonly pool: ConnectionPool;
  private readonly transports = new Map<string, Transport>();
  private readonly stdio = new Set<string>();
  private readonly lastUsed = new Map<string, number>();
  private readonly clock: () => Date;

  constructor(private readonly options: InstanceConnectionsOptions) {
    this.clock = options.clock ?? (() => new Date());
    this.pool = new ConnectionPool({
      requestTimeoutMs: options.requestTimeoutMs,
      resolve: async (instanceId) => ({ connector: () => this.open(instanceId) }),
    });
  }

  /** The instance's connection, connected (spawning its stdio process if needed). */
  async get(instanceId: string, opts: { touch?: boolean } = {}): Promise<UpstreamConnection> {
    // Health probes pass touch: false, or they would keep an unused stdio server from ever going idle.
    if (opts.touch !== false) this.touch(instanceId);
    return this.pool.get(instanceId);
  }

  peek(instanceId: string): UpstreamConnection | undefined {
    return this.pool.peek(instanceId);
  }

  /** True when a session is open right now (for stdio: its process runs). */
  isConnected(instanceId: string): boolean {
    return this.pool.peek(instanceId)?.connected ?? false;
  }

  isStdio(instanceId: string): boolean {
    return this.stdio.has(instanceId);
  }

  touch(instanceId: string): void {
    this.lastUsed.set(instanceId, this.clock().getTime());
  }

  lastUsedAt(instanceId: string): number | undefined {
    return this.lastUsed.get(instanceId);
  }

  /** Connected stdio instances, for the idle sweep. */
  runningStdio(): string[] {
    return [...this.stdio].filter((id) => this.isConnected(id));
  }

  /** Stops the session (and the stdio process) but keeps the slot: the next get() reconnects. Intentional. */
  async stop(instanceId: string): Promise<void> {
    await this.pool.peek(instanceId)?.reset();
  }

  /** Closes for good and forgets the instance (removal, new config). Intentional. */
  async evict(instanceId: string): Promise<void> {
    await this.pool.evict(instanceId);
    this.transports.delete(instanceId);
    this.stdio.delete(instanceId);
    this.lastUsed.delete(instanceId);
  }

  async closeAll(): Promise<void> {
    await this.pool.closeAll();
    this.transports.clear();
    this.stdio.clear();
  }

  get size(): number {
    return this.pool.size;
  }

  private async open(instanceId: string): Promise<Transport> {
    const launch = await this.options.resolveLaunch(instanceId);
    const transport = await createUpstreamTransport(launch, { killGraceMs: this.options.killGraceMs ?? 2_000 });
    if (launch.transport !== "stdio") return transport;

    this.stdio.add(instanceId);
    this.transports.set(instanceId, transport);
    let closing = false;
    const close = transport.close.bind(transport);
    transport.close = async () => {
      const first = !closing;
      closing = true;
      await close();
      if (first) this.options.onStdioStopped?.(instanceId);
    };
    // The SDK chains handlers set before connect(), so this runs alongside the client's own onclose.
    transport.onclose = () => {
      if (closing) return;
      closing = true;
      // The process is gone; make sure its group is too, then report.
      void close().catch(() => {});
      this.options.onStdioExit({ instanceId, at: this.clock() });
    };
    return transport;
  }
}
