import { randomBytes } from "node:crypto";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import type { WorkerApp } from "../src/app";
import { bridgePath } from "../src/bridge/server";
import { bridgeFetch, nodeFetch } from "@switchboard/core/upstream";
import { makeInstance } from "./support/fixtures";
import { createHarness, JOB_NAMES, type Harness } from "./support/harness";
import { processesWith, serverProcesses } from "@switchboard/testing/processes";

const db = getDb();
const SECRET = randomBytes(24).toString("hex");
const CRASHY = path.join(import.meta.dirname, "fixtures", "crashy-server.mjs");
let h: Harness;
let a: WorkerApp;
let b: WorkerApp;
const clients: Client[] = [];

const bridge = { host: "127.0.0.1", port: 0, secret: SECRET, leaseTtlMs: 1_500 };

beforeAll(async () => {
  h = await createHarness("bridge", { bridge: { ...bridge, workerId: "worker-a" } });
  a = h.app;
  b = await h.start({ bridge: { ...bridge, workerId: "worker-b" }, reconcileOnStart: false });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await h?.close();
  await disconnectDb();
});

async function connect(url: string, secret = SECRET) {
  const client = new Client({ name: "bridge-test", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
    }),
  );
  clients.push(client);
  return client;
}

async function onlineStdio(script = CRASHY) {
  const marker = `bridge-${randomBytes(4).toString("hex")}`;
  const { instance } = await makeInstance(db, { stdio: { command: process.execPath, args: [script, marker] } });
  await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
  await expect
    .poll(async () => (await db.instance.findUniqueOrThrow({ where: { id: instance.id } })).status, { timeout: 20_000 })
    .toBe("online");
  const holder = await a.leases!.holder(instance.id);
  const [owner, other] = holder?.workerId === "worker-a" ? [a, b] : [b, a];
  return { instance, marker, owner, other };
}

describe("stdio bridge", () => {
  it("serves a hosted stdio server to several MCP clients over one process, authenticated", async () => {
    const { instance, marker, owner } = await onlineStdio();
    const url = new URL(bridgePath(instance.id), owner.bridgeUrl).toString();
    const one = await connect(url);
    const two = await connect(url);
    expect((await one.listTools()).tools.map((t) => t.name)).toEqual(["boom", "calm"]);
    expect(await two.callTool({ name: "calm", arguments: {} })).toMatchObject({
      content: [{ type: "text", text: "calm" }],
    });
    expect(serverProcesses(marker)).toHaveLength(1);
    expect(owner.bridge!.sessionCount(instance.id)).toBe(2);

    const denied = await fetch(url, {
      method: "POST",
      headers: { authorization: "Bearer wrong", "content-type": "application/json" },
      body: "{}",
    });
    expect(denied.status).toBe(401);

    // A 2026-07-28 request (a connection's server/discover probe) is refused at once and opens nothing: the
    // route then initializes a 2025-11-25 session with the bridge.
    const probe = await fetch(url, {
      method: "POST",
      headers: {
        authorization: `Bearer ${SECRET}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-method": "server/discover",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: {} }),
    });
    expect(probe.status).toBe(400);
    expect(((await probe.json()) as { error: { message: string } }).error.message).toMatch(/2025-11-25 sessions/);
    expect(owner.bridge!.sessionCount(instance.id)).toBe(2);

    // A first POST that is not an initialize, or not JSON at all, is refused before a session is set up for it.
    const post = (body: string) =>
      fetch(url, {
        method: "POST",
        headers: {
          authorization: `Bearer ${SECRET}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body,
      });
    const notInitialize = await post(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list", params: {} }));
    expect(notInitialize.status).toBe(400);
    expect(await notInitialize.json()).toMatchObject({ id: 7, error: { message: /send an initialize request/ } });
    expect((await post("{not json")).status).toBe(400);
    expect(owner.bridge!.sessionCount(instance.id)).toBe(2);
  });

  it("relays a call's progress and log messages to the session that made it", async () => {
    const { instance, owner } = await onlineStdio(path.join(import.meta.dirname, "fixtures", "progress-server.mjs"));
    const client = await connect(new URL(bridgePath(instance.id), owner.bridgeUrl).toString());
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
    const progress: number[] = [];
    const result = await client.callTool({ name: "work", arguments: {} }, undefined, {
      onprogress: (p) => void progress.push(p.progress),
    });
    expect(result).toMatchObject({ content: [{ type: "text", text: "done" }] });
    expect(progress).toEqual([1, 2, 3]);
    expect(logs).toEqual(["working"]);
  });

  it("runs each process on exactly one worker: the other one is redirected and reaches it over HTTP", async () => {
    const { instance, marker, owner, other } = await onlineStdio();
    const redirected = await fetch(new URL(bridgePath(instance.id), other.bridgeUrl), {
      method: "POST",
      headers: {
        authorization: `Bearer ${SECRET}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    });
    expect(redirected.status).toBe(421);
    expect(redirected.headers.get("x-switchboard-bridge")).toBe(owner.bridgeUrl);

    // The route's connection (core bridgeFetch) follows the 421 to the holder: a lease that moved since the route
    // looked it up costs one more request, not a failed call.
    const routed = new Client({ name: "route", version: "1" });
    await routed.connect(
      new StreamableHTTPClientTransport(new URL(bridgePath(instance.id), other.bridgeUrl), {
        requestInit: { headers: { authorization: `Bearer ${SECRET}` } },
        fetch: bridgeFetch(nodeFetch),
      }),
    );
    clients.push(routed);
    expect(await routed.callTool({ name: "calm", arguments: {} })).toMatchObject({
      content: [{ type: "text", text: "calm" }],
    });
    expect(owner.bridge!.sessionCount(instance.id)).toBe(1);
    expect(other.bridge!.sessionCount(instance.id)).toBe(0);

    // The other worker's own jobs reach the process through the owner's bridge: still one process.
    const viaOther = await other.deps.connections.get(instance.id);
    expect(await viaOther.callTool({ name: "calm", arguments: {} })).toMatchObject({
      content: [{ type: "text", text: "calm" }],
    });
    expect(serverProcesses(marker)).toHaveLength(1);
  });

  it("hands the process over when its worker stops, and a lease that is not renewed expires", async () => {
    const { instance, marker, owner, other } = await onlineStdio();
    const first = serverProcesses(marker);
    expect(first).toHaveLength(1);
    await owner.close();
    await expect.poll(() => processesWith(marker), { timeout: 5_000 }).toEqual([]);
    expect(await other.leases!.holder(instance.id)).toBeNull();

    await vi.waitFor(
      async () => {
        const c = await other.deps.connections.get(instance.id);
        expect(await c.callTool({ name: "calm", arguments: {} })).toMatchObject({
          content: [{ type: "text", text: "calm" }],
        });
      },
      { timeout: 15_000, interval: 200 },
    );
    expect(serverProcesses(marker)).toHaveLength(1);
    expect((await other.leases!.holder(instance.id))?.url).toBe(other.bridgeUrl);

    // A worker that dies stops renewing: its lease is gone after the TTL and anyone may take it.
    other.leases!.abandon();
    await expect.poll(() => other.leases!.holder(instance.id), { timeout: 5_000 }).toBeNull();
    await other.deps.connections.evict(instance.id);
    await expect.poll(() => processesWith(marker), { timeout: 5_000 }).toEqual([]);
  });
});
