/**
 * Proxy benchmark: tools/call straight to a real Streamable HTTP upstream and through the hosted route
 * (`/api/mcp` on the production build, with auth, session, catalogue lookup, retry wrapper and request log),
 * in the same run on the same machine. Also tools/list for a member with 20 servers x 50 tools.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { freePort } from "@switchboard/testing/net";
import os from "node:os";
import path from "node:path";
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { discover } from "@switchboard/core/discovery";
import { ConnectionPool, egressFetch } from "@switchboard/core/upstream";
import { createDb } from "@switchboard/db/client";
import { replaceCatalogue } from "@switchboard/db/queries/catalogue";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { createTestDatabase } from "@switchboard/db/testing";
import { makeAccessToken, makeTeam, makeUser } from "@switchboard/db/testing";
import { createLogger } from "@switchboard/runtime/logger";
import { createRedis } from "@switchboard/runtime/redis-client";
import { latencyStats, ms, ratio, table, type LatencyStats } from "./stats";

/** Starts the echo upstream in a child process and answers its URL. */
export async function startUpstreamProcess(): Promise<{ url: string; pid: number; close(): Promise<void> }> {
  // node with tsx's loader rather than the tsx CLI, so that the pid is the server's own (CPU is read from /proc).
  const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, "upstream-process.ts")], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d) => {
      out += d;
      if (out.includes("\n")) resolve(out.trim());
    });
    child.once("exit", (code) => reject(new Error(`the upstream exited (${code})`)));
  });
  return {
    url,
    pid: child.pid!,
    close: () =>
      new Promise<void>((resolve) =>
        child.exitCode !== null ? resolve() : (child.once("exit", () => resolve()), child.kill("SIGTERM")),
      ),
  };
}

const root = path.resolve(import.meta.dirname, "../..");
const N_LATENCY = Number(process.env.BENCH_LATENCY_CALLS ?? 2000);
const N_THROUGHPUT = Number(process.env.BENCH_THROUGHPUT_CALLS ?? 6000);
const N_LIST = Number(process.env.BENCH_LIST_CALLS ?? 300);

/** A dependent signal per request, as core's upstream transport does: the SDK hands every request one
 * long-lived signal, on which undici would otherwise pile up listeners in this (client) process. */
const perRequestSignal: typeof fetch = (input, init) =>
  fetch(input, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init);

/** An SDK v2 client pinned to 2026-07-28: every request stateless, the route builds the member's proxy per request. */
export async function connectModern(url: string, token: string): Promise<ClientV2> {
  const client = new ClientV2({ name: "bench-2026", version: "1.0.0" }, { versionNegotiation: { mode: { pin: REV } } });
  await client.connect(
    new TransportV2(new URL(url), {
      fetch: perRequestSignal,
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  if (client.getNegotiatedProtocolVersion() !== REV) throw new Error(`the route did not speak ${REV}`);
  return client;
}
const REV = "2026-07-28";

export async function connect(url: string, token?: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: perRequestSignal,
    ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
  });
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

async function sequential(
  client: Client,
  n: number,
  op: (c: Client, i: number) => Promise<unknown>,
): Promise<{ stats: LatencyStats; perSecond: number }> {
  for (let i = 0; i < Math.min(200, n / 10); i++) await op(client, i); // warm-up
  const samples: number[] = [];
  const started = performance.now();
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await op(client, i);
    samples.push(performance.now() - t);
  }
  return { stats: latencyStats(samples), perSecond: (n / (performance.now() - started)) * 1000 };
}

/**
 * One client each, direct and proxied calls taking turns (the order flips every round), so both see the same
 * machine: on a shared VM, two runs one after the other can differ more than the proxy adds.
 */
export async function alternating(
  n: number,
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
): Promise<[Measured, Measured]> {
  for (let i = 0; i < Math.min(200, n / 10); i++) await Promise.all([a(), b()]); // warm-up
  const samples: [number[], number[]] = [[], []];
  const ops = [a, b];
  for (let i = 0; i < n; i++) {
    for (const k of i % 2 === 0 ? [0, 1] : [1, 0]) {
      const t = performance.now();
      await ops[k]!();
      samples[k]!.push(performance.now() - t);
    }
  }
  const measured = (s: number[]): Measured => ({
    stats: latencyStats(s),
    perSecond: (s.length / s.reduce((x, y) => x + y, 0)) * 1000,
  });
  return [measured(samples[0]), measured(samples[1])];
}

export type Measured = { stats: LatencyStats; perSecond: number };

export async function concurrent<C>(
  clients: C[],
  total: number,
  op: (c: C, i: number) => Promise<unknown>,
): Promise<{ stats: LatencyStats; perSecond: number }> {
  await Promise.all(clients.map((c, i) => op(c, i)));
  let next = 0;
  const samples: number[] = [];
  const started = performance.now();
  await Promise.all(
    clients.map(async (c) => {
      while (next < total) {
        const i = next++;
        const t = performance.now();
        await op(c, i);
        samples.push(performance.now() - t);
      }
    }),
  );
  return { stats: latencyStats(samples), perSecond: (total / (performance.now() - started)) * 1000 };
}

/** CPU time (user + system, ms) that each of some processes spends while a piece of the bench runs. */
export class CpuMeter {
  private readonly tick = 1000 / 100; // USER_HZ is 100 on Linux
  constructor(private readonly pids: Record<string, number>) {}

  private read(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [role, pid] of Object.entries(this.pids)) {
      // Fields 14 and 15 of /proc/<pid>/stat (after the parenthesised command name): utime and stime in ticks.
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
      out[role] = (Number(fields[11]) + Number(fields[12])) * this.tick;
    }
    return out;
  }

  async measure<T extends object>(run: () => Promise<T>): Promise<T & { cpu: Record<string, number> }> {
    const before = this.read();
    const result = await run();
    const after = this.read();
    return { ...result, cpu: Object.fromEntries(Object.keys(after).map((k) => [k, after[k]! - before[k]!])) };
  }
}

