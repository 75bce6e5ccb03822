/**
 * Sessions benchmark: what live 2025-11-25 sessions cost the gateway in memory. The MCP route runs alone in a
 * process of its own (`route-process.ts`); BENCH_SESSIONS sessions (5,000 by default, MCP_MAX_LIVE_SESSIONS'
 * default: every one of them stays in memory) are opened by BENCH_SESSION_MEMBERS members of their own teams, each
 * with the echo server, and each session lists its tools and calls one, as a client does after connecting. The
 * process's RSS is read from /proc before and after, beside the same process holding one session per member.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { openStage, type EchoTeam } from "./stage";
import { table } from "./stats";

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 5_000);
const MEMBERS = Number(process.env.BENCH_SESSION_MEMBERS ?? 20);
const CONCURRENCY = 32;
const PROTOCOL = "2025-11-25";

/** Resident set size of a process, in bytes (VmRSS of /proc/<pid>/status). */
function rss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("VmRSS:"));
  return Number(line?.match(/(\d+)/)?.[1] ?? 0) * 1024;
}

/** The route process's V8 heap in use after a full collection (`/bench/memory` of route-process.ts). */
async function heapUsed(routeUrl: string, snapshot?: string): Promise<number> {
  // BENCH_HEAP_SNAPSHOT=<dir> writes the route's heap at each step there, to see what a session holds.
  const dir = process.env.BENCH_HEAP_SNAPSHOT;
  const query = dir && snapshot ? `?snapshot=${encodeURIComponent(path.join(dir, `${snapshot}.heapsnapshot`))}` : "";
  const res = await fetch(new URL(`/bench/memory${query}`, routeUrl));
  return ((await res.json()) as { heapUsed: number }).heapUsed;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** A raw Streamable HTTP client: the bench measures the route, so its own clients stay as light as a POST. */
export class RawSession {
  private id?: string;
  private next = 1;
  constructor(
    private readonly url: string,
    private readonly token: string,
  ) {}

  private async post(message: Record<string, unknown>): Promise<Response> {
    const res = await fetch(this.url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${this.token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(this.id ? { "mcp-session-id": this.id, "mcp-protocol-version": PROTOCOL } : {}),
      },
      body: JSON.stringify({ jsonrpc: "2.0", ...message }),
    });
    // The whole answer is read (JSON or a short SSE stream): a request is done when its response is.
    const text = await res.text();
    if (!res.ok) throw new Error(`${String(message.method)} answered ${res.status}: ${text.slice(0, 200)}`);
    if ("id" in message && !text.includes('"result"'))
      throw new Error(`${String(message.method)} answered no result: ${text.slice(0, 200)}`);
    return res;
  }

  request(method: string, params: Record<string, unknown>): Promise<Response> {
    return this.post({ id: this.next++, method, params });
  }

  /** initialize, initialized, tools/list and (unless `call: false`) one call, as a client does after connecting. */
  async open({ call = true } = {}): Promise<void> {
    const res = await this.request("initialize", {
      protocolVersion: PROTOCOL,
      capabilities: {},
      clientInfo: { name: "bench-sessions", version: "1.0.0" },
    });
    this.id = res.headers.get("mcp-session-id") ?? undefined;
    if (!this.id) throw new Error("initialize answered no session id");
    await this.post({ method: "notifications/initialized" });
    await this.request("tools/list", {});
    if (call) await this.call();
  }

  call(): Promise<Response> {
    return this.request("tools/call", { name: "echo-echo", arguments: { text: "hello" } });
  }
}

async function inParallel<T>(items: T[], op: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) await op(items[next++]!);
    }),
  );
}

export async function run(): Promise<void> {
  const stage = await openStage("sessions");
  try {
    const perMember = Math.ceil(SESSIONS / MEMBERS);
    const teams: EchoTeam[] = [];
    for (let m = 0; m < MEMBERS; m++) teams.push(await stage.echoTeam());
    // The session limits raised to hold them all (per token and member, and how fast they may be opened).
    const route = await stage.startRoute({
      MCP_MAX_SESSIONS_PER_TOKEN: String(perMember),
      MCP_MAX_SESSIONS_PER_MEMBER: String(perMember),
      MCP_SESSIONS_PER_MINUTE_PER_TOKEN: String(perMember * 2),
      MCP_SESSIONS_PER_MINUTE_PER_MEMBER: String(perMember * 2),
      MCP_MAX_LIVE_SESSIONS: String(SESSIONS),
    });

    console.log(
      `\n== sessions benchmark (${SESSIONS} live ${PROTOCOL} sessions of ${MEMBERS} members, MCP route alone)`,
    );
    // One session per member first: the code paths warm, the member's catalogue cached and upstream connected.
    const first = teams.map((t) => new RawSession(route.url, t.token));
    await inParallel(first, (s) => s.open());
    for (let i = 0; i < 200; i++) await first[i % first.length]!.call();
    const idle = rss(route.pid);
    const idleHeap = await heapUsed(route.url, "idle");

    const sessions = Array.from(
      { length: SESSIONS - MEMBERS },
      (_, i) => new RawSession(route.url, teams[i % MEMBERS]!.token),
    );
    const started = performance.now();
    await inParallel(sessions, (s) => s.open());
    const opened = performance.now() - started;
    const held = rss(route.pid);
    const heldHeap = await heapUsed(route.url, "held");
    // Every session still answers from memory (none was evicted to make room for another).
    await inParallel([...first, ...sessions], (s) => s.call());
    const after = rss(route.pid);
    const afterHeap = await heapUsed(route.url);
    const per = (bytes: number) => `${(bytes / (SESSIONS - MEMBERS) / 1024).toFixed(1)} KB`;

    console.log(
      table([
        ["", "RSS", "per session", "V8 heap used", "per session"],
        [`${MEMBERS} sessions (one per member)`, mb(idle), "-", mb(idleHeap), "-"],
        [`${SESSIONS} sessions`, mb(held), per(held - idle), mb(heldHeap), per(heldHeap - idleHeap)],
        [
          `${SESSIONS} sessions, after a call in each`,
          mb(after),
          per(after - idle),
          mb(afterHeap),
          per(afterHeap - idleHeap),
        ],
      ]),
    );
    console.log(
      `opening a session (initialize, initialized, tools/list, tools/call; ${CONCURRENCY} at a time): ${((SESSIONS - MEMBERS) / (opened / 1000)).toFixed(0)} sessions/s`,
    );
  } finally {
    await stage.close();
  }
}
