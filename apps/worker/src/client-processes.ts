import { createHash } from "node:crypto";
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

function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{${entries
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
    .join(",")}}`;
}

/**
 * The capability set a process is offered: what the client declared of sampling, elicitation and roots, reduced
 * to the flags the 2025-11-25 revision defines (sampling context / tools, elicitation form / URL, roots list
 * changes). Nothing else a client puts there can make a set, and so a process, of its own.
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
      `This server already runs ${max} copies for clients with different sampling, elicitation or roots support; close one of those clients or wait a few minutes until an idle copy stops.`,
    );
  }
}

/**
 * The id of an instance's process for one set of client capabilities: `<instanceId>:caps-<hash>`. The same
 * capabilities (in any key order) give the same process.
 */
export function capabilityProcessId(instanceId: string, capabilities: ClientCapabilities): string {
  return `${instanceId}:caps-${createHash("sha256").update(canonical(capabilities)).digest("hex").slice(0, 16)}`;
}

interface ProcessEntry {
  instanceId: string;
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
  /** Who answers what such a process asks its client (the bridge's sessions of that capability set). */
  serverRequests: (processId: string, ...args: Parameters<ServerRequestHandler>) => ReturnType<ServerRequestHandler>;
  onEvent: (event: { type: string; instanceId: string; processId: string }) => void;
}

/**
 * The processes of hosted stdio servers for clients that declared sampling, elicitation or roots. An instance's
 * main process (its status, health and idle stop) is initialized offering nothing; a process per set of client
 * capabilities runs beside it on demand, initialized offering exactly that set, so a server only ever asks, and
 * only ever shows its capable-client tools to, clients that can answer. They run in the instance's sandbox with
 * its limits, have their own crash history (a crash never changes the instance's status), stop when idle like
 * the main process and go with every stop, eviction and removal of the instance.
 */
export class ClientProcesses {
  readonly supervisor: StdioSupervisor;
  private readonly pool: ConnectionPool;
  private readonly entries = new Map<string, ProcessEntry>();

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
   * The connection to the instance's process for these client capabilities (only sampling, elicitation and
   * roots count), started on first use. Undefined when they include none of the three: the main process serves.
   */
  async get(
    instanceId: string,
    client: ClientCapabilities | undefined,
    { unbounded = false } = {},
  ): Promise<UpstreamConnection | undefined> {
    const capabilities = processCapabilities(client);
    if (!capabilities) return undefined;
    const processId = capabilityProcessId(instanceId, capabilities);
    if (!this.entries.has(processId)) {
      // Bounded per instance: each is a whole server process (memory is limited per process).
      const max = this.options.maxPerInstance ?? MAX_CLIENT_PROCESSES_PER_INSTANCE;
      const live = this.ofInstance(instanceId).filter(
        (id) => this.supervisor.state(id).running || this.pool.peek(id)?.connected,
      );
      if (live.length >= max && !unbounded) throw new TooManyClientProcessesError(max);
      this.entries.set(processId, { instanceId, capabilities });
    }
    return this.pool.get(processId);
  }

  isRunning(instanceId: string, client: ClientCapabilities): boolean {
    const capabilities = processCapabilities(client);
    return capabilities !== undefined && this.supervisor.state(capabilityProcessId(instanceId, capabilities)).running;
  }

  /** Stops the instance's process for these capabilities (it starts again on the next use). */
  async stop(instanceId: string, client: ClientCapabilities): Promise<void> {
    const capabilities = processCapabilities(client);
    if (!capabilities) return;
    const processId = capabilityProcessId(instanceId, capabilities);
    await this.pool.peek(processId)?.reset();
    await this.supervisor.stop(processId);
  }

  /** Process ids of an instance's capability processes (running or not). */
  ofInstance(instanceId: string): string[] {
    return [...this.entries].filter(([, e]) => e.instanceId === instanceId).map(([id]) => id);
  }

  instanceOf(processId: string): string | undefined {
    return this.entries.get(processId)?.instanceId;
  }

  /** True while one of the instance's capability processes runs on this worker. */
  anyRunning(instanceId: string): boolean {
    const running = new Set(this.supervisor.running());
    return this.ofInstance(instanceId).some((id) => running.has(id));
  }

  /** Stops them and forgets them (the next use starts fresh ones with the then current configuration). */
  async closeInstance(instanceId: string): Promise<void> {
    await Promise.all(
      this.ofInstance(instanceId).map(async (processId) => {
        await this.pool.evict(processId);
        await this.supervisor.remove(processId);
        this.entries.delete(processId);
      }),
    );
  }

  async closeAll(): Promise<void> {
    await this.pool.closeAll();
    await this.supervisor.closeAll();
    this.entries.clear();
  }
}
