import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

/**
 * Steady load for the fault drills: real SDK clients (one MCP session each) calling tools through the hosted
 * route in a loop, every call with a deadline. Each call's outcome is recorded with its start and end, so a drill
 * counts what happened in its window and when calls started succeeding again.
 */

/** How a call ended. */
export type Outcome =
  /** The tool answered. */
  | "ok"
  /** A JSON-RPC error or a tool error with a message a person can read. */
  | "failed"
  /** The connection to the gateway process was cut under it (its process was killed): no answer can come. */
  | "cut"
  /** No answer before the deadline. */
  | "hung";

export interface CallRecord {
  target: string;
  startedAt: number;
  endedAt: number;
  outcome: Outcome;
  message?: string;
}

export interface LoadTarget {
  /** Namespaced tool name as the route lists it (`<server slug>-<tool>`). */
  tool: string;
  arguments: Record<string, unknown>;
}

export interface LoadOptions {
  url: string;
  token: string;
  /** Tools to call, in turn. */
  targets: LoadTarget[];
  clients: number;
  /** A call past this counts as hung (and is abandoned). */
  deadlineMs: number;
  /** Pause between one client's calls (keeps the load steady rather than maximal on a small machine). */
  pauseMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reads the message of a failed call: the tool's text, a JSON-RPC error's message, or the transport's error. */
function describe(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    const code = (error as { code?: unknown }).code;
    const causeText = cause instanceof Error ? ` (${(cause as { code?: string }).code ?? cause.message})` : "";
    return `${code !== undefined ? `[${String(code)}] ` : ""}${error.message}${causeText}`.slice(0, 300);
  }
  return String(error).slice(0, 300);
}

/** A session the route no longer knows (Redis lost it, or it expired): the specification says start a new one. */
const sessionGone = (message: string) => /session not found|initialize a new session|404/i.test(message);
/** The gateway process went away under the request, or refused the connection. */
const connectionLost = (message: string) =>
  /fetch failed|ECONNRESET|ECONNREFUSED|socket hang up|other side closed|terminated|UND_ERR_SOCKET/i.test(message);

export class Load {
  readonly records: CallRecord[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private readonly sessions: Array<Client | undefined> = [];
  /** New sessions opened after the first (a lost session, or a client that gave up on a broken one). */
  reconnects = 0;
  /** Start times of the calls under way, by client. */
  private readonly inFlight = new Map<number, number>();

  constructor(private readonly options: LoadOptions) {}

  /** The tools called, each a target a drill waits for. */
  get targetNames(): string[] {
    return [...new Set(this.options.targets.map((t) => t.tool))];
  }

  /** When the oldest call still waiting for its answer started (undefined: none waits). */
  oldestInFlight(): number | undefined {
    return this.inFlight.size > 0 ? Math.min(...this.inFlight.values()) : undefined;
  }

  /** Opens the sessions and starts calling; resolves once every client made one successful call. */
  async start(): Promise<void> {
    this.running = true;
    for (let i = 0; i < this.options.clients; i++) this.sessions.push(await this.connect());
    this.loops = this.sessions.map((_, i) => this.loop(i));
  }

  private async connect(): Promise<Client> {
    const client = new Client({ name: "chaos-load", version: "1.0.0" });
    client.onerror = () => {}; // the stream for server messages fails while a process is down: it is retried
    await client.connect(
      new StreamableHTTPClientTransport(new URL("/api/mcp", this.options.url), {
        requestInit: { headers: { authorization: `Bearer ${this.options.token}` } },
        reconnectionOptions: {
          initialReconnectionDelay: 200,
          maxReconnectionDelay: 2_000,
          reconnectionDelayGrowFactor: 2,
          maxRetries: 1_000,
        },
      }),
      { timeout: this.options.deadlineMs },
    );
    return client;
  }

  private async loop(index: number) {
    let n = index;
    while (this.running) {
      const target = this.options.targets[n++ % this.options.targets.length]!;
      let client = this.sessions[index];
      if (!client) {
        const startedAt = Date.now();
        this.inFlight.set(index, startedAt);
        try {
          client = await withDeadline(this.connect(), this.options.deadlineMs);
          this.sessions[index] = client;
          this.reconnects++;
        } catch (error) {
          // Opening the session is a call the client makes too: it counts, against the first target.
          this.record(target.tool, startedAt, error);
          this.inFlight.delete(index);
          await sleep(200);
          continue;
        }
      }
      const startedAt = Date.now();
      this.inFlight.set(index, startedAt);
      try {
        const result = await withDeadline(
          client.callTool({ name: target.tool, arguments: target.arguments }, undefined, {
            timeout: this.options.deadlineMs,
          }),
          this.options.deadlineMs + 1_000,
        );
        if (result.isError) {
          const text = (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? "").join(" ");
          this.records.push({ target: target.tool, startedAt, endedAt: Date.now(), outcome: "failed", message: text });
        } else {
          this.records.push({ target: target.tool, startedAt, endedAt: Date.now(), outcome: "ok" });
        }
      } catch (error) {
        const outcome = this.record(target.tool, startedAt, error);
        // A lost session is opened again, as a client following the specification does; so is one that hung.
        if (outcome === "hung" || sessionGone(describe(error))) {
          this.sessions[index] = undefined;
          void client.close().catch(() => {});
        }
        await sleep(100);
      } finally {
        this.inFlight.delete(index);
      }
      if (this.options.pauseMs) await sleep(this.options.pauseMs);
    }
  }

  private record(target: string, startedAt: number, error: unknown): Outcome {
    const message = describe(error);
    const endedAt = Date.now();
    const outcome: Outcome =
      error instanceof DeadlineError || /Request timed out|-32001\] Request timed out/i.test(message)
        ? "hung"
        : connectionLost(message)
          ? "cut"
          : "failed";
    this.records.push({ target, startedAt, endedAt, outcome, message });
    return outcome;
  }

  /** Calls that started in [from, to). */
  between(from: number, to = Number.POSITIVE_INFINITY): CallRecord[] {
    return this.records.filter((r) => r.startedAt >= from && r.startedAt < to);
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    await Promise.all(this.sessions.map((c) => c?.close().catch(() => {})));
  }
}

class DeadlineError extends Error {}

/** The promise, or a DeadlineError once `ms` passed (the work is abandoned, not cancelled). */
function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeadlineError(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
