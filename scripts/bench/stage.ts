/**
 * The stage every route benchmark stands on: a database of its own, the echo upstream in a child process, a Redis
 * prefix and an encryption key shared with the processes it starts, teams with the echo server installed and
 * discovered, route processes, and one `close()` that takes all of it down again.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { discover } from "@switchboard/core/discovery";
import { ConnectionPool, egressFetch } from "@switchboard/core/upstream";
import { createDb, type Db } from "@switchboard/db/client";
import { replaceCatalogue } from "@switchboard/db/queries/catalogue";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { createTestDatabase, makeAccessToken, makeTeam, makeUser } from "@switchboard/db/testing";
import { createLogger } from "@switchboard/runtime/logger";
import { createRedis } from "@switchboard/runtime/redis-client";
import { freePort } from "@switchboard/testing/net";

export const root = path.resolve(import.meta.dirname, "../..");

/**
 * The production bundle of an entry point (`scripts/build/bundle.mjs`, what `npm run build` makes and `node dist/...`
 * starts), built afresh: the bench measures the code as it ships. Run from source under tsx instead, every function
 * carries the name esbuild's keepNames gives it (an own property: about 250 bytes of heap per closure, and a
 * defineProperty each time one is made), which production does not pay. BENCH_FROM_SOURCE=1 measures that anyway.
 */
export function bundled(entry: string, out: string, assets: string[] = []): string[] {
  if (process.env.BENCH_FROM_SOURCE === "1") return ["--import", "tsx", entry];
  // Once per bench run: a second build would empty dist/ under a process that may not have read it yet.
  if (!built.has(out)) {
    execFileSync(process.execPath, [path.join(root, "scripts/build/bundle.mjs"), entry, out, ...assets], {
      stdio: "inherit",
    });
    built.add(out);
  }
  return [out];
}
const built = new Set<string>();

/** `--cpu-prof` into the directory the variable names (a CPU profile of that process for each run), if set. */
export function profiled(variable: string): string[] {
  const dir = process.env[variable];
  return dir ? ["--cpu-prof", `--cpu-prof-dir=${dir}`] : [];
}

/** Call counts: BENCH_LATENCY_CALLS and BENCH_THROUGHPUT_CALLS, else the bench's own defaults. */
export function callCounts(defaults: { latency?: number; throughput?: number } = {}) {
  return {
    latency: Number(process.env.BENCH_LATENCY_CALLS ?? defaults.latency ?? 2000),
    throughput: Number(process.env.BENCH_THROUGHPUT_CALLS ?? defaults.throughput ?? 6000),
  };
}

/** Starts the echo upstream in a child process and answers its URL. */
export function startUpstreamProcess(): Promise<{ url: string; pid: number; close(): Promise<void> }> {
  return startServerProcess("upstream-process.ts");
}

/**
 * Starts one of the bench's servers (a script of this directory that prints its URL on its first line) in a child
 * process and answers that URL.
 */
