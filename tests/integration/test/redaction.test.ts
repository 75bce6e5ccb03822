import { randomBytes } from "node:crypto";
import path from "node:path";
import { Redis } from "ioredis";
import { MEMBER_FAILURE_MESSAGES } from "@switchboard/core/events";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { seedInstallation, seedTemplate } from "@switchboard/db/seed/catalogue";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { closeJobs } from "@switchboard/runtime/jobs";
import { logger } from "@switchboard/runtime/logger";
import { callLogWriter } from "../../../apps/gateway/src/mcp/sinks";
import { redis, subscriberConnection } from "@switchboard/runtime/redis";
import { forgetLocalSessions } from "../../../apps/gateway/src/mcp/sessions";
import { signedInCaller } from "../../../apps/web/test/support/caller";
import { allowStdio } from "../../../apps/web/test/support/deployment";
import { env } from "@switchboard/runtime/env";
import { redisKeys } from "@switchboard/core/contracts";
import type { TestUpstream } from "@switchboard/testing/upstream";
import { startLeakyUpstream } from "./support/leaky-upstream";
import { connectClient, startRoute, stopRoute } from "../../../apps/gateway/test/support/mcp";
import { freePort } from "@switchboard/testing/net";
import { startWorkerProcess } from "@switchboard/testing/worker-process";

/**
 * Secrets planted in an installation whose upstreams echo them back in every way they can (tool results,
 * JSON-RPC errors, HTTP error bodies, stderr at start and before a crash, status messages when they fail);
 * then every surface is searched for them: the database (status messages, lastError, stderr tails, events,
 * request log), the live events on Redis, the tRPC answers a member and an admin get, and the log output of
 * this process (the console's API and the MCP route run in it) and of the worker process.
 */
const marker = () => randomBytes(10).toString("hex");
const M = {
  teamHeader: marker(),
  teamQuery: marker(),
  bearer: marker(),
  pem1: marker(),
  pem2: marker(),
  memberKey: marker(),
};
const SECRETS = {
  teamHeader: `sk-team-${M.teamHeader}`,
  teamQuery: `q/k3y+with&special=chars and ${M.teamQuery}`,
  bearer: `ya29.a0${M.bearer}-oauth-like`,
  pem: `-----BEGIN TEST KEY-----\nMIIB${M.pem1}AAAAqhkiG9w0BAQEF\nAAOC${M.pem2}BBBBwggSjAgEAAoIB\n-----END TEST KEY-----`,
  memberKey: `mk-${M.memberKey}"quoted\\back`,
};

/** Every form a secret could take on a surface, computed here independently of the redactor. */
function leakForms(): string[] {
  const forms = new Set<string>(Object.values(M));
  for (const s of [...Object.values(SECRETS), `Bearer ${SECRETS.bearer}`]) {
    forms.add(s);
    forms.add(JSON.stringify(s).slice(1, -1));
    forms.add(encodeURIComponent(s));
    forms.add(new URLSearchParams({ k: s }).toString().slice(2));
    forms.add(Buffer.from(s).toString("base64").replace(/=+$/, ""));
    for (const line of s.split("\n")) if (line.length >= 12 && !line.startsWith("-----")) forms.add(line);
  }
  return [...forms];
}

function leaksIn(surface: string, value: unknown): string[] {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return leakForms()
    .filter((f) => text.includes(f))
    .map((f) => `${surface} contains ${JSON.stringify(f)}`);
}

let worker: Awaited<ReturnType<typeof startWorkerProcess>>;
let upstream: TestUpstream;
let liveRedis: Redis;
const liveMessages: string[] = [];
const webLog: string[] = [];
let teamId: string;
let httpInstallationId: string;
let stdioInstallationId: string;
let bobHttp: string;
let bobStdio: string;
let alice: Awaited<ReturnType<typeof signedInCaller>>;
let bob: Awaited<ReturnType<typeof signedInCaller>>;
let bobToken: string;
const clientSaw: string[] = [];

