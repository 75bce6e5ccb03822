import { randomBytes } from "node:crypto";
import { deleteMatching } from "@switchboard/testing/redis";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { discover } from "@switchboard/core/discovery";
import { ConnectionPool } from "@switchboard/core/upstream";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { replaceCatalogue } from "@switchboard/db/queries/catalogue";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { recordDiscoveredTools } from "@switchboard/db/queries/governance";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { reloadEnv } from "@switchboard/runtime/env";
import { upstreamEgressFetch } from "@switchboard/runtime/egress";
import { closeJobs } from "@switchboard/runtime/jobs";
import { handleMcpHttp, matchMcpPath } from "../../src/mcp/http";
import { KEEP_ALIVE_TIMEOUT_MS } from "../../src/public-server";
import { redis } from "@switchboard/runtime/redis";
import { forgetLocalSessions } from "../../src/mcp/sessions";
import { env } from "@switchboard/runtime/env";
import { redisKeys } from "@switchboard/core/contracts";
import { liveEventsReady } from "@switchboard/runtime/live-events";
import { afterAll, beforeAll } from "vitest";
import { freePort } from "@switchboard/testing/net";

let running: { server: Server; base: string } | undefined;

/**
 * The MCP route on a real HTTP server, as `server.ts` serves it (without Next, which these tests do not need).
 * Its address is added to the allowed hosts, as an operator would with MCP_ALLOWED_HOSTS.
 */
export async function startRoute(): Promise<string> {
  if (running) return running.base;
  const server = createServer((req, res) => {
    const mcp = matchMcpPath(req.url);
    if (mcp) return void handleMcpHttp(req, res, mcp.scope);
    res.writeHead(404).end();
  });
  // As the public server: with Node's default (5 s, the client agent's too) a client that paused under load
  // reused connections the server was closing, and its requests failed with ECONNRESET (the fuzz corpus in CI).
  server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  process.env.MCP_ALLOWED_HOSTS = `127.0.0.1:${port}`;
  reloadEnv();
  running = { server, base: `http://127.0.0.1:${port}` };
  return running.base;
}

/**
 * The route (startRoute) set up to reach stdio servers through a worker's bridge on a free port: start that worker
 * with the returned secret and port (`startWorkerProcess`).
 */
export async function startRouteWithBridge(): Promise<{ bridgeSecret: string; bridgePort: number }> {
  await startRoute();
  const bridgePort = await freePort();
  const bridgeSecret = randomBytes(24).toString("hex");
  process.env.BRIDGE_SECRET = bridgeSecret;
  process.env.BRIDGE_URL = `http://127.0.0.1:${bridgePort}`;
  return { bridgeSecret, bridgePort };
}

export async function stopRoute(): Promise<void> {
  const r = running;
  running = undefined;
  if (!r) return;
  r.server.closeAllConnections();
  await new Promise<void>((resolve) => r.server.close(() => resolve()));
}

/** The running route's base URL (start it in beforeAll). */
export function routeBase(): string {
  if (!running) throw new Error("startRoute() first");
  return running.base;
}

/** A dependent signal per request, as core's upstream transport does (the SDK's signal is long-lived). */
const perRequestSignal: typeof fetch = (input, init) =>
  fetch(input, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init);

export async function connectClient(token: string, scope: string | null = null, path?: string) {
  const url = new URL(path ?? (scope ? `/api/mcp/servers/${scope}` : "/api/mcp"), routeBase());
  const transport = new StreamableHTTPClientTransport(url, {
    fetch: perRequestSignal,
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: "route-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, transport };
}

/**
 * Stores what discovery finds on a real upstream as the instance's catalogue (and the installation's tool
 * governance rows) and marks it online, as the worker would. Returns the tools held back for review.
 */
export async function discoverInto(instanceId: string, slug: string, url: string) {
  const pool = new ConnectionPool({
    resolve: async () => ({ launch: { transport: "streamable_http", url, headers: {} }, fetch: upstreamEgressFetch() }),
  });
  try {
    const result = await discover(await pool.get("x"), { slug });
    await replaceCatalogue(getDb(), instanceId, result);
    const { installationId } = await getDb().instance.findUniqueOrThrow({
      where: { id: instanceId },
      select: { installationId: true },
    });
    const governed = await recordDiscoveredTools(getDb(), installationId, result.tools);
    await getDb().instance.update({ where: { id: instanceId }, data: { status: "online", statusMessage: null } });
    return governed;
  } finally {
    await pool.closeAll();
  }
}

/** After a route test file: the route, its in-memory sessions, the job producer and this run's Redis keys. */
export async function teardownRoute(): Promise<void> {
  await stopRoute();
  await forgetLocalSessions();
  await closeJobs();
  await deleteMatching(redis(), redisKeys.everything(env().REDIS_PREFIX));
  redis().disconnect();
}

/**
 * The team's Streamable HTTP server `slug` at `url`, installed (every member gets an instance, as the worker
 * creates them) and discovered into the instances of `userIds` as the worker's discovery would. Returns the
 * installation and those instances' ids, in the order of `userIds`.
 */
export async function installDiscovered(input: {
  teamId: string;
  slug: string;
  name: string;
  url: string;
  userIds: readonly string[];
}) {
  const db = getDb();
  const template = await seedTemplate(db, {
    teamId: input.teamId,
    slug: input.slug,
    name: input.name,
    transport: "streamable_http",
    url: input.url,
  });
  const installation = await seedInstallation(db, { template, slug: input.slug });
  const instances: string[] = [];
  for (const userId of input.userIds) {
    const instance = await db.instance.findFirstOrThrow({ where: { installationId: installation.id, userId } });
    await discoverInto(instance.id, input.slug, input.url);
    instances.push(instance.id);
  }
  return { installation, instances };
}

/**
 * The route of one test file: before its tests, `start` (its upstreams), the route, `setup` and live events;
 * after them, the route, the upstreams and the database connection closed. The returned object is `setup`'s
 * result, filled in when the tests start (read it inside tests only).
 */
export function routeForFile<T extends object>(hooks: {
  start: () => Promise<ReadonlyArray<{ stop(): Promise<void> }>>;
  setup: () => Promise<T>;
}): T {
  const ctx = {} as T;
  let upstreams: ReadonlyArray<{ stop(): Promise<void> }> = [];
  beforeAll(async () => {
    upstreams = await hooks.start();
    await startRoute();
    Object.assign(ctx, await hooks.setup());
    await liveEventsReady();
  });
  afterAll(async () => {
    await teardownRoute();
    for (const upstream of upstreams) await upstream.stop();
    await disconnectDb();
  });
  return ctx;
}