export const echo = (c: Client | ClientV2, i: number, name: string) =>
  c.callTool({ name, arguments: { text: `hello ${i}` } });

export async function waitForHttp(url: string, child: ChildProcess, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the web server exited with ${child.exitCode}`);
    try {
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

export async function run(): Promise<void> {
  const webDir = path.join(root, "apps/web");
  const gatewayDir = path.join(root, "apps/gateway");
  if (!existsSync(path.join(webDir, ".next/BUILD_ID"))) {
    console.log("building the console (production build)…");
    await new Promise<void>((resolve, reject) =>
      spawn("npm", ["run", "build", "-w", "@switchboard/web"], { cwd: root, stdio: "inherit" }).on("exit", (code) =>
        code === 0 ? resolve() : reject(new Error(`build failed (${code})`)),
      ),
    );
  }

  const database = await createTestDatabase("bench");
  const db = createDb(database.url);
  const upstream = await startUpstreamProcess();
  const port = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  const prefix = `sbbench-${randomBytes(4).toString("hex")}`;
  const encryptionKey = randomBytes(32).toString("base64");
  process.env.SWITCHBOARD_ENCRYPTION_KEY = encryptionKey;
  let web: ChildProcess | undefined;
  const clients: Array<Client | ClientV2> = [];

  try {
    // One member with the echo server; another with 20 servers x 50 tools (catalogue rows only: lists never touch upstreams).
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
    // The bench's upstream runs on this host: a named exception to the egress rules, as an operator would allow it.
    const benchFetch = egressFetch({ allowPrivate: false, allow: [{ host: "127.0.0.1", port: "*" }] });
    const pool = new ConnectionPool({
      resolve: async () => ({
        launch: { transport: "streamable_http", url: upstream.url, headers: {} },
        fetch: benchFetch,
      }),
    });
    await replaceCatalogue(db, instance.id, await discover(await pool.get(instance.id), { slug: "echo" }));
    await pool.closeAll();
    await db.instance.update({ where: { id: instance.id }, data: { status: "online" } });

    const heavy = await makeUser(db);
    const heavyTeam = await makeTeam(db, heavy);
    for (let s = 0; s < 20; s++) {
      const t = await seedTemplate(db, {
        teamId: heavyTeam.id,
        slug: `server-${s}`,
        name: `Server ${s}`,
        transport: "streamable_http",
        url: `http://127.0.0.1:9/s${s}`,
      });
      const inst = (await seedInstallation(db, { template: t })).instances[0]!;
      await db.instanceTool.createMany({
        data: Array.from({ length: 50 }, (_, k) => ({
          instanceId: inst.id,
          name: `tool_${k}`,
          description: `Tool ${k} of server ${s}: does a realistic amount of describing what it does and when to use it.`,
          inputSchema: {
            type: "object",
            properties: { query: { type: "string", description: "What to look up" }, limit: { type: "integer" } },
            required: ["query"],
          },
          tokenCount: 60,
          position: k,
        })),
      });
      await db.instance.update({ where: { id: inst.id }, data: { status: "online", toolCount: 50 } });
    }

    const token = async (userId: string, teamId: string) =>
      (await makeAccessToken(db, { userId, teamId, name: "bench" })).token;
    const echoToken = await token(owner.id, team.id);
    const heavyToken = await token(heavy.id, heavyTeam.id);

    // BENCH_WEB_PROFILE=<dir> runs the server under `node --cpu-prof` to see where a proxied call's time goes.
    const profile = process.env.BENCH_WEB_PROFILE;
    // What `npm start` runs (the gateway's server.ts: Next for the console, the MCP route served directly), under node so
    // that --cpu-prof applies to the server itself.
    web = spawn(
      process.execPath,
      [...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : []), "--import", "tsx", "server.ts"],
      {
        cwd: gatewayDir,
        // Its own process group, so that everything it started goes down with it.
        detached: true,
        stdio: ["ignore", "ignore", "inherit"],
        env: {
          ...process.env,
          NODE_ENV: "production",
          PORT: String(port),
          HOST: "127.0.0.1",
          DATABASE_URL: database.url,
          APP_URL: appUrl,
          REDIS_PREFIX: prefix,
          BETTER_AUTH_SECRET: randomBytes(32).toString("base64"),
          SWITCHBOARD_ENCRYPTION_KEY: encryptionKey,
          AUTH_RATE_LIMIT: "off",
          EGRESS_ALLOW: `127.0.0.1:${new URL(upstream.url).port}`,
          LOG_LEVEL: "warn",
          NEXT_TELEMETRY_DISABLED: "1",
        },
      },
    );
    await waitForHttp(`${appUrl}/sign-in`, web);
    const proxyUrl = `${appUrl}/api/mcp`;

    console.log(
      `\n== proxy benchmark (tools/call of an echo tool; ${N_LATENCY} sequential calls, ${N_THROUGHPUT} calls with 32 clients)`,
    );
    const direct1 = await connect(upstream.url);
    const proxy1 = await connect(proxyUrl, echoToken);
    clients.push(direct1, proxy1);
    const [d1, p1] = await alternating(
      N_LATENCY,
      () => echo(direct1, 0, "echo"),
      () => echo(proxy1, 0, "echo-echo"),
    );

    const direct32 = await Promise.all(Array.from({ length: 32 }, () => connect(upstream.url)));
    const proxy32 = await Promise.all(Array.from({ length: 32 }, () => connect(proxyUrl, echoToken)));
    clients.push(...direct32, ...proxy32);
    const cpu = new CpuMeter({ clients: process.pid, upstream: upstream.pid, route: web.pid! });
    const d32 = await cpu.measure(() => concurrent(direct32, N_THROUGHPUT, (c, i) => echo(c, i, "echo")));
    const p32 = await cpu.measure(() => concurrent(proxy32, N_THROUGHPUT, (c, i) => echo(c, i, "echo-echo")));

    console.log(
      table([
        ["", "direct", "via /api/mcp", "proxy/direct", "added"],
        [
          "p50, 1 client",
          ms(d1.stats.p50),
          ms(p1.stats.p50),
          ratio(p1.stats.p50, d1.stats.p50),
          ms(p1.stats.p50 - d1.stats.p50),
        ],
        [
          "p99, 1 client",
          ms(d1.stats.p99),
          ms(p1.stats.p99),
          ratio(p1.stats.p99, d1.stats.p99),
          ms(p1.stats.p99 - d1.stats.p99),
        ],
        ["calls/s, 1 client", d1.perSecond.toFixed(0), p1.perSecond.toFixed(0), ratio(p1.perSecond, d1.perSecond), ""],
        [
          "p50, 32 clients",
          ms(d32.stats.p50),
          ms(p32.stats.p50),
          ratio(p32.stats.p50, d32.stats.p50),
          ms(p32.stats.p50 - d32.stats.p50),
        ],
        [
          "p99, 32 clients",
          ms(d32.stats.p99),
          ms(p32.stats.p99),
          ratio(p32.stats.p99, d32.stats.p99),
          ms(p32.stats.p99 - d32.stats.p99),
        ],
        [
          "calls/s, 32 clients",
          d32.perSecond.toFixed(0),
          p32.perSecond.toFixed(0),
          ratio(p32.perSecond, d32.perSecond),
          "",
        ],
      ]),
    );
    const perCall = (used: Record<string, number>, role: string) => ms(used[role]! / N_THROUGHPUT);
    console.log(`\nCPU time per call with 32 clients (all processes share ${os.availableParallelism()} cores):`);
    console.log(
      table([
        ["", "clients (bench)", "upstream", "web process", "total", "ceiling at 100% CPU"],
        ...(
          [
            ["direct", d32.cpu],
            ["via /api/mcp", p32.cpu],
          ] as const
        ).map(([label, used]) => {
          const total = used.clients! + used.upstream! + used.route!;
          return [
            label,
            perCall(used, "clients"),
            perCall(used, "upstream"),
            label === "direct" ? "-" : perCall(used, "route"),
            ms(total / N_THROUGHPUT),
            `${((os.availableParallelism() * 1000 * N_THROUGHPUT) / total).toFixed(0)} calls/s`,
          ];
        }),
      ]),
    );
    console.log(
      `targets: added p50 latency < 2 ms (measured ${ms(p1.stats.p50 - d1.stats.p50)}); >= 1000 proxied calls/s with 32 clients (measured ${p32.perSecond.toFixed(0)})`,
    );
    // What no proxy can beat here: the bench's clients and the upstream, at their CPU per proxied call, on every core.
    const floor = (p32.cpu.clients! + p32.cpu.upstream!) / N_THROUGHPUT;
    console.log(
      `the clients and the upstream alone use ${ms(floor)} of CPU per proxied call: ${((os.availableParallelism() * 1000) / floor).toFixed(0)} calls/s is the most any proxy could reach on these ${os.availableParallelism()} cores`,
    );

    // The same calls from clients at 2026-07-28 (stateless: no session, the member's proxy built per request from
    // the shared catalogue cache and upstream pool) beside the 2025-11-25 sessions measured above.
    console.log(`\n== ${REV} (stateless) beside 2025-11-25 (sessions), both via /api/mcp to the same 2025 upstream`);
    const modern1 = await connectModern(proxyUrl, echoToken);
    clients.push(modern1);
    const [s1, m1] = await alternating(
      N_LATENCY,
      () => echo(proxy1, 0, "echo-echo"),
      () => echo(modern1, 0, "echo-echo"),
    );
    const modern32 = await Promise.all(Array.from({ length: 32 }, () => connectModern(proxyUrl, echoToken)));
    clients.push(...modern32);
    const m32 = await cpu.measure(() => concurrent(modern32, N_THROUGHPUT, (c, i) => echo(c, i, "echo-echo")));
    console.log(
      table([
        ["", "2025-11-25 session", REV, `${REV}/2025-11-25`],
        ["p50, 1 client", ms(s1.stats.p50), ms(m1.stats.p50), ratio(m1.stats.p50, s1.stats.p50)],
        ["p99, 1 client", ms(s1.stats.p99), ms(m1.stats.p99), ratio(m1.stats.p99, s1.stats.p99)],
        [
          "calls/s, 32 clients",
          p32.perSecond.toFixed(0),
          m32.perSecond.toFixed(0),
          ratio(m32.perSecond, p32.perSecond),
        ],
        [
          "web-process CPU per call, 32 clients",
          perCall(p32.cpu, "route"),
          perCall(m32.cpu, "route"),
          ratio(m32.cpu.route!, p32.cpu.route!),
        ],
      ]),
    );

    const heavyClient = await connect(proxyUrl, heavyToken);
    clients.push(heavyClient);
    const firstList = performance.now();
    const listed = await heavyClient.listTools();
    const cold = performance.now() - firstList;
    const lists = await sequential(heavyClient, N_LIST, (c) => c.listTools());
    console.log(`\n== tools/list for a member with 20 servers x 50 tools (${listed.tools.length} tools)`);
    console.log(
      table([
        ["first (cold cache)", "p50", "p99"],
        [ms(cold), ms(lists.stats.p50), ms(lists.stats.p99)],
      ]),
    );
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
    if (web?.pid) {
      try {
        process.kill(-web.pid, "SIGTERM");
      } catch {
        // already gone
      }
    }
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
