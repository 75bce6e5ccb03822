import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { createDb, type Db } from "@switchboard/db/client";
import { setTeamStdioAllowed } from "@switchboard/db/queries/deployment";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { allowCommands, makeAccessToken, makeTeam, makeUser, migrate } from "@switchboard/db/testing";
import { Balancer } from "../balancer";
import { freePort } from "../net";
import { PrivatePostgres } from "../private-postgres";
import { PrivateRedis } from "../private-redis";
import { TestUpstream } from "../upstream";
import { waitUntil } from "../wait";
import { startWorkerProcess, type WorkerProcess } from "../worker-process";

const ROOT = path.resolve(import.meta.dirname, "../../../..");
const GATEWAY_DIR = path.join(ROOT, "apps/gateway");

export interface ChaosStackOptions {
  /** Gateway processes behind the balancer (2). */
  gateways?: number;
  /**
   * `route`: the MCP route alone in each gateway process (what the drills exercise; starts in a second). `server`:
   * the gateway as `npm start` runs it (`apps/gateway/server.ts`, the console's production build as its child).
   */
  gateway?: "route" | "server";
  /** A stdio instance (mcp-server-everything in the worker's sandbox) beside the HTTP one (true). */
  stdio?: boolean;
  /** The route's per-attempt call timeout (MCP_CALL_TIMEOUT_MS), 5 s: a dead part must not hold a call longer. */
  callTimeoutMs?: number;
  /** The worker's job lock (WORKER_LOCK_DURATION_MS): how long a killed worker's jobs wait to be picked up (10 s). */
  lockDurationMs?: number;
  log?: (line: string) => void;
}

export interface GatewayProcess {
  port: number;
  child: ChildProcess;
  pid: number;
  output(): string;
  alive(): boolean;
}

/** Everything the drills need to reach and break. */
export interface ChaosInstances {
  http: string;
  stdio?: string;
}

/**
 * The whole stack on private servers: a PostgreSQL and a Redis of its own (restartable: never the shared ones),
 * a migrated database with one team, its member's token, an HTTP upstream (in this process, restartable on its
 * port) and optionally a stdio server, one worker process (sandboxed stdio, the bridge on), and gateway processes
 * behind a TCP balancer. `stop()` removes all of it, whatever state the drills left it in.
 */
export class ChaosStack {
  readonly gateways: Array<GatewayProcess | undefined> = [];
  worker: WorkerProcess | undefined;
  /** Every worker this stack started (the killed ones too), for the orphan check. */
  readonly workerPids: number[] = [];
  token = "";
  instances: ChaosInstances = { http: "" };
  private readonly secret = randomBytes(24).toString("hex");
  private readonly encryptionKey = randomBytes(32).toString("base64");
  readonly prefix = `sbchaos-${randomBytes(4).toString("hex")}`;
  /** The sandboxes' data directory: every bwrap and pasta command line names it (the orphan check's marker). */
  readonly sandboxDir = mkdtempSync(path.join(os.tmpdir(), "sb-chaos-sandboxes-"));
  bridgePort = 0;
  databaseUrl = "";
  db: Db | undefined;
  pg: PrivatePostgres | undefined;
  redis: PrivateRedis | undefined;
  upstream: TestUpstream | undefined;
  balancer: Balancer | undefined;

  private constructor(private readonly options: Required<Omit<ChaosStackOptions, "log">> & ChaosStackOptions) {}

  static async start(options: ChaosStackOptions = {}): Promise<ChaosStack> {
    const stack = new ChaosStack({
      gateways: 2,
      gateway: "route",
      stdio: true,
      callTimeoutMs: 5_000,
      lockDurationMs: 10_000,
      ...options,
    });
    try {
      await stack.boot();
    } catch (error) {
      await stack.stop();
      throw error;
    }
    return stack;
  }

  private log(line: string) {
    this.options.log?.(line);
  }

  private async boot() {
    process.env.SWITCHBOARD_ENCRYPTION_KEY ??= this.encryptionKey;
    this.pg = await PrivatePostgres.start();
    this.redis = await PrivateRedis.start();
    const admin = new pg.Client({ connectionString: this.pg.adminUrl });
    await admin.connect();
    await admin.query("CREATE DATABASE chaos");
    await admin.end();
    this.databaseUrl = this.pg.url("chaos");
    await migrate(this.databaseUrl);
    this.db = createDb(this.databaseUrl, 4);
    this.log(`PostgreSQL on ${this.pg.port}, Redis on ${this.redis.port} (private to this run)`);

    this.upstream = await TestUpstream.start(["echo", "add"]);
    const db = this.db;
    const owner = await makeUser(db, { name: "chaos" });
    const team = await makeTeam(db, owner, { stdioAllowed: false });
    const http = await seedInstallation(db, {
      template: await seedTemplate(db, {
        teamId: team.id,
        slug: "web",
        name: "Web",
        transport: "streamable_http",
        url: this.upstream.url,
      }),
    });
    this.instances.http = http.instances[0]!.id;
    if (this.options.stdio) {
      await setTeamStdioAllowed(db, { teamId: team.id, allowed: true });
      await allowCommands(db, [{ kind: "executable", name: "mcp-server-everything" }]);
      const stdio = await seedInstallation(db, {
        template: await seedTemplate(db, {
          teamId: team.id,
          slug: "local",
          name: "Local",
          transport: "stdio",
          command: "mcp-server-everything",
        }),
      });
      this.instances.stdio = stdio.instances[0]!.id;
    }
    this.token = (await makeAccessToken(db, { userId: owner.id, teamId: team.id, name: "chaos" })).token;

    this.bridgePort = await freePort();
    await this.startWorker();
    this.balancer = await Balancer.start(() =>
      this.gateways.filter((g): g is GatewayProcess => g !== undefined).map((g) => g.port),
    );
    for (let i = 0; i < this.options.gateways; i++) await this.startGateway(i);
    // The worker's start-up reconciliation discovers every instance.
    await this.waitOnline(60_000);
  }