beforeAll(async () => {
  // This process's pino output (the console's API and the route), as it writes it.
  logger.level = "debug";
  const write = process.stdout.write.bind(process.stdout);
  vi.spyOn(process.stdout, "write").mockImplementation(((chunk: string | Uint8Array, ...rest: never[]) => {
    webLog.push(String(chunk));
    return write(chunk, ...rest);
  }) as typeof process.stdout.write);

  await startRoute();
  upstream = await startLeakyUpstream();
  const bridgePort = await freePort();
  const bridgeSecret = randomBytes(24).toString("hex");
  process.env.BRIDGE_SECRET = bridgeSecret;
  process.env.BRIDGE_URL = `http://127.0.0.1:${bridgePort}`;

  liveRedis = (redis() as Redis).duplicate(); // one server in this suite (not run on the cluster)
  await liveRedis.psubscribe(`${process.env.REDIS_PREFIX}:*`);
  liveRedis.on("pmessage", (_p, _c, message) => void liveMessages.push(message));

  alice = await signedInCaller("alice");
  bob = await signedInCaller("bob");
  const team = await alice.caller.team.create({ name: `Redaction ${marker().slice(0, 6)}` });
  teamId = team.id;
  await getDb().membership.create({ data: { id: `m-${marker()}`, teamId, userId: bob.userId, role: "member" } });

  const httpTemplate = await seedTemplate(getDb(), {
    teamId,
    slug: "leakyhttp",
    name: "Leaky HTTP",
    transport: "streamable_http",
    url: upstream.url,
    fields: [
      { key: "X-Team-Key", tier: "team", kind: "header", secret: true },
      { key: "api_key", tier: "team", kind: "query", secret: true },
      { key: "Authorization", tier: "user", kind: "header", secret: true },
    ],
  });
  const stdioTemplate = await seedTemplate(getDb(), {
    teamId,
    slug: "leakystdio",
    name: "Leaky stdio",
    transport: "stdio",
    command: process.execPath,
    args: [path.resolve(import.meta.dirname, "fixtures/leaky-stdio-server.mjs")],
    fields: [
      { key: "TEAM_PEM", tier: "team", kind: "env", secret: true },
      { key: "MEMBER_KEY", tier: "user", kind: "env", secret: true },
    ],
  });
  const http = await seedInstallation(getDb(), {
    template: httpTemplate,
    teamValues: { "X-Team-Key": SECRETS.teamHeader, api_key: SECRETS.teamQuery },
    memberValues: { [bob.userId]: { Authorization: `Bearer ${SECRETS.bearer}` } },
  });
  const stdio = await seedInstallation(getDb(), {
    template: stdioTemplate,
    teamValues: { TEAM_PEM: SECRETS.pem },
    memberValues: { [bob.userId]: { MEMBER_KEY: SECRETS.memberKey } },
  });
  // What a deployment owner does first: the worker's launch check refuses a stdio server otherwise.
  await allowStdio(teamId, [{ kind: "executable", name: process.execPath }]);
  httpInstallationId = http.id;
  stdioInstallationId = stdio.id;
  bobHttp = http.instances.find((i) => i.userId === bob.userId)!.id;
  bobStdio = stdio.instances.find((i) => i.userId === bob.userId)!.id;
  bobToken = (await bob.caller.token.create({ teamId, name: "redaction" })).token;
  // The worker reconciles on start: both instances are discovered (the stdio one over its own process).
  // The stdio server's script is a fixture of this test: its sandbox may read that directory.
  worker = await startWorkerProcess({
    bridgeSecret,
    bridgePort,
    logLevel: "debug",
    readOnlyPaths: [path.resolve(import.meta.dirname, "fixtures")],
  });
}, 60_000);

afterAll(async () => {
  vi.restoreAllMocks();
  await stopRoute();
  await forgetLocalSessions();
  await worker?.stop();
  await upstream?.stop();
  await closeJobs();
  liveRedis?.disconnect();
  const keys = await redis().keys(redisKeys.everything(env().REDIS_PREFIX));
  if (keys.length) await redis().del(...keys);
  redis().disconnect();
  subscriberConnection().disconnect();
  await disconnectDb();
});

const statusOf = async (id: string) => (await getDb().instance.findUniqueOrThrow({ where: { id } })).status;
const textOf = (r: unknown) => JSON.stringify(r);

