import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { nextReconnectDelay, RECONNECT_EVENT_THROTTLE_MS, reconnectDelayBounds } from "@switchboard/core/policies";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { listInstanceEvents } from "@switchboard/db/queries/instance-events";
import { getInstanceState } from "@switchboard/db/queries/instance-lifecycle";
import { recordNextAttempt } from "../src/reconnect-schedule";
import { makeInstance } from "./support/fixtures";
import { createHarness, JOB_NAMES, type Harness } from "./support/harness";
import { TestUpstream } from "@switchboard/testing/upstream";

const db = getDb();
let h: Harness;
const upstreams: TestUpstream[] = [];

beforeAll(async () => {
  h = await createHarness("reconnect");
});
afterAll(async () => {
  await h?.close();
  await Promise.all(upstreams.map((u) => u.stop()));
  await disconnectDb();
});

async function upstream() {
  const u = await TestUpstream.start();
  upstreams.push(u);
  return u;
}
const statusOf = async (id: string) => (await db.instance.findUniqueOrThrow({ where: { id } })).status;

async function onlineInstance() {
  const u = await upstream();
  const { instance } = await makeInstance(db, { url: u.url });
  await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
  await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("online");
  return { u, instance };
}

async function reconnectJobsOf(instanceId: string) {
  const jobs = await h.queue.getJobs(["delayed", "waiting", "active", "prioritized"]);
  return jobs.filter((j) => j?.name === JOB_NAMES.reconnect && j.data.instanceId === instanceId);
}

