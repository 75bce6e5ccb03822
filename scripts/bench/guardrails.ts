/**
 * Guardrails benchmark: the same tools/call of an echo tool through one route process in the same run, for an
 * installation with every guardrail off (the gate reads its cached settings and scans nothing) and one with every
 * category on (credentials flagged, card numbers, IBANs, emails and phones redacted), so each call's arguments
 * and result are scanned by secretlint's recommended rules and the personal-data detectors (nothing matches: the
 * common case). What guardrails cost on the hot path, as latency with one client and as the route's CPU per call
 * with 32.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { discover } from "@switchboard/core/discovery";
import { ConnectionPool, egressFetch } from "@switchboard/core/upstream";
import { createDb } from "@switchboard/db/client";
import { replaceCatalogue } from "@switchboard/db/queries/catalogue";
import { setInstallationGuardrails } from "@switchboard/db/queries/governance";
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
const N_LATENCY = Number(process.env.BENCH_LATENCY_CALLS ?? 1000);
const N_THROUGHPUT = Number(process.env.BENCH_THROUGHPUT_CALLS ?? 3000);

export async function run(): Promise<void> {
  const database = await createTestDatabase("bench-guardrails");
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
    /** A team with the echo server installed and discovered, and a token of its owner. */
    const echoTeam = async () => {
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
      return { team, installationId: installation.id, token };
    };
    const off = await echoTeam();
    const on = await echoTeam();
    await pool.closeAll();
    await setInstallationGuardrails(db, off.installationId, {
      credentials: "off",
      card: "off",
      iban: "off",
      email: "off",
      phone: "off",
    });
    await setInstallationGuardrails(db, on.installationId, {
      credentials: "flag",
      card: "redact",
      iban: "redact",
      email: "redact",
      phone: "redact",
    });

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
      `\n== guardrails: tools/call via /api/mcp for an installation with every guardrail off and one with all on (${N_LATENCY} alternating calls, ${N_THROUGHPUT} with 32 clients)`,
    );
    const off1 = await connect(url, off.token);
    const on1 = await connect(url, on.token);
    clients.push(off1, on1);
    const [a1, b1] = await alternating(
      N_LATENCY,
      () => echo(off1, 0, "echo-echo"),
      () => echo(on1, 0, "echo-echo"),
    );
    const modernOff = await connectModern(url, off.token);
    const modernOn = await connectModern(url, on.token);
    clients.push(modernOff, modernOn);
    const [m1, n1] = await alternating(
      N_LATENCY,
      () => echo(modernOff, 0, "echo-echo"),
      () => echo(modernOn, 0, "echo-echo"),
    );

    const off32 = await Promise.all(Array.from({ length: 32 }, () => connect(url, off.token)));
    const on32 = await Promise.all(Array.from({ length: 32 }, () => connect(url, on.token)));
    clients.push(...off32, ...on32);
    const cpu = new CpuMeter({ route: route.pid! });
    const a32 = await cpu.measure(() => concurrent(off32, N_THROUGHPUT, (c, i) => echo(c, i, "echo-echo")));
    const b32 = await cpu.measure(() => concurrent(on32, N_THROUGHPUT, (c, i) => echo(c, i, "echo-echo")));
    const perCall = (used: Record<string, number>) => used.route! / N_THROUGHPUT;

    console.log(
      table([
        ["", "guardrails off", "guardrails on", "on/off", "added"],
        [
          "p50, 1 client (2025-11-25)",
          ms(a1.stats.p50),
          ms(b1.stats.p50),
          ratio(b1.stats.p50, a1.stats.p50),
          ms(b1.stats.p50 - a1.stats.p50),
        ],
        [
          "p99, 1 client (2025-11-25)",
          ms(a1.stats.p99),
          ms(b1.stats.p99),
          ratio(b1.stats.p99, a1.stats.p99),
          ms(b1.stats.p99 - a1.stats.p99),
        ],
        [
          "p50, 1 client (2026-07-28)",
          ms(m1.stats.p50),
          ms(n1.stats.p50),
          ratio(n1.stats.p50, m1.stats.p50),
          ms(n1.stats.p50 - m1.stats.p50),
        ],
        [
          "calls/s, 32 clients",
          a32.perSecond.toFixed(0),
          b32.perSecond.toFixed(0),
          ratio(b32.perSecond, a32.perSecond),
          "",
        ],
        [
          "route CPU per call, 32 clients",
          ms(perCall(a32.cpu)),
          ms(perCall(b32.cpu)),
          ratio(perCall(b32.cpu), perCall(a32.cpu)),
          ms(perCall(b32.cpu) - perCall(a32.cpu)),
        ],
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
