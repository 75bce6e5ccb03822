/**
 * The on/off harness the feature benchmarks share (quotas, policies, guardrails, tracing): two teams with the same
 * echo server installed and discovered, and the same tools/call for each, through one route process in the same
 * run, or through two when the feature is a setting of the process (`routeEnv`). One team (or route) is switched
 * on. Latency is measured with one client per side, calls alternating so drift in the machine falls on both;
 * throughput and the route's CPU per call with 32 clients per side. Prints the table of off, on, their ratio and
 * what the feature adds.
 */
import type { Db } from "@switchboard/db/client";
import { alternating, concurrent, connect, connect2026, CpuMeter, echo } from "./clients";
import { openStage, callCounts, type EchoTeam } from "./stage";
import { compareRow, ms, perSecond, table } from "./stats";

export type { EchoTeam } from "./stage";

export interface OnOffBench {
  /** The feature's name: the database's, the table's columns ("<name> off", "<name> on"). */
  name: string;
  /** The heading's description of the two sides, given the call counts. */
  describe(latencyCalls: number, throughputCalls: number): string;
  /** Switches the feature on for `on` (and, where "off" is a setting too, off for `off`). */
  turnOn?(db: Db, teams: { off: EchoTeam; on: EchoTeam }): Promise<void>;
  /** A feature of the route process: each side gets a route of its own, started with this environment. */
  routeEnv?(side: "off" | "on"): NodeJS.ProcessEnv;
  /** Defaults: BENCH_LATENCY_CALLS or 2000, BENCH_THROUGHPUT_CALLS or 6000. */
  latencyCalls?: number;
  throughputCalls?: number;
}

export async function runOnOff(bench: OnOffBench): Promise<void> {
  const n = callCounts({ latency: bench.latencyCalls, throughput: bench.throughputCalls });
  const stage = await openStage(bench.name);
  try {
    // 33 sessions each below, within MCP_MAX_SESSIONS_PER_TOKEN (50).
    const off = await stage.echoTeam();
    const on = await stage.echoTeam();
    await bench.turnOn?.(stage.db, { off, on });
    const offRoute = await stage.startRoute(bench.routeEnv?.("off"));
    const onRoute = bench.routeEnv ? await stage.startRoute(bench.routeEnv("on")) : offRoute;

    console.log(
      `\n== ${bench.name}: tools/call via /api/mcp for ${bench.describe(n.latency, n.throughput)} (${n.latency} alternating calls, ${n.throughput} with 32 clients)`,
    );
    const closing = <C extends { close(): Promise<void> }>(client: C) => {
      stage.onClose(() => client.close());
      return client;
    };
    const off1 = closing(await connect(offRoute.url, off.token));
    const on1 = closing(await connect(onRoute.url, on.token));
    const [a1, b1] = await alternating(
      n.latency,
      () => echo(off1, 0, "echo-echo"),
      () => echo(on1, 0, "echo-echo"),
    );
    const off2026 = closing(await connect2026(offRoute.url, off.token));
    const on2026 = closing(await connect2026(onRoute.url, on.token));
    const [m1, n1] = await alternating(
      n.latency,
      () => echo(off2026, 0, "echo-echo"),
      () => echo(on2026, 0, "echo-echo"),
    );

    const many = async (url: string, token: string) =>
      Promise.all(Array.from({ length: 32 }, async () => closing(await connect(url, token))));
    const off32 = await many(offRoute.url, off.token);
    const on32 = await many(onRoute.url, on.token);
    const cpu = new CpuMeter({ off: offRoute.pid, on: onRoute.pid });
    const a32 = await cpu.measure(() => concurrent(off32, n.throughput, (c, i) => echo(c, i, "echo-echo")));
    const b32 = await cpu.measure(() => concurrent(on32, n.throughput, (c, i) => echo(c, i, "echo-echo")));

    console.log(
      table([
        ["", `${bench.name} off`, `${bench.name} on`, "on/off", "added"],
        compareRow("p50, 1 client (2025-11-25)", a1.stats.p50, b1.stats.p50, ms),
        compareRow("p99, 1 client (2025-11-25)", a1.stats.p99, b1.stats.p99, ms),
        compareRow("p50, 1 client (2026-07-28)", m1.stats.p50, n1.stats.p50, ms),
        compareRow("calls/s, 32 clients", a32.perSecond, b32.perSecond, perSecond, false),
        compareRow("route CPU per call, 32 clients", a32.cpu.off! / n.throughput, b32.cpu.on! / n.throughput, ms),
      ]),
    );
  } finally {
    await stage.close();
  }
}
