/**
 * The on/off harness the feature benchmarks share (quotas, policies, guardrails): two teams with the same echo
 * server installed and discovered, one route process in the same run, and the same tools/call for each; one team
 * is switched on by `turnOn`. Latency is measured with one client per team, calls alternating so drift in the
 * machine falls on both; throughput and the route's CPU per call with 32 clients per team. Prints the table of
 * off, on, their ratio and what the feature adds.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { discover } from "@switchboard/core/discovery";
import { ConnectionPool, egressFetch } from "@switchboard/core/upstream";
import { createDb } from "@switchboard/db/client";
import { replaceCatalogue } from "@switchboard/db/queries/catalogue";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { createTestDatabase, makeAccessToken, makeTeam, makeUser } from "@switchboard/db/testing";
import { createLogger } from "@switchboard/runtime/logger";
import { createRedis } from "@switchboard/runtime/redis-client";
import { freePort } from "@switchboard/testing/net";
import {
  alternating,
  concurrent,
  connect,
  connectModern,
  CpuMeter,
  echo,
  startUpstreamProcess,
  waitForHttp,
} from "./proxy";
import { ms, ratio, table } from "./stats";

const root = path.resolve(import.meta.dirname, "../..");

/** A team with the echo server installed and discovered, and a token of its owner. */
export interface EchoTeam {
  teamId: string;
  installationId: string;
  token: string;
}

export interface OnOffBench {
  /** The feature's name: the database's, the table's columns ("<name> off", "<name> on"). */
  name: string;
  /** The heading's description of the two teams, given the call counts. */
  describe(latencyCalls: number, throughputCalls: number): string;
  /** Switches the feature on for `on` (and, where "off" is a setting too, off for `off`). */
  turnOn(db: ReturnType<typeof createDb>, teams: { off: EchoTeam; on: EchoTeam }): Promise<void>;
  /** Defaults: BENCH_LATENCY_CALLS or 2000, BENCH_THROUGHPUT_CALLS or 6000. */
  latencyCalls?: number;
  throughputCalls?: number;
}

export async function runOnOff(bench: OnOffBench): Promise<void> {
  const nLatency = Number(process.env.BENCH_LATENCY_CALLS ?? bench.latencyCalls ?? 2000);
  const nThroughput = Number(process.env.BENCH_THROUGHPUT_CALLS ?? bench.throughputCalls ?? 6000);
  const database = await createTestDatabase(`bench-${bench.name}`);
  const db = createDb(database.url);
  const upstream = await startUpstreamProcess();
  const prefix = `sbbench-${randomBytes(4).toString("hex")}`;
  const encryptionKey = randomBytes(32).toString("base64");
  process.env.SWITCHBOARD_ENCRYPTION_KEY = encryptionKey;
  let route: ChildProcess | undefined;
  const clients: Array<{ close(): Promise<void> }> = [];
  try {
    const pool = new ConnectionPool({
      resolve: async () => ({
        launch: { transport: "streamable_http", url: upstream.url, headers: {} },
        fetch: egressFetch({ allowPrivate: false, allow: [{ host: "127.0.0.1", port: "*" }] }),
      }),
    });
    const echoTeam = async (): Promise<EchoTeam> => {
      const owner = await makeUser(db);
      const team = await makeTeam(db, owner);
      const template = await seedTemplate(db, {
        teamId: team.id,
        slug: "echo",
        name: "Echo",
        transport: "streamable_http",
        url: upstream.url,
      });
      const installation = await seedInstallation(db, { template });
      const instance = installation.instances[0]!;
      await replaceCatalogue(db, instance.id, await discover(await pool.get(instance.id), { slug: "echo" }));
      await db.instance.update({ where: { id: instance.id }, data: { status: "online" } });
      // 33 sessions each, within MCP_MAX_SESSIONS_PER_TOKEN (50).
      const token = (await makeAccessToken(db, { userId: owner.id, teamId: team.id, name: "bench" })).token;
      return { teamId: team.id, installationId: installation.id, token };
    };
    const off = await echoTeam();
    const on = await echoTeam();
    await pool.closeAll();
    await bench.turnOn(db, { off, on });

    const port = await freePort();
    route = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "route-process.ts")], {
      cwd: root,
      stdio: ["ignore", "ignore", "inherit"],
      env: {
        ...process.env,
        NODE_ENV: "production",
        ROUTE_PORT: String(port),
        DATABASE_URL: database.url,
        APP_URL: `http://127.0.0.1:${port}`,
        REDIS_PREFIX: prefix,
        BETTER_AUTH_SECRET: randomBytes(32).toString("base64"),
        SWITCHBOARD_ENCRYPTION_KEY: encryptionKey,
        EGRESS_ALLOW: `127.0.0.1:${new URL(upstream.url).port}`,
        LOG_LEVEL: "warn",
      },
    });
    const url = `http://127.0.0.1:${port}/api/mcp`;
    await waitForHttp(url, route);

    console.log(
      `\n== ${bench.name}: tools/call via /api/mcp for ${bench.describe(nLatency, nThroughput)} (${nLatency} alternating calls, ${nThroughput} with 32 clients)`,
    );
    const off1 = await connect(url, off.token);
    const on1 = await connect(url, on.token);
    clients.push(off1, on1);
    const [a1, b1] = await alternating(
      nLatency,
      () => echo(off1, 0, "echo-echo"),
      () => echo(on1, 0, "echo-echo"),
    );
    const modernOff = await connectModern(url, off.token);
    const modernOn = await connectModern(url, on.token);
    clients.push(modernOff, modernOn);
    const [m1, n1] = await alternating(
      nLatency,
      () => echo(modernOff, 0, "echo-echo"),
      () => echo(modernOn, 0, "echo-echo"),
    );

    const off32 = await Promise.all(Array.from({ length: 32 }, () => connect(url, off.token)));
    const on32 = await Promise.all(Array.from({ length: 32 }, () => connect(url, on.token)));
    clients.push(...off32, ...on32);
    const cpu = new CpuMeter({ route: route.pid! });
    const a32 = await cpu.measure(() => concurrent(off32, nThroughput, (c, i) => echo(c, i, "echo-echo")));
    const b32 = await cpu.measure(() => concurrent(on32, nThroughput, (c, i) => echo(c, i, "echo-echo")));
    const perCall = (used: Record<string, number>) => used.route! / nThroughput;
    const row = (label: string, off: number, on: number, show: (n: number) => string, added = true) => [
      label,
      show(off),
      show(on),
      ratio(on, off),
      added ? show(on - off) : "",
    ];

    console.log(
      table([
        ["", `${bench.name} off`, `${bench.name} on`, "on/off", "added"],
        row("p50, 1 client (2025-11-25)", a1.stats.p50, b1.stats.p50, ms),
        row("p99, 1 client (2025-11-25)", a1.stats.p99, b1.stats.p99, ms),
        row("p50, 1 client (2026-07-28)", m1.stats.p50, n1.stats.p50, ms),
        row("calls/s, 32 clients", a32.perSecond, b32.perSecond, (n) => n.toFixed(0), false),
        row("route CPU per call, 32 clients", perCall(a32.cpu), perCall(b32.cpu), ms),
      ]),
    );
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    route?.kill("SIGTERM");
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