export async function startServerProcess(
  script: string,
  args: string[] = [],
): Promise<{ url: string; pid: number; close(): Promise<void> }> {
  // node with tsx's loader rather than the tsx CLI, so that the pid is the server's own (CPU is read from /proc).
  const child = spawn(process.execPath, ["--import", "tsx", path.join(import.meta.dirname, script), ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d) => {
      out += d;
      if (out.includes("\n")) resolve(out.trim());
    });
    child.once("exit", (code) => reject(new Error(`${script} exited (${code})`)));
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

export async function waitForHttp(url: string, child: ChildProcess, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server under test exited with ${child.exitCode}`);
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

/** A team with the echo server installed and discovered, and a token of its owner. */
export interface EchoTeam {
  teamId: string;
  ownerId: string;
  installationId: string;
  token: string;
}

export interface Stage {
  db: Db;
  databaseUrl: string;
  upstream: { url: string; pid: number };
  /** What every process the bench starts needs to share the database, Redis and the stored secrets. */
  env: NodeJS.ProcessEnv;
  /** Closed, killed or run by `close()`, last in first out. */
  onClose(step: () => unknown): void;
  /** Each a team of its own with the echo server (instance online, catalogue discovered) and a token. */
  echoTeam(): Promise<EchoTeam>;
  /** Another token of a team's owner: a token may hold 50 sessions (MCP_MAX_SESSIONS_PER_TOKEN). */
  newToken(team: EchoTeam): Promise<string>;
  /** The MCP route alone in a process of its own (`route-process.ts`); answers its `/api/mcp` URL and pid. */
  startRoute(env?: NodeJS.ProcessEnv): Promise<{ url: string; pid: number }>;
  close(): Promise<void>;
}

export async function openStage(name: string): Promise<Stage> {
  const database = await createTestDatabase(`bench-${name}`);
  const db = createDb(database.url);
  const upstream = await startUpstreamProcess();
  const prefix = `sbbench-${randomBytes(4).toString("hex")}`;
  const encryptionKey = randomBytes(32).toString("base64");
  // The seeds encrypt with it in this process; the route processes decrypt with it.
  process.env.SWITCHBOARD_ENCRYPTION_KEY = encryptionKey;
  const steps: Array<() => unknown> = [
    async () => {
      const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", {
        name: "bench",
        logger: createLogger("bench", "warn"),
      });
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    },
    () => database.drop(),
    () => db.$disconnect(),
    () => upstream.close(),
  ];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    DATABASE_URL: database.url,
    REDIS_PREFIX: prefix,
    BETTER_AUTH_SECRET: randomBytes(32).toString("base64"),
    SWITCHBOARD_ENCRYPTION_KEY: encryptionKey,
    // The bench's upstream runs on this host: a named exception to the egress rules, as an operator would allow it.
    EGRESS_ALLOW: `127.0.0.1:${new URL(upstream.url).port}`,
    LOG_LEVEL: "warn",
  };
  const pool = new ConnectionPool({
    resolve: async () => ({
      launch: { transport: "streamable_http", url: upstream.url, headers: {} },
      fetch: egressFetch({ allowPrivate: false, allow: [{ host: "127.0.0.1", port: "*" }] }),
    }),
  });

  const stage: Stage = {
    db,
    databaseUrl: database.url,
    upstream,
    env,
    onClose: (step) => void steps.push(step),
    async echoTeam() {
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
      await pool.closeAll();
      await db.instance.update({ where: { id: instance.id }, data: { status: "online" } });
      const token = (await makeAccessToken(db, { userId: owner.id, teamId: team.id, name: "bench" })).token;
      return { teamId: team.id, ownerId: owner.id, installationId: installation.id, token };
    },
    async newToken(team) {
      return (await makeAccessToken(db, { userId: team.ownerId, teamId: team.teamId, name: "bench" })).token;
    },
    async startRoute(extra = {}) {
      const port = await freePort();
      const script = bundled(
        path.join(import.meta.dirname, "route-process.ts"),
        path.join(import.meta.dirname, "dist/route-process.js"),
      );
      const child = spawn(process.execPath, ["--expose-gc", ...profiled("BENCH_ROUTE_PROFILE"), ...script], {
        cwd: root,
        stdio: ["ignore", "ignore", "inherit"],
        // The route checks Host against APP_URL: each process is its own.
        env: { ...env, ...extra, ROUTE_PORT: String(port), APP_URL: `http://127.0.0.1:${port}` },
      });
      steps.push(() => child.kill("SIGTERM"));
      const url = `http://127.0.0.1:${port}/api/mcp`;
      await waitForHttp(url, child);
      return { url, pid: child.pid! };
    },
    async close() {
      for (const step of steps.reverse()) await Promise.resolve(step()).catch(() => undefined);
    },
  };
  return stage;
}
