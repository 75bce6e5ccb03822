import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { redisKeys } from "@switchboard/core/contracts";
import { freePort } from "@switchboard/testing/net";
import { Redis } from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The images of the Containerfile (built by scripts/images/build.sh, the workspace's `npm test` runs it first), run
 * with Podman the way a deployment runs them: a migrations job, the gateway and the worker, against this machine's
 * PostgreSQL (a fresh database of this run) and Redis (a prefix of this run). Host networking: the containers reach
 * 127.0.0.1 as this process does. Every container started here is removed in afterAll, and each is started with
 * Podman's --timeout, so that one left by a killed run stops by itself.
 */
const repoRoot = path.resolve(import.meta.dirname, "../../..");
const FIXTURES = path.resolve(import.meta.dirname, "fixtures");
const tag = process.env.TEST_IMAGE_TAG ?? "dev";
const gatewayImage = process.env.TEST_GATEWAY_IMAGE ?? `localhost/switchboard-gateway:${tag}`;
const workerImage = process.env.TEST_WORKER_IMAGE ?? `localhost/switchboard-worker:${tag}`;
const run = promisify(execFile);
const podmanEnv = {
  ...process.env,
  CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? path.join(repoRoot, "scripts/images/containers.conf"),
};
const runId = randomBytes(4).toString("hex");
const adminUrl = process.env.TEST_DATABASE_ADMIN_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
const redisUrl = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";
const database = `sb_images_${runId}`;
const databaseUrl = Object.assign(new URL(adminUrl), { pathname: `/${database}` }).toString();
const prefix = `sbimages-${runId}`;
const secrets = {
  SWITCHBOARD_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
  BRIDGE_SECRET: randomBytes(24).toString("hex"),
  BETTER_AUTH_SECRET: randomBytes(32).toString("base64"),
};
/** Names of the containers this run started (removed in afterAll, running or not). */
const containers: string[] = [];
let gatewayPort: number;
let bridgePort: number;
let token: string;
let instanceId: string;
let createdDatabase = false;
const tmp = mkdtempSync(path.join(os.tmpdir(), "sb-images-"));

function podman(args: string[], timeout = 120_000) {
  return run("podman", args, { env: podmanEnv, timeout, maxBuffer: 64 * 1024 * 1024 });
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

function envArgs(env: Record<string, string>): string[] {
  return Object.entries(env).flatMap(([k, v]) => ["--env", `${k}=${v}`]);
}

/** Starts a container in the background on the host's network; `extra` goes before the image. */
async function start(name: string, image: string, env: Record<string, string>, extra: string[] = []) {
  const full = `sb-images-${runId}-${name}`;
  containers.push(full);
  await podman([
    "run",
    "--detach",
    "--name",
    full,
    "--label",
    "switchboard.test=images",
    // A safety net for a run killed before afterAll: the container is stopped after 15 minutes whatever happens.
    "--timeout",
    "900",
    "--network",
    "host",
    ...extra,
    ...envArgs(env),
    image,
  ]);
  return full;
}

async function logs(name: string): Promise<string> {
  const full = `sb-images-${runId}-${name}`;
  const { stdout, stderr } = await podman(["logs", full]).catch((e: { stdout?: string; stderr?: string }) => e);
  return `${stdout ?? ""}${stderr ?? ""}`;
}

/** Runs `fn`; when it fails, the containers' logs go to the test's output first (CI shows why). */
async function withLogs<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    for (const name of ["worker", "gateway"]) {
      if (containers.includes(`sb-images-${runId}-${name}`))
        console.error(`--- ${name} container's log ---\n${(await logs(name)).slice(-6000)}`);
    }
    throw err;
  }
}

beforeAll(async () => {
  // Both images must be there: the workspace's test script builds them; a missing one fails here, not later.
  for (const image of [gatewayImage, workerImage]) await podman(["image", "exists", image]);
  await admin((c) => c.query(`CREATE DATABASE "${database}"`));
  createdDatabase = true;
  gatewayPort = await freePort();
  bridgePort = await freePort();
});