describe("reconnect loop", () => {
  it("keeps a single reconnect job per instance however many triggers arrive", async () => {
    const { u, instance } = await onlineInstance();
    await u.stop();
    await Promise.all(
      Array.from({ length: 25 }, () =>
        h.add(JOB_NAMES.callFailed, {
          instanceId: instance.id,
          status: "offline",
          message: "fetch failed (ECONNREFUSED)",
        }),
      ),
    );
    await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("offline");
    // Reconciliation is another trigger that may arrive at any time.
    await Promise.all(Array.from({ length: 5 }, () => h.app.reconcile()));
    // Several attempts go by; at every look there is exactly one reconnect job for the instance.
    for (let i = 0; i < 5; i++) {
      const jobs = await reconnectJobsOf(instance.id);
      expect(jobs.length).toBeLessThanOrEqual(1);
      await vi.waitFor(async () => expect((await reconnectJobsOf(instance.id)).length).toBe(1), { timeout: 5_000 });
    }
    await u.restart();
    await expect.poll(() => statusOf(instance.id), { timeout: 20_000 }).toBe("online");
  });

  it("leaves the new connection alone when a call that started before it failed", async () => {
    // After a worker is lost, calls that were in flight on the old connection fail while the next worker brings
    // the instance back: their reports must not take the new connection down (they did, in a loop, under load).
    const { instance } = await onlineInstance();
    const before = await getInstanceState(db, instance.id);
    const startedAt = new Date(before!.statusChangedAt!.getTime() - 1_000).toISOString();
    const stale = await Promise.all(
      Array.from({ length: 5 }, () =>
        h.queue.add(JOB_NAMES.callFailed, {
          instanceId: instance.id,
          status: "offline",
          message: "fetch failed (ECONNREFUSED)",
          startedAt,
        }),
      ),
    );
    for (const job of stale)
      await expect.poll(async () => (await h.queue.getJob(job.id!))?.getState(), { timeout: 15_000 }).toBe("completed");
    expect(await statusOf(instance.id)).toBe("online");
    expect(await h.eventTypes(instance.id)).not.toContain("server_disconnected");

    // A call that failed on the connection that is current still takes it down.
    await h.add(JOB_NAMES.callFailed, {
      instanceId: instance.id,
      status: "offline",
      message: "fetch failed (ECONNREFUSED)",
      startedAt: new Date().toISOString(),
    });
    await expect.poll(() => h.eventTypes(instance.id), { timeout: 15_000 }).toContain("server_disconnected");
  });

  it("waits the real 1 s before the first attempt", async () => {
    const real = await createHarness("reconnect-real", { tunables: { reconnectDelay: (i) => nextReconnectDelay(i) } });
    try {
      const u = await upstream();
      const { instance } = await makeInstance(db, { url: u.url });
      await real.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
      await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("online");
      await u.stop();
      const reported = Date.now();
      await real.add(JOB_NAMES.callFailed, {
        instanceId: instance.id,
        status: "offline",
        message: "connection refused",
      });
      await expect.poll(async () => (await real.reconnectJob(instance.id))?.id, { timeout: 10_000 }).toBeDefined();
      const first = (await listInstanceEvents(db, { instanceId: instance.id, types: ["server_reconnecting"] }))[0];
      const { nextRetryMs, attempt } = first?.payload as { nextRetryMs: number; attempt: number };
      expect(attempt).toBe(1);
      const { min, max } = reconnectDelayBounds(0);
      expect(nextRetryMs).toBeGreaterThanOrEqual(min);
      expect(nextRetryMs).toBeLessThanOrEqual(max);
      const job = await real.reconnectJob(instance.id);
      expect(job?.delay).toBe(nextRetryMs);

      // The attempt does run, no earlier than the first delay, and records attempt 2.
      await expect
        .poll(async () => (await getInstanceState(db, instance.id))?.reconnectAttempt, { timeout: 10_000 })
        .toBe(2);
      expect(Date.now() - reported).toBeGreaterThanOrEqual(min);
    } finally {
      await real.close();
    }
  });

  it("force reconnect cancels the scheduled retry and reconnects before its time, resetting the backoff", async () => {
    const { u, instance } = await onlineInstance();
    await u.stop();
    await h.add(JOB_NAMES.callFailed, { instanceId: instance.id, status: "offline", message: "connection refused" });
    await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("offline");
    // Push the waiting retry far away: as if the backoff had reached its cap.
    await expect.poll(() => h.reconnectJob(instance.id), { timeout: 10_000 }).toBeDefined();
    await vi.waitFor(async () => {
      const job = await h.reconnectJob(instance.id);
      expect(await job?.isDelayed()).toBe(true);
      await job?.changeDelay(180_000);
    });
    await db.instance.update({
      where: { id: instance.id },
      data: { reconnectAttempt: 9, nextRetryAt: new Date(Date.now() + 180_000) },
    });

    await u.restart();
    await h.add(JOB_NAMES.forceReconnect, { instanceId: instance.id, requestedBy: "ops" });
    await expect.poll(() => statusOf(instance.id), { timeout: 10_000 }).toBe("online");
    expect(await h.reconnectJob(instance.id)).toBeUndefined();
    const row = await db.instance.findUniqueOrThrow({ where: { id: instance.id } });
    expect(row).toMatchObject({ reconnectAttempt: 0, nextRetryAt: null });
    await expect
      .poll(
        async () =>
          (await listInstanceEvents(db, { instanceId: instance.id, types: ["server_reconnected"] })).at(-1)?.payload,
      )
      .toMatchObject({ attemptsTaken: 9 });
  });

  it("force reconnect leaves a permanently failed instance stopped with its crash history: only an admin's restart starts it", async () => {
    const { instance } = await onlineInstance();
    const crashes = [new Date(Date.now() - 2_000), new Date(Date.now() - 1_000), new Date()];
    await db.instance.update({
      where: { id: instance.id },
      data: { status: "permanently_failed", crashHistory: crashes },
    });
    const jobId = `force-reconnect-stopped-${instance.id}`;
    await h.add(JOB_NAMES.forceReconnect, { instanceId: instance.id, requestedBy: "ops" }, { jobId });
    await expect
      .poll(async () => (await h.queue.getJob(jobId))?.returnvalue, { timeout: 10_000 })
      .toEqual({ skipped: "permanently_failed" });
    const row = await db.instance.findUniqueOrThrow({ where: { id: instance.id } });
    expect(row.status).toBe("permanently_failed");
    expect(row.crashHistory).toEqual(crashes);
    expect(await h.eventTypes(instance.id)).not.toContain("server_restarted");
  });

  it("force reconnect on an online instance closes and reopens the connection", async () => {
    const { instance } = await onlineInstance();
    const before = h.app.deps.connections.peek(instance.id);
    await h.add(JOB_NAMES.forceReconnect, { instanceId: instance.id, requestedBy: "ops" });
    await expect
      .poll(
        async () => (await listInstanceEvents(db, { instanceId: instance.id, types: ["server_reconnected"] })).length,
        { timeout: 10_000 },
      )
      .toBe(1);
    const types = await h.eventTypes(instance.id);
    expect(types.indexOf("server_disconnected")).toBeLessThan(types.lastIndexOf("server_reconnected"));
    const disconnected = await listInstanceEvents(db, { instanceId: instance.id, types: ["server_disconnected"] });
    expect(disconnected[0]?.payload).toMatchObject({ wasIntentional: true });
    // The timeline can say who asked for it.
    expect(
      (await listInstanceEvents(db, { instanceId: instance.id, types: ["reconnect_requested"] }))[0]?.payload,
    ).toEqual({ requestedBy: "ops", from: "online" });
    expect(await statusOf(instance.id)).toBe("online");
    expect(h.app.deps.connections.peek(instance.id)).not.toBe(before);
  });
});

describe("reconnecting events at the maximum delay", () => {
  it("records every attempt but emits at most one server_reconnecting per 10 minutes", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const { instance } = await makeInstance(db);
      await db.instance.update({ where: { id: instance.id }, data: { status: "offline" } });
      const published: number[] = [];
      const deps = {
        ...h.app.deps,
        clock: () => new Date(),
        tunables: { ...h.app.deps.tunables, reconnectDelay: () => 180_000 },
        recorder: {
          event: async () => void published.push(Date.now()),
        },
      } as unknown as typeof h.app.deps;

      // 30 attempts at the cap, three minutes apart: 90 minutes.
      for (let attempt = 9; attempt < 39; attempt++) {
        const state = (await getInstanceState(db, instance.id))!;
        await recordNextAttempt(deps, state, { attempt, lastError: "down" });
        vi.advanceTimersByTime(180_000);
      }
      const row = await db.instance.findUniqueOrThrow({ where: { id: instance.id } });
      expect(row.reconnectAttempt).toBe(38);
      // Attempts every 3 minutes: an event every 4th attempt (12 minutes), never two within 10 minutes.
      expect(published.length).toBe(8);
      for (let i = 1; i < published.length; i++) {
        expect(published[i]! - published[i - 1]!).toBeGreaterThanOrEqual(RECONNECT_EVENT_THROTTLE_MS);
      }
    } finally {
      vi.useRealTimers();
    }
  });
});