describe("secrets planted in an installation whose upstreams echo them back", () => {
  it("reach the member's own client as the upstream sent them, and never the stored request log", async () => {
    await expect.poll(() => statusOf(bobHttp), { timeout: 45_000, interval: 250 }).toBe("online");
    await expect.poll(() => statusOf(bobStdio), { timeout: 45_000, interval: 250 }).toBe("online");
    const { client } = await connectClient(bobToken);

    // Tool results: relayed as the upstream sent them (the member's client legitimately receives them).
    const who = await client.callTool({ name: "leakyhttp-whoami", arguments: { note: `my token ${SECRETS.bearer}` } });
    expect(textOf(who.content)).toContain(M.bearer);
    const env = await client.callTool({ name: "leakystdio-env", arguments: { note: SECRETS.memberKey } });
    expect(textOf(env.content)).toContain(M.memberKey);

    // JSON-RPC errors quoting the request / the environment.
    await expect(client.readResource({ uri: "leakyhttp|leak://x" })).rejects.toThrow(/access denied/);
    // A member who puts their own key in a resource URI: the request log's target is text like the rest.
    await expect(client.readResource({ uri: `leakyhttp|leak://${SECRETS.bearer}` })).rejects.toThrow(/access denied/);
    await expect(client.readResource({ uri: "leakystdio|leak://x" })).rejects.toThrow(/cannot read/);

    // The upstream breaks and answers 503 with the request in its body: the call fails after its retries.
    upstream.failing = true;
    const failed = await client.callTool({ name: "leakyhttp-whoami", arguments: {} });
    expect(failed.isError).toBe(true);
    clientSaw.push(textOf(failed.content));
    expect(leaksIn("the proxy's own failure message", failed.content)).toEqual([]);

    // The stdio server writes its secrets to stderr and exits on its own.
    await client.callTool({ name: "leakystdio-crash", arguments: {} });
    await client.close();

    await callLogWriter().flush();
    await expect
      .poll(async () => getDb().toolCallLog.count({ where: { teamId } }), { timeout: 10_000, interval: 100 })
      .toBeGreaterThanOrEqual(7);
    const rows = await getDb().toolCallLog.findMany({ where: { teamId }, orderBy: { createdAt: "asc" } });
    expect(leaksIn("the request log", rows)).toEqual([]);
    // The echoes did reach the log, redacted in place.
    expect(textOf(rows.map((r) => r.arguments))).toContain("my token [redacted]");
    expect(rows.map((r) => r.target)).toContain("leak://[redacted]");
    expect(rows.filter((r) => r.errorMessage?.includes("[redacted]")).length).toBeGreaterThanOrEqual(2);
  }, 90_000);

  it("leave no trace in statuses, events, stderr tails or live events, and members see no raw detail", async () => {
    // The failed call moved the HTTP instance off line; the worker records it and starts retrying.
    await expect.poll(() => statusOf(bobHttp), { timeout: 20_000, interval: 200 }).toMatch(/offline|error|connecting/);
    await expect
      .poll(async () => getDb().instanceEvent.count({ where: { instanceId: bobHttp, type: "server_reconnecting" } }), {
        timeout: 20_000,
        interval: 200,
      })
      .toBeGreaterThan(0);
    // "Reconnect now" from the member: a discovery that fails on the 503 (logged by the worker with its error).
    await expect.poll(() => statusOf(bobHttp), { timeout: 20_000, interval: 200 }).toMatch(/offline|error/);
    await bob.caller.ops.reconnect({ teamId, instanceId: bobHttp });
    await expect
      .poll(async () => getDb().instanceEvent.count({ where: { instanceId: bobHttp, type: "discovery_failed" } }), {
        timeout: 30_000,
        interval: 200,
      })
      .toBeGreaterThan(0);
    await expect
      .poll(async () => (await getDb().instance.findUniqueOrThrow({ where: { id: bobStdio } })).stderrTail ?? "", {
        timeout: 30_000,
        interval: 200,
      })
      .toContain("leaky: fatal");

    const instances = await getDb().instance.findMany({ where: { installation: { teamId } } });
    const events = await getDb().instanceEvent.findMany({ where: { instance: { installation: { teamId } } } });
    expect(leaksIn("instances (statusMessage, lastError, stderrTail)", instances)).toEqual([]);
    expect(leaksIn("instance events", events)).toEqual([]);
    expect(leaksIn("live events on Redis", liveMessages)).toEqual([]);

    const stdioRow = instances.find((i) => i.id === bobStdio)!;
    expect(stdioRow.stderrTail).toContain("key was [redacted]");
    const httpRow = instances.find((i) => i.id === bobHttp)!;
    expect(`${httpRow.statusMessage} ${httpRow.lastError}`).toContain("[redacted]");
    expect(textOf(events.filter((e) => e.type === "discovery_failed").map((e) => e.payload))).toContain("[redacted]");
    expect(liveMessages.some((m) => m.includes("[redacted]"))).toBe(true);

    // The member: their status and message, no stderr tail, no raw upstream error.
    const asBob = await tRpcSurfaces(bob.caller);
    expect(leaksIn("tRPC answers to the member", asBob)).toEqual([]);
    const bobGet = await bob.caller.instance.get({ teamId, instanceId: bobStdio });
    expect(bobGet.stderrTail).toBeNull();
    expect(bobGet.lastError).toBeNull();
    const bobEvents = await bob.caller.instance.events({ teamId, instanceId: bobStdio, limit: 100 });
    const crashed = bobEvents.items.filter((e) => e.type === "server_crashed");
    expect(crashed.length).toBeGreaterThan(0);
    for (const e of crashed) expect(e.payload).not.toHaveProperty("stderrTail");
    // A failure status reads as a sentence for the member; the admin gets the (redacted) upstream error.
    const bobHttpGet = await bob.caller.instance.get({ teamId, instanceId: bobHttp });
    expect(bobHttpGet.statusMessage).toBe(MEMBER_FAILURE_MESSAGES[bobHttpGet.status]);
    // The admin reads one sentence as the message and the raw (redacted, bounded) upstream text behind it.
    const aliceHttpGet = await alice.caller.instance.get({ teamId, instanceId: bobHttp });
    expect(aliceHttpGet.statusMessage!.length).toBeLessThanOrEqual(160);
    expect(aliceHttpGet.lastError).toContain("[redacted]");
    const bobHttpEvents = await bob.caller.instance.events({ teamId, instanceId: bobHttp, limit: 100 });
    const toFailure = bobHttpEvents.items.filter(
      (e) => e.type === "status_changed" && (e.payload.to === "offline" || e.payload.to === "error"),
    );
    expect(toFailure.length).toBeGreaterThan(0);
    for (const e of toFailure)
      expect(e.payload.message).toBe(MEMBER_FAILURE_MESSAGES[e.payload.to as "offline" | "error"]);
    for (const e of bobHttpEvents.items) {
      expect(e.payload).not.toHaveProperty("lastError");
      if (e.type === "discovery_failed") expect(e.payload).not.toHaveProperty("error");
    }

    // The admin: the detail, redacted.
    const asAlice = await tRpcSurfaces(alice.caller);
    expect(leaksIn("tRPC answers to the admin", asAlice)).toEqual([]);
    const aliceGet = await alice.caller.instance.get({ teamId, instanceId: bobStdio });
    expect(aliceGet.stderrTail).toContain("key was [redacted]");
    const aliceEvents = await alice.caller.instance.events({ teamId, instanceId: bobStdio, limit: 100 });
    expect(textOf(aliceEvents.items.filter((e) => e.type === "server_crashed"))).toContain("[redacted]");
  }, 90_000);

  it("leave no trace in the logs the web and worker processes wrote", async () => {
    const workerOut = worker.output();
    expect(workerOut).toContain('"msg":"discovery failed"');
    expect(leaksIn("the worker's log output", workerOut)).toEqual([]);
    expect(workerOut).toContain("[redacted]");
    // A log call that passes an upstream's words as they came (as the route's error paths do): the web
    // process's log stream knows the secrets the route loaded for the instance.
    logger
      .child({ instanceId: bobHttp })
      .warn(
        { err: new Error(`upstream said: bad token ${SECRETS.bearer} for ${SECRETS.teamQuery}`) },
        "upstream error",
      );
    const webOut = webLog.join("");
    expect(webOut).toContain('"msg":"upstream error"');
    expect(webOut).toContain("bad token [redacted]");
    expect(leaksIn("this process's log output", webOut)).toEqual([]);
    expect(leaksIn("what the member's client saw from the proxy itself", clientSaw)).toEqual([]);
  });
});

/** Every console procedure that shows instance state, events or the request log, as this caller sees them. */
async function tRpcSurfaces(caller: Awaited<ReturnType<typeof signedInCaller>>["caller"]) {
  const out: unknown[] = [];
  out.push(await caller.instance.matrix({ teamId, limit: 100 }));
  out.push(await caller.instance.mine({ teamId, limit: 100 }));
  for (const installationId of [httpInstallationId, stdioInstallationId]) {
    out.push(await caller.instance.ofInstallation({ teamId, installationId, limit: 100 }));
    const log = await caller.ops.teamRequestLog({ teamId, installationId, limit: 100 });
    out.push(log);
    for (const row of log.items) out.push(await caller.ops.requestLogEntry({ teamId, callId: row.id }));
  }
  for (const instanceId of [bobHttp, bobStdio]) {
    out.push(await caller.instance.get({ teamId, instanceId }));
    out.push(await caller.instance.events({ teamId, instanceId, limit: 100 }));
  }
  return out;
}