afterAll(async () => {
  if (containers.length) await podman(["rm", "--force", "--time", "5", ...containers], 60_000).catch(() => {});
  // Nothing of this run may be left running, whatever failed above.
  const { stdout } = await podman(["ps", "--all", "--quiet", "--filter", `name=sb-images-${runId}-`]);
  expect(stdout.trim()).toBe("");
  const { disconnectDb } = await import("@switchboard/db/client");
  await disconnectDb();
  rmSync(tmp, { recursive: true, force: true });
  if (createdDatabase) await admin((c) => c.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`));
  const redis = new Redis(redisUrl);
  const keys = await redis.keys(redisKeys.everything(prefix));
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

describe("the gateway and worker images", () => {
  it("applies the migrations as a job of the gateway image (prisma migrate deploy) on a fresh database", async () => {
    const { stdout } = await podman(
      [
        "run",
        "--rm",
        "--network",
        "host",
        "--timeout",
        "300",
        "--env",
        `DATABASE_URL=${databaseUrl}`,
        gatewayImage,
        "npx",
        "--no",
        "prisma",
        "migrate",
        "deploy",
      ],
      300_000,
    );
    expect(stdout).toMatch(/applied/);
    const committed = readdirSync(path.join(repoRoot, "prisma/migrations"), { withFileTypes: true }).filter((d) =>
      d.isDirectory(),
    ).length;
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const applied = await db
      .query(
        `SELECT count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
      )
      .finally(() => db.end());
    expect(applied.rows[0].n).toBe(committed);
  });

  it("starts the gateway, whose console answers", async () => {
    // The member, their team (allowed to run stdio servers), the deployment's allow-list with `node`, and a stdio
    // server run by the worker image's node from the mounted fixture, as the console would have stored them.
    process.env.DATABASE_URL = databaseUrl;
    process.env.SWITCHBOARD_ENCRYPTION_KEY = secrets.SWITCHBOARD_ENCRYPTION_KEY;
    const { getDb } = await import("@switchboard/db/client");
    const { allowCommands, makeAccessToken, makeTeam, makeUser } = await import("@switchboard/db/testing");
    const { seedInstallation, seedTemplate } = await import("@switchboard/db/seed/catalogue");
    const db = getDb();
    const ada = await makeUser(db, { name: "ada" });
    const team = await makeTeam(db, ada, { stdioAllowed: true });
    await allowCommands(db, [{ kind: "executable", name: "node" }]);
    const template = await seedTemplate(db, {
      teamId: team.id,
      slug: "info",
      name: "Sandbox info",
      transport: "stdio",
      command: "node",
      args: ["/app/fixtures/sandbox-info-server.mjs"],
    });
    instanceId = (await seedInstallation(db, { template })).instances[0]!.id;
    token = (await makeAccessToken(db, { userId: ada.id, teamId: team.id, name: "images" })).token;

    const common = { DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, LOG_LEVEL: "info" };
    await start("gateway", gatewayImage, {
      ...common,
      SWITCHBOARD_ENCRYPTION_KEY: secrets.SWITCHBOARD_ENCRYPTION_KEY,
      BETTER_AUTH_SECRET: secrets.BETTER_AUTH_SECRET,
      BRIDGE_SECRET: secrets.BRIDGE_SECRET,
      APP_URL: `http://127.0.0.1:${gatewayPort}`,
      HOST: "127.0.0.1",
      PORT: String(gatewayPort),
      BRIDGE_URL: `http://127.0.0.1:${bridgePort}`,
    });
    await withLogs(async () => {
      await expect
        .poll(
          async () => {
            const res = await fetch(`http://127.0.0.1:${gatewayPort}/sign-in`).catch(() => null);
            return res ? `${res.status} ${(await res.text()).includes("<html")}` : "no answer";
          },
          { timeout: 90_000, interval: 500 },
        )
        .toBe("200 true");
    });
  });

  it("runs the worker, which brings the stdio server online in a bubblewrap sandbox inside its container", async () => {
    // The seccomp profile the worker's container needs: the image's own copy of the containers project's default
    // with sethostname allowed (scripts/images/worker-seccomp.mjs, docs/containers.md).
    const { stdout: stock } = await podman(["run", "--rm", workerImage, "cat", "/usr/share/containers/seccomp.json"]);
    const { stdout: profile } = await new Promise<{ stdout: string }>((resolve, reject) => {
      const child = execFile("node", [path.join(repoRoot, "scripts/images/worker-seccomp.mjs")], (err, stdout) =>
        err ? reject(err) : resolve({ stdout }),
      );
      child.stdin?.end(stock);
    });
    writeFileSync(path.join(tmp, "worker-seccomp.json"), profile);
    await start(
      "worker",
      workerImage,
      {
        DATABASE_URL: databaseUrl,
        REDIS_URL: redisUrl,
        REDIS_PREFIX: prefix,
        LOG_LEVEL: "info",
        SWITCHBOARD_ENCRYPTION_KEY: secrets.SWITCHBOARD_ENCRYPTION_KEY,
        BRIDGE_SECRET: secrets.BRIDGE_SECRET,
        BRIDGE_HOST: "127.0.0.1",
        BRIDGE_PORT: String(bridgePort),
        // The console's port, which the worker never grants to a sandbox.
        PORT: String(gatewayPort),
        STDIO_SANDBOX_READONLY_PATHS: "/app/fixtures",
      },
      [
        // bubblewrap mounts a fresh /proc for each sandbox, which the kernel refuses under the runtime's masked paths.
        "--security-opt",
        "unmask=/proc/*",
        // bubblewrap names the sandbox's host (sethostname), which the default profile refuses without CAP_SYS_ADMIN.
        "--security-opt",
        `seccomp=${path.join(tmp, "worker-seccomp.json")}`,
        "--volume",
        `${FIXTURES}:/app/fixtures:ro`,
      ],
    );
    const { getDb } = await import("@switchboard/db/client");
    await withLogs(async () => {
      await expect
        .poll(async () => (await getDb().instance.findUniqueOrThrow({ where: { id: instanceId } })).status, {
          timeout: 90_000,
          interval: 500,
        })
        .toBe("online");
    });
  });

  it("answers an MCP client's call through the gateway container, run by the sandboxed server", async () => {
    const client = new Client({ name: "images-test", version: "1.0.0" });
    await withLogs(async () => {
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${gatewayPort}/api/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        expect(names).toContain("info-where");
        const result = await client.callTool({ name: "info-where", arguments: {} });
        expect(result.isError).not.toBe(true);
        const text = (result.content as Array<{ type: string; text: string }>)[0]!.text;
        const where = JSON.parse(text) as { pid1: string; uid: number; env: string[] };
        // PID 1 of its PID namespace is bwrap (unsandboxed, it would be the container's worker, `node`), its uid is
        // the sandbox's 1000 and the worker's secrets are not in its environment.
        expect(path.basename(where.pid1)).toBe("bwrap");
        expect(where.uid).toBe(1000);
        expect(where.env).not.toContain("DATABASE_URL");
        expect(where.env).not.toContain("BRIDGE_SECRET");
      } finally {
        await client.close();
      }
    });
  });
});
