import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { relayableCapabilities } from "@switchboard/core/proxy";
import { StdioSupervisor, type StdioSupervisorOptions } from "@switchboard/core/stdio";
import {
  ConnectionPool,
  type ServerRequestHandler,
  type UpstreamConnection,
  type UpstreamTarget,
} from "@switchboard/core/upstream";

/** Everything a client can answer: what discovery offers so that the catalogue holds every tool a client may see. */
export const FULL_OFFER: ClientCapabilities = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
};

/**
 * What a process is offered: what the client declared of sampling, elicitation and roots, reduced to the flags
 * the 2025-11-25 revision defines (sampling context / tools, elicitation form / URL, roots list changes). Nothing
 * else a client puts there reaches the server.
 */
export function processCapabilities(client: ClientCapabilities | undefined): ClientCapabilities | undefined {
  const relayable = relayableCapabilities(client);
  if (!relayable) return undefined;
  const out: ClientCapabilities = {};
  if (relayable.sampling) {
    out.sampling = {
      ...(relayable.sampling.context !== undefined ? { context: {} } : {}),
      ...(relayable.sampling.tools !== undefined ? { tools: {} } : {}),
    };
  }
  if (relayable.elicitation) {
    out.elicitation = {
      ...(relayable.elicitation.form !== undefined ? { form: {} } : {}),
      ...(relayable.elicitation.url !== undefined ? { url: {} } : {}),
    };
  }
  if (relayable.roots) out.roots = relayable.roots.listChanged === true ? { listChanged: true } : {};
  return out;
}

/** Processes for capable clients an instance may run at once, beside its main process. */
export const MAX_CLIENT_PROCESSES_PER_INSTANCE = 6;

/** Readable refusal past MAX_CLIENT_PROCESSES_PER_INSTANCE (the client gets it as the call's error). */
export class TooManyClientProcessesError extends Error {
  override readonly name = "TooManyClientProcessesError";
  constructor(max: number) {
    super(
      `This server already runs ${max} copies for clients that can answer sampling, elicitation or roots, all of them busy; try again when one of those calls has finished.`,
    );
  }
}

/** Whose process it is: a bridge session's (one client session's or one 2026 request's), or discovery's. */
export type ProcessOwner = string;

/** The owner that runs discovery's lists on a process offered everything a client can answer. */
export const DISCOVERY_OWNER: ProcessOwner = "discovery";

/** The id of an instance's process for one owner: `<instanceId>:client-<owner>`. */
export function clientProcessId(instanceId: string, owner: ProcessOwner): string {
  return `${instanceId}:client-${owner}`;
}

interface ProcessEntry {
  instanceId: string;
  owner: ProcessOwner;
  capabilities: ClientCapabilities;
}

export interface ClientProcessesOptions extends Omit<StdioSupervisorOptions, "resolveLaunch" | "onEvent"> {
  /** The instance's launch (sandbox included), as for its main process. */
  resolveLaunch: StdioSupervisorOptions["resolveLaunch"];
  /** Where the instance lives now: a connector (this worker runs it) or another worker's bridge. */
  target: (instanceId: string) => Promise<UpstreamTarget>;
  requestTimeoutMs?: number;
  /** Defaults to MAX_CLIENT_PROCESSES_PER_INSTANCE. */
  maxPerInstance?: number;
  /** Who answers what such a process asks its client: its owner, by process id (see `ownerOf`). */
  serverRequests: (processId: string, ...args: Parameters<ServerRequestHandler>) => ReturnType<ServerRequestHandler>;
  onEvent: (event: { type: string; instanceId: string; processId: string }) => void;
}

/**
 * The processes of hosted stdio servers for clients that declared sampling, elicitation or roots: one per owner,
 * never shared. A stdio server's request to its client carries nothing that links it to the call that raised it
 * (the 2025-11-25 stdio transport has no related-request id), so a process shared by two clients could only guess
 * whom to ask; a process of one owner asks that owner, exactly. The owner is a bridge session, and the route opens
 * one per capable client session (2025-11-25) or per request (2026-07-28), never one for two clients.
 *
 * An instance's main process (its status, health and idle stop) is initialized offering nothing; each owner's
 * process is initialized offering exactly what its client declared, so a server only ever asks, and only ever
 * shows its capable-client tools to, a client that can answer. They run in the instance's sandbox with its
 * limits, have their own crash history (a crash never changes the instance's status), stop when idle like the
 * main process, when their owner ends (`release`) and with every stop, eviction and removal of the instance. At
 * most `maxPerInstance` run at once per instance: past it, the least recently used one that is not serving a
 * request is stopped (its owner's next request starts it again), and when all are busy the request is refused.
 */
export class ClientProcesses {
  readonly supervisor: StdioSupervisor;
  private readonly pool: ConnectionPool;
  private readonly entries = new Map<string, ProcessEntry>();
  /** Starts under way, by process id: counted against the bound until their process runs, shared by callers. */
  private readonly starting = new Map<string, Promise<UpstreamConnection>>();

