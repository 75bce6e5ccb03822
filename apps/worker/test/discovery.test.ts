import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reconnectDelayBounds } from "@switchboard/core/policies";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { listToolNames } from "@switchboard/db/queries/catalogue";
import { listInstanceEvents } from "@switchboard/db/queries/events";
import { makeInstance } from "./support/fixtures";
import { createHarness, FAST_BACKOFF_FACTOR, JOB_NAMES, type Harness } from "./support/harness";
import { TestUpstream } from "@switchboard/testing/upstream";

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
      .poll(() => h.live.filter((e) => e.instanceId === instance.id && e.type === "status_changed").map((e) => e.payload))
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
    expect(row.statusMessage).toMatch(/ECONNREFUSED|fetch failed/i);
    expect(row.toolCount).toBe(0);
    await expect.poll(async () => (await db.instance.findUniqueOrThrow({ where: { id: instance.id } })).reconnectAttempt).toBeGreaterThanOrEqual(1);
    const failed = await listInstanceEvents(db, { instanceId: instance.id, types: ["discovery_failed"] });
    expect(failed[0]?.payload).toMatchObject({ keptCachedTools: false });
  });

  it("goes offline when the upstream dies, retries within the jitter bounds, and comes back online with the same tools", async () => {
    const u = await upstream(["alpha", "beta", "gamma"]);
    const { instance } = await makeInstance(db, { url: u.url });
    await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
    await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("online");
    const before = await listToolNames(db, instance.id);

    await u.stop();
    // What the proxy route reports after its retries failed (core StatusSink.callFailed).
    await h.add(JOB_NAMES.callFailed, { instanceId: instance.id, status: "offline", message: "fetch failed (ECONNREFUSED)" });
    await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("offline");
    await expect.poll(() => h.reconnectJob(instance.id), { timeout: 5_000 }).toBeDefined();

    // Let several attempts fail: each announced delay lies inside the (scaled) jitter bounds of its attempt.
    await expect
      .poll(async () => (await listInstanceEvents(db, { instanceId: instance.id, types: ["server_reconnecting"] })).length, { timeout: 20_000 })
      .toBeGreaterThanOrEqual(4);
    const reconnecting = await listInstanceEvents(db, { instanceId: instance.id, types: ["server_reconnecting"] });
    for (const e of reconnecting) {
      const { attempt, nextRetryMs } = e.payload as { attempt: number; nextRetryMs: number };
      const { min, max } = reconnectDelayBounds(attempt - 1);
      expect(nextRetryMs).toBeGreaterThanOrEqual(Math.floor(min * FAST_BACKOFF_FACTOR) - 1);
      expect(nextRetryMs).toBeLessThanOrEqual(Math.ceil(max * FAST_BACKOFF_FACTOR) + 1);
    }
    expect(reconnecting.map((e) => (e.payload as { attempt: number }).attempt)).toEqual(reconnecting.map((_, i) => i + 1));
    const waiting = await db.instance.findUniqueOrThrow({ where: { id: instance.id } });
    expect(waiting.nextRetryAt).not.toBeNull();
    expect(waiting.lastError).toMatch(/ECONNREFUSED|fetch failed/i);

    await u.restart();
    await expect.poll(() => statusOf(instance.id), { timeout: 20_000 }).toBe("online");
    expect(await listToolNames(db, instance.id)).toEqual(before);
    const after = await db.instance.findUniqueOrThrow({ where: { id: instance.id } });
    expect(after).toMatchObject({ reconnectAttempt: 0, nextRetryAt: null });
    // The event follows the status change: wait for it rather than racing it.
    await expect.poll(async () => (await listInstanceEvents(db, { instanceId: instance.id, types: ["server_reconnected"] })).length).toBe(1);
    const reconnected = await listInstanceEvents(db, { instanceId: instance.id, types: ["server_reconnected"] });
    expect((reconnected[0]?.payload as { attemptsTaken: number }).attemptsTaken).toBeGreaterThanOrEqual(4);
    await expect.poll(() => h.reconnectJob(instance.id)).toBeUndefined();
  });
});
