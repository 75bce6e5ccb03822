/**
 * Metrics benchmark: the hot path (tools/call of an echo tool through the MCP route) with Prometheus metrics on and
 * off, in the same run. Two route processes (`apps/gateway/test/support/route-process.ts`, the route alone) serve
 * the same member from the same database and Redis; one has METRICS_TOKEN set (metrics recorded, `/metrics` behind
 * the token), the other nothing (no recorder: what a deployment without metrics runs). Calls alternate between
 * them, so both see the same machine; a scrape runs every second during the metrics-on part, as Prometheus would.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { freePort } from "@switchboard/testing/net";
import { alternating, concurrent, connect, CpuMeter } from "./clients";
import { callCounts, openStage, root } from "./stage";
import { compareRow, latencyStats, ms, perSecond, table } from "./stats";

const TOKEN = randomBytes(24).toString("hex");

async function startRoute(env: NodeJS.ProcessEnv): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ["--import", "tsx", "test/support/route-process.ts"], {
    cwd: path.join(root, "apps/gateway"),
    // The route checks Host against APP_URL: each process is its own.
    env: { ...env, ROUTE_PORT: String(port), APP_URL: `http://127.0.0.1:${port}` },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("route listening") && resolve());
    child.once("exit", (code) => reject(new Error(`the route exited (${code})`)));
  });
  return { url: `http://127.0.0.1:${port}`, child };
}

export async function run(): Promise<void> {
  const { latency: N_LATENCY, throughput: N_THROUGHPUT } = callCounts();
  const stage = await openStage("metrics");
  const clients: Client[] = [];
  try {
    const team = await stage.echoTeam();
    // One token per route: 33 sessions each stay within a token's session limit (50).
    const tokens = { off: team.token, on: await stage.newToken(team) };

    const env: NodeJS.ProcessEnv = { ...stage.env };
    delete env.METRICS_TOKEN;
    delete env.METRICS_PORT;
    const off = await startRoute(env);
    stage.onClose(() => off.child.kill("SIGTERM"));
    const on = await startRoute({ ...env, METRICS_TOKEN: TOKEN });
    stage.onClose(() => on.child.kill("SIGTERM"));
    stage.onClose(() => Promise.all(clients.map((c) => c.close().catch(() => undefined))));

    const scrape = async () => {
      const t = performance.now();
      const res = await fetch(`${on.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      const text = await res.text();
      if (res.status !== 200) throw new Error(`scrape: ${res.status}`);
      return { ms: performance.now() - t, bytes: text.length, text };
    };
    // Prometheus's part: a scrape every second while calls run.
    const scrapes: number[] = [];
    const scraper = setInterval(
      () =>
        void scrape().then(
          (s) => scrapes.push(s.ms),
          (err: unknown) =>
            console.error("a scrape failed:", err, "route exit:", on.child.exitCode, on.child.signalCode),
        ),
      1000,
    );

    console.log(
      `\n== metrics benchmark (tools/call through the route with metrics on and off; ${N_LATENCY} alternating calls, ${N_THROUGHPUT} calls with 32 clients each, twice)`,
    );
    const offUrl = `${off.url}/api/mcp`;
    const onUrl = `${on.url}/api/mcp`;
    const off1 = await connect(offUrl, tokens.off);
    const on1 = await connect(onUrl, tokens.on);
    clients.push(off1, on1);
    const call = (c: Client) => c.callTool({ name: "echo-echo", arguments: { text: "hello" } });
    const [o1, m1] = await alternating(
      N_LATENCY,
      () => call(off1),
      () => call(on1),
    );

    const off32 = await Promise.all(Array.from({ length: 32 }, () => connect(offUrl, tokens.off)));
    const on32 = await Promise.all(Array.from({ length: 32 }, () => connect(onUrl, tokens.on)));
    clients.push(...off32, ...on32);
    const cpu = new CpuMeter({ off: off.child.pid!, on: on.child.pid! });
    // off, on, on, off: drift of the shared machine over the run weighs on both alike.
    const rounds: Array<{ which: "off" | "on"; perSecond: number; samples: number[]; cpuMs: number }> = [];
    for (const which of ["off", "on", "on", "off"] as const) {
      const samples: number[] = [];
      const measured = await cpu.measure(() =>
        concurrent(which === "off" ? off32 : on32, N_THROUGHPUT / 2, async (c) => {
          const t = performance.now();
          await call(c);
          samples.push(performance.now() - t);
        }),
      );
      rounds.push({ which, perSecond: measured.perSecond, samples, cpuMs: measured.cpu[which]! });
    }
    clearInterval(scraper);
    const of = (which: "off" | "on") => {
      const r = rounds.filter((x) => x.which === which);
      return {
        stats: latencyStats(r.flatMap((x) => x.samples)),
        perSecond: r.reduce((s, x) => s + x.perSecond, 0) / r.length,
        cpuPerCall: r.reduce((s, x) => s + x.cpuMs, 0) / N_THROUGHPUT,
      };
    };
    const o32 = of("off");
    const m32 = of("on");
    const last = await scrape();
    const counted = /switchboard_proxy_requests_total\{[^}]*outcome="success"[^}]*\} (\d+)/.exec(last.text)?.[1];

    console.log(
      table([
        ["", "metrics off", "metrics on", "on/off", "added"],
        compareRow("p50, 1 client", o1.stats.p50, m1.stats.p50, ms),
        compareRow("p99, 1 client", o1.stats.p99, m1.stats.p99, ms),
        compareRow("p50, 32 clients", o32.stats.p50, m32.stats.p50, ms),
        compareRow("calls/s, 32 clients", o32.perSecond, m32.perSecond, perSecond, false),
        compareRow("route CPU per call, 32 clients", o32.cpuPerCall, m32.cpuPerCall, ms),
      ]),
    );
    const sorted = [...scrapes].sort((a, b) => a - b);
    console.log(
      `scrapes during the run: ${scrapes.length}, median ${ms(sorted[Math.floor(sorted.length / 2)] ?? NaN)}; last scrape ${last.bytes} bytes, ${counted ?? "?"} successful calls counted by the metrics-on route`,
    );
  } finally {
    await stage.close();
  }
}
