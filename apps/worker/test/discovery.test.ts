import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backoffBounds } from "@switchboard/core/policies";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { listToolNames } from "@switchboard/db/queries/catalogue";
import { listInstanceEvents } from "@switchboard/db/queries/instance-events";
import { makeInstance } from "./support/fixtures";
import { createHarness, FAST_RECONNECT, JOB_NAMES, type Harness } from "./support/harness";
import { TestUpstream } from "@switchboard/testing/upstream";
import { Upstream2026 } from "@switchboard/testing/upstream-2026";

const db = getDb();
let h: Harness;
const upstreams: TestUpstream[] = [];

beforeAll(async () => {
  h = await createHarness("discovery");
});
afterAll(async () => {
  await h?.close();
  await Promise.all(upstreams.map((u) => u.stop()));
  await disconnectDb();
});

async function upstream(tools?: string[]) {
  const u = await TestUpstream.start(tools);
  upstreams.push(u);
  return u;
}

async function statusOf(id: string) {
  return (await db.instance.findUniqueOrThrow({ where: { id } })).status;
}

describe("discovery", () => {
  it("stores the revision an upstream speaks: 2026-07-28 after server/discover, 2025-11-25 after initialize", async () => {
    const rev2026 = await Upstream2026.start();
    const old = await upstream(["echo"]);
    try {
      const { instance: m } = await makeInstance(db, { url: rev2026.url });
      const { instance: o } = await makeInstance(db, { url: old.url });
      await h.add(JOB_NAMES.discover, { instanceId: m.id, reason: "provisioned" });
      await h.add(JOB_NAMES.discover, { instanceId: o.id, reason: "provisioned" });
      await expect.poll(() => statusOf(m.id), { timeout: 15_000 }).toBe("online");
      await expect.poll(() => statusOf(o.id), { timeout: 15_000 }).toBe("online");
      const row = await db.instance.findUniqueOrThrow({ where: { id: m.id } });
      expect(row).toMatchObject({ protocolVersion: "2026-07-28", toolCount: 4, lastError: null });
      expect(row.serverInfo).toEqual({ name: "rev2026-upstream", version: "2.0.0" });
      expect(await listToolNames(db, m.id)).toEqual(["echo", "add", "work", "confirm"]);
      // The upstream speaks 2026-07-28 only: it never saw an initialize, and every request named its method.
      expect(rev2026.methods[0]).toBe("server/discover");
      expect(rev2026.methods).not.toContain("initialize");
      expect(rev2026.seen.every((r) => r.headers["mcp-method"] === r.method)).toBe(true);
      expect((await db.instance.findUniqueOrThrow({ where: { id: o.id } })).protocolVersion).toBe("2025-11-25");
    } finally {
      await rev2026.stop();
    }
  });

  it("records which tools a remote server lists only to clients that can answer its requests", async () => {
    const u = await upstream(["echo", "summarize"]);
    u.samplingOnly = ["summarize"];
    const { instance } = await makeInstance(db, { url: u.url });
    await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
    await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("online");
    const tools = await db.instanceTool.findMany({ where: { instanceId: instance.id }, orderBy: { position: "asc" } });
    expect(tools.map((t) => [t.name, t.needsClientCapabilities])).toEqual([
      ["echo", false],
      ["summarize", true],
    ]);
  });

  it("walks provisioning to online through every status, with its time and event, and stores the catalogue", async () => {
    const u = await upstream(["echo", "add"]);
    const { instance } = await makeInstance(db, { url: u.url });
    await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });

    await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("online");
    expect(await h.statusesOf(instance.id)).toEqual([
      "provisioning",
      "command_received",
      "connecting",
      "discovering_tools",
      "syncing_tools",
      "online",
    ]);
    expect(await listToolNames(db, instance.id)).toEqual(["echo", "add"]);
    const row = await db.instance.findUniqueOrThrow({ where: { id: instance.id }, include: { resources: true } });
    expect(row).toMatchObject({ toolCount: 2, reconnectAttempt: 0, lastError: null });
    expect(row.resources.map((r) => r.uri)).toEqual(["test://readme"]);
    expect(row.discoveredAt).not.toBeNull();
    expect(await h.eventTypes(instance.id)).toContain("discovery_completed");

    // Every status change was published live, in order, with the member's ids.
    await expect
      .poll(() =>
        h.live.filter((e) => e.instanceId === instance.id && e.type === "status_changed").map((e) => e.payload),
      )
      .toContainEqual({ from: "syncing_tools", to: "online" });
    const published = h.live.filter((e) => e.instanceId === instance.id);
    expect(published.every((e) => e.userId === instance.userId && e.teamId === instance.teamId)).toBe(true);
    expect(published.map((e) => e.type)).toContain("catalogue_changed");
  });

  it("writes the classified status on failure, keeps no catalogue it did not get, and schedules a reconnect", async () => {
    const u = await upstream();
    await u.stop(); // a port nobody listens on: connection refused
    const { instance } = await makeInstance(db, { url: u.url });
    await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });

    await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("offline");
    const row = await db.instance.findUniqueOrThrow({ where: { id: instance.id } });
    expect(row.statusMessage).toMatch(/^Nothing answers at this address \(connection refused\)/);
    expect(row.lastError).toMatch(/ECONNREFUSED|fetch failed/i);
    expect(row.toolCount).toBe(0);
    await expect
      .poll(async () => (await db.instance.findUniqueOrThrow({ where: { id: instance.id } })).reconnectAttempt)
      .toBeGreaterThanOrEqual(1);
    const failed = await listInstanceEvents(db, { instanceId: instance.id, types: ["discovery_failed"] });
    expect(failed[0]?.payload).toMatchObject({ keptCachedTools: false });
  });

  it("stores one sentence for an upstream that answers with an HTML page, with the page's text bounded as detail", async () => {
    const page = `<!doctype html><html><head><title>Login required</title></head><body>${"<p>Sign in to continue</p>".repeat(4000)}</body></html>`;
    const server = createServer((_req, res) => {
      res.writeHead(404, { "content-type": "text/html" }).end(page);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { instance } = await makeInstance(db, {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/wrong`,
      });
      await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
      await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toMatch(/^(error|offline)$/);
      const row = await db.instance.findUniqueOrThrow({ where: { id: instance.id } });
      expect(row.statusMessage).toMatch(/^The server answered with a web page, not MCP.*check the URL's path\.$/);
      expect(row.statusMessage!.length).toBeLessThanOrEqual(160);
      expect(row.lastError!.length).toBeLessThanOrEqual(2000);
      expect(row.lastError).not.toContain("<");
      const changed = await listInstanceEvents(db, { instanceId: instance.id, types: ["status_changed"] });
      const failure = changed
        .map((e) => e.payload as { message?: string; detail?: string })
        .find((p) => p.message?.startsWith("The server answered"));
      expect(failure?.detail).toContain("Sign in to continue");
      expect(failure!.detail!.length).toBeLessThanOrEqual(2000);
      const failedEvents = await listInstanceEvents(db, { instanceId: instance.id, types: ["discovery_failed"] });
      expect(String((failedEvents[0]?.payload as { error?: string }).error).length).toBeLessThanOrEqual(2000);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("goes offline when the upstream dies, retries within the jitter bounds, and comes back online with the same tools", async () => {
    const u = await upstream(["alpha", "beta", "gamma"]);
    const { instance } = await makeInstance(db, { url: u.url });
    await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
    await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("online");
    const before = await listToolNames(db, instance.id);

    await u.stop();
    // What the proxy route reports after its retries failed (core StatusSink.callFailed).
    await h.add(JOB_NAMES.callFailed, {
      instanceId: instance.id,
      status: "offline",
      message: "fetch failed (ECONNREFUSED)",
    });
    await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("offline");
    await expect.poll(() => h.reconnectJob(instance.id), { timeout: 5_000 }).toBeDefined();

    // Let several attempts fail: each announced delay lies inside the (scaled) jitter bounds of its attempt.
    await expect
      .poll(
        async () => (await listInstanceEvents(db, { instanceId: instance.id, types: ["server_reconnecting"] })).length,
        { timeout: 20_000 },
      )
      .toBeGreaterThanOrEqual(4);
    const reconnecting = await listInstanceEvents(db, { instanceId: instance.id, types: ["server_reconnecting"] });
    for (const e of reconnecting) {
      const { attempt, nextRetryMs } = e.payload as { attempt: number; nextRetryMs: number };
      const { min, max } = backoffBounds(FAST_RECONNECT, attempt - 1);
      expect(nextRetryMs).toBeGreaterThanOrEqual(min - 1);
      expect(nextRetryMs).toBeLessThanOrEqual(max + 1);
    }
    expect(reconnecting.map((e) => (e.payload as { attempt: number }).attempt)).toEqual(
      reconnecting.map((_, i) => i + 1),
    );
    const waiting = await db.instance.findUniqueOrThrow({ where: { id: instance.id } });
    expect(waiting.nextRetryAt).not.toBeNull();
    expect(waiting.lastError).toMatch(/ECONNREFUSED|fetch failed/i);

    await u.restart();
    await expect.poll(() => statusOf(instance.id), { timeout: 20_000 }).toBe("online");
    expect(await listToolNames(db, instance.id)).toEqual(before);
    const after = await db.instance.findUniqueOrThrow({ where: { id: instance.id } });
    expect(after).toMatchObject({ reconnectAttempt: 0, nextRetryAt: null });
    // The event follows the status change: wait for it rather than racing it.
    await expect
      .poll(
        async () => (await listInstanceEvents(db, { instanceId: instance.id, types: ["server_reconnected"] })).length,
      )
      .toBe(1);
    const reconnected = await listInstanceEvents(db, { instanceId: instance.id, types: ["server_reconnected"] });
    expect((reconnected[0]?.payload as { attemptsTaken: number }).attemptsTaken).toBeGreaterThanOrEqual(4);
    await expect.poll(() => h.reconnectJob(instance.id)).toBeUndefined();
  });
});