  /** The balancer's URL: what clients use. */
  get url(): string {
    return this.balancer!.url;
  }

  /** Waits until every instance of the stack is online. */
  async waitOnline(timeoutMs = 30_000): Promise<void> {
    const ids = Object.values(this.instances).filter(Boolean) as string[];
    await waitUntil(
      async () =>
        (await this.db!.instance.findMany({ where: { id: { in: ids } }, select: { status: true } })).every(
          (i) => i.status === "online",
        ),
      "every instance online",
      timeoutMs,
      200,
    );
  }

  /** Starts a worker process, as the host's process supervisor (systemd, Kubernetes) would after a crash. */
  async startWorker(): Promise<WorkerProcess> {
    const worker = await startWorkerProcess({
      prefix: this.prefix,
      bridgeSecret: this.secret,
      bridgePort: this.bridgePort,
      env: {
        DATABASE_URL: this.databaseUrl,
        REDIS_URL: this.redis!.url,
        SWITCHBOARD_ENCRYPTION_KEY: process.env.SWITCHBOARD_ENCRYPTION_KEY,
        STDIO_SANDBOX_DIR: this.sandboxDir,
        WORKER_LOCK_DURATION_MS: String(this.options.lockDurationMs),
        WORKER_CONCURRENCY: "16",
      },
    });
    this.worker = worker;
    this.workerPids.push(worker.pid);
    return worker;
  }

  /** SIGKILL: the worker can hand nothing back (jobs, leases, its stdio servers). */
  async killWorker(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (!worker?.alive()) return;
    worker.child.kill("SIGKILL");
    await worker.exited;
  }

  private gatewayEnv(port: number): NodeJS.ProcessEnv {
    return {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      ROUTE_PORT: String(port),
      HOST: "127.0.0.1",
      DATABASE_URL: this.databaseUrl,
      REDIS_URL: this.redis!.url,
      REDIS_PREFIX: this.prefix,
      APP_URL: this.url,
      BETTER_AUTH_SECRET: this.secret,
      SWITCHBOARD_ENCRYPTION_KEY: process.env.SWITCHBOARD_ENCRYPTION_KEY,
      BRIDGE_SECRET: this.secret,
      BRIDGE_URL: `http://127.0.0.1:${this.bridgePort}`,
      EGRESS_ALLOW: "127.0.0.1:*",
      MCP_CALL_TIMEOUT_MS: String(this.options.callTimeoutMs),
      AUTH_RATE_LIMIT: "off",
      LOG_LEVEL: "warn",
      NEXT_TELEMETRY_DISABLED: "1",
    };
  }

  /** Starts gateway process `index` (again) on a free port and waits until it accepts connections. */
  async startGateway(index: number): Promise<GatewayProcess> {
    const port = await freePort();
    const entry = this.options.gateway === "server" ? "server.ts" : "test/support/route-process.ts";
    const child = spawn(process.execPath, ["--import", "tsx", entry], {
      cwd: GATEWAY_DIR,
      env: this.gatewayEnv(port),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout?.on("data", (d: Buffer) => void (out = (out + d.toString()).slice(-20_000)));
    child.stderr?.on("data", (d: Buffer) => void (out = (out + d.toString()).slice(-20_000)));
    const alive = () => child.exitCode === null && child.signalCode === null;
    await waitUntil(
      async () => {
        if (!alive()) throw new Error(`gateway process ${index} exited at start:\n${out}`);
        return accepts(port);
      },
      `gateway process ${index} on port ${port}`,
      120_000,
      100,
    );
    const gateway = { port, child, pid: child.pid!, output: () => out, alive };
    this.gateways[index] = gateway;
    return gateway;
  }

  /** SIGKILL gateway process `index`: its live sessions' clients must continue on another one. */
  async killGateway(index: number): Promise<GatewayProcess | undefined> {
    const gateway = this.gateways[index];
    this.gateways[index] = undefined;
    if (!gateway?.alive()) return gateway;
    const exited = new Promise((resolve) => gateway.child.once("exit", resolve));
    gateway.child.kill("SIGKILL");
    await exited;
    return gateway;
  }

  /** Removes everything, whatever state the drills left: processes, servers, directories. */
  async stop(): Promise<void> {
    const quietly = (p: Promise<unknown> | undefined) => p?.catch(() => undefined);
    await quietly(this.balancer?.stop());
    for (const g of this.gateways) {
      if (!g?.alive()) continue;
      const exited = new Promise((resolve) => g.child.once("exit", resolve));
      try {
        // server.ts runs the console in its own process group: SIGTERM lets it stop that child.
        g.child.kill("SIGTERM");
      } catch {
        // gone
      }
      const force = setTimeout(() => g.child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(force);
    }
    if (this.worker?.alive()) await quietly(this.worker.stop());
    await quietly(this.upstream?.stop());
    await quietly(this.db?.$disconnect());
    await quietly(this.redis?.kill());
    await quietly(this.pg?.stop());
    rmSync(this.sandboxDir, { recursive: true, force: true });
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
