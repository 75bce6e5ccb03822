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
import { discover } from "@switchboard/core/discovery";
import { ConnectionPool, egressFetch } from "@switchboard/core/upstream";
import { createDb } from "@switchboard/db/client";
import { replaceCatalogue } from "@switchboard/db/queries/catalogue";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { createTestDatabase, makeAccessToken, makeTeam, makeUser } from "@switchboard/db/testing";
import { createLogger } from "@switchboard/runtime/logger";
import { createRedis } from "@switchboard/runtime/redis-client";
import { freePort } from "@switchboard/testing/net";
import { alternating, concurrent, connect, CpuMeter, startUpstreamProcess } from "./proxy";
import { latencyStats, ms, ratio, table } from "./stats";

const root = path.resolve(import.meta.dirname, "../..");
const N_LATENCY = Number(process.env.BENCH_LATENCY_CALLS ?? 2000);
const N_THROUGHPUT = Number(process.env.BENCH_THROUGHPUT_CALLS ?? 6000);
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
  const database = await createTestDatabase("bench-metrics");
  const db = createDb(database.url);
  const upstream = await startUpstreamProcess();
  const prefix = `sbbench-${randomBytes(4).toString("hex")}`;
  const encryptionKey = randomBytes(32).toString("base64");
  process.env.SWITCHBOARD_ENCRYPTION_KEY = encryptionKey;
  const routes: ChildProcess[] = [];
  const clients: Client[] = [];
  try {
    const owner = await makeUser(db);
    const team = await makeTeam(db, owner);
    const template = await seedTemplate(db, {
      teamId: team.id,
      slug: "echo",
      name: "Echo",
      transport: "streamable_http",
      url: upstream.url,
    });
    const instance = (await seedInstallation(db, { template })).instances[0]!;
    const pool = new ConnectionPool({
      resolve: async () => ({
        launch: { transport: "streamable_http", url: upstream.url, headers: {} },
        fetch: egressFetch({ allowPrivate: false, allow: [{ host: "127.0.0.1", port: "*" }] }),
      }),
    });
    await replaceCatalogue(db, instance.id, await discover(await pool.get(instance.id), { slug: "echo" }));
    await pool.closeAll();
    await db.instance.update({ where: { id: instance.id }, data: { status: "online" } });
    // One token per route: 33 sessions each stay within a token's session limit (50).
    const tokens = {
      off: (await makeAccessToken(db, { userId: owner.id, teamId: team.id, name: "bench-off" })).token,
      on: (await makeAccessToken(db, { userId: owner.id, teamId: team.id, name: "bench-on" })).token,
    };

    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: "production",
      DATABASE_URL: database.url,
      REDIS_PREFIX: prefix,
      SWITCHBOARD_ENCRYPTION_KEY: encryptionKey,
      BETTER_AUTH_SECRET: randomBytes(32).toString("base64"),
      EGRESS_ALLOW: `127.0.0.1:${new URL(upstream.url).port}`,
      LOG_LEVEL: "warn",
    };
    delete env.METRICS_TOKEN;
    delete env.METRICS_PORT;
    const off = await startRoute(env);
    const on = await startRoute({ ...env, METRICS_TOKEN: TOKEN });
    routes.push(off.child, on.child);

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
        [
          "p50, 1 client",
          ms(o1.stats.p50),
          ms(m1.stats.p50),
          ratio(m1.stats.p50, o1.stats.p50),
          ms(m1.stats.p50 - o1.stats.p50),
        ],
        [
          "p99, 1 client",
          ms(o1.stats.p99),
          ms(m1.stats.p99),
          ratio(m1.stats.p99, o1.stats.p99),
          ms(m1.stats.p99 - o1.stats.p99),
        ],
        [
          "p50, 32 clients",
          ms(o32.stats.p50),
          ms(m32.stats.p50),
          ratio(m32.stats.p50, o32.stats.p50),
          ms(m32.stats.p50 - o32.stats.p50),
        ],
        [
          "calls/s, 32 clients",
          o32.perSecond.toFixed(0),
          m32.perSecond.toFixed(0),
          ratio(m32.perSecond, o32.perSecond),
          "",
        ],
        [
          "route CPU per call, 32 clients",
          ms(o32.cpuPerCall),
          ms(m32.cpuPerCall),
          ratio(m32.cpuPerCall, o32.cpuPerCall),
          ms(m32.cpuPerCall - o32.cpuPerCall),
        ],
      ]),
    );
    const sorted = [...scrapes].sort((a, b) => a - b);
    console.log(
      `scrapes during the run: ${scrapes.length}, median ${ms(sorted[Math.floor(sorted.length / 2)] ?? NaN)}; last scrape ${last.bytes} bytes, ${counted ?? "?"} successful calls counted by the metrics-on route`,
    );
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    for (const r of routes) r.kill("SIGTERM");
    await upstream.close();
    await db.$disconnect();
    await database.drop().catch(() => undefined);
    const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", {
      name: "bench",
      logger: createLogger("bench", "warn"),
    });
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  }
}