  constructor(private readonly options: ClientProcessesOptions) {
    const entry = (processId: string) => {
      const found = this.entries.get(processId);
      if (!found) throw new Error(`unknown stdio process ${processId}`);
      return found;
    };
    this.supervisor = new StdioSupervisor({
      ...options,
      resolveLaunch: (processId) => options.resolveLaunch(entry(processId).instanceId),
      onEvent: (event) =>
        options.onEvent({
          type: event.type,
          instanceId: this.entries.get(event.instanceId)?.instanceId ?? event.instanceId,
          processId: event.instanceId,
        }),
    });
    this.pool = new ConnectionPool({
      requestTimeoutMs: options.requestTimeoutMs,
      resolve: async (processId) => {
        const target = await options.target(entry(processId).instanceId);
        return "connector" in target ? { connector: () => this.supervisor.connect(processId) } : target;
      },
      offer: (processId) => entry(processId).capabilities,
      onServerRequest: (processId, request, extra) => options.serverRequests(processId, request, extra),
    });
  }

  /**
   * The connection to the owner's process for the instance, offered these client capabilities (only sampling,
   * elicitation and roots count), started on first use. Undefined when they include none of the three: the main
   * process serves. An owner keeps the capabilities of its first use.
   */
  async get(
    instanceId: string,
    client: ClientCapabilities | undefined,
    owner: ProcessOwner,
    { unbounded = false } = {},
  ): Promise<UpstreamConnection | undefined> {
    const capabilities = processCapabilities(client);
    if (!capabilities) return undefined;
    const processId = clientProcessId(instanceId, owner);
    if (!this.entries.has(processId)) this.entries.set(processId, { instanceId, owner, capabilities });
    const pending = this.starting.get(processId);
    if (pending) return pending;
    if (this.isLive(processId)) return this.pool.get(processId);
    const start = (async () => {
      if (!unbounded) await this.makeRoom(instanceId, processId);
      return this.pool.get(processId);
    })();
    this.starting.set(processId, start);
    try {
      return await start;
    } finally {
      if (this.starting.get(processId) === start) this.starting.delete(processId);
    }
  }

  /** Who a process belongs to, while it is known. */
  ownerOf(processId: string): { instanceId: string; owner: ProcessOwner } | undefined {
    const found = this.entries.get(processId);
    return found && { instanceId: found.instanceId, owner: found.owner };
  }

  isRunning(instanceId: string, owner: ProcessOwner): boolean {
    return this.supervisor.state(clientProcessId(instanceId, owner)).running;
  }

  /** The owner is gone (its bridge session ended): its process is stopped and forgotten. */
  async release(instanceId: string, owner: ProcessOwner): Promise<void> {
    await this.forget(clientProcessId(instanceId, owner));
  }

  /** Process ids of an instance's processes for capable clients (running or not). */
  ofInstance(instanceId: string): string[] {
    return [...this.entries].filter(([, e]) => e.instanceId === instanceId).map(([id]) => id);
  }

  /** True while one of the instance's capable-client processes runs on this worker. */
  anyRunning(instanceId: string): boolean {
    const running = new Set(this.supervisor.running());
    return this.ofInstance(instanceId).some((id) => running.has(id));
  }

  /** Stops them and forgets them (the next use starts fresh ones with the then current configuration). */
  async closeInstance(instanceId: string): Promise<void> {
    await Promise.all(this.ofInstance(instanceId).map((processId) => this.forget(processId)));
  }

  async closeAll(): Promise<void> {
    await this.pool.closeAll();
    await this.supervisor.closeAll();
    this.entries.clear();
  }

  private isLive(processId: string): boolean {
    return this.supervisor.state(processId).running || this.pool.peek(processId)?.connected === true;
  }

  /** Below the bound, or made so by stopping the least recently used idle process; refused when all are busy. */
  private async makeRoom(instanceId: string, starting: string): Promise<void> {
    const max = this.options.maxPerInstance ?? MAX_CLIENT_PROCESSES_PER_INSTANCE;
    const ids = this.ofInstance(instanceId).filter((id) => id !== starting);
    const live = ids.filter((id) => this.isLive(id));
    if (live.length + ids.filter((id) => !live.includes(id) && this.starting.has(id)).length < max) return;
    const idle = live
      .map((id) => ({ id, activity: this.supervisor.activity(id) }))
      .filter((p) => p.activity !== undefined && !p.activity.busy)
      .sort((a, b) => a.activity!.lastAt - b.activity!.lastAt)[0];
    if (!idle) throw new TooManyClientProcessesError(max);
    await this.pool.peek(idle.id)?.reset();
    await this.supervisor.stop(idle.id);
  }

  private async forget(processId: string): Promise<void> {
    // Served by another worker's bridge: the session there ends too, and the process it runs for this owner.
    await this.pool
      .peek(processId)
      ?.close({ endSession: true })
      .catch(() => {});
    await this.pool.evict(processId);
    await this.supervisor.remove(processId);
    this.entries.delete(processId);
  }
}
