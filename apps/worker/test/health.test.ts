import type { Job } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HEALTH_POLICY } from "@switchboard/core/policies";
import { jobIds } from "@switchboard/core/contracts";
import { healthSchedule } from "@switchboard/core/policies";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { listInstanceEvents } from "@switchboard/db/queries/instance-events";
import { makeInstance } from "./support/fixtures";
import { createHarness, JOB_NAMES, type Harness } from "./support/harness";
import { TestUpstream } from "@switchboard/testing/upstream";
import { Upstream2026 } from "@switchboard/testing/upstream-2026";

const db = getDb();
let h: Harness;
const upstreams: TestUpstream[] = [];
const INTERVAL = 300;

beforeAll(async () => {
  h = await createHarness("health", { tunables: { healthIntervalMs: INTERVAL, healthTimeoutMs: 2_000 } });
});
afterAll(async () => {
  await h?.close();
  await Promise.all(upstreams.map((u) => u.stop()));
  await disconnectDb();
});

const statusOf = async (id: string) => (await db.instance.findUniqueOrThrow({ where: { id } })).status;

/** A real upstream, and an instance of it discovered online by the worker. */
async function onlineUpstream() {
  const u = await TestUpstream.start();
  upstreams.push(u);
  const { instance } = await makeInstance(db, { url: u.url });
  await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
  await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("online");
  return { u, instance };
}

describe("health checks", () => {
  it("checks a 2026-07-28 upstream with server/discover, since that revision has no ping", async () => {
    const u = await Upstream2026.start();
    try {
      const { instance } = await makeInstance(db, { url: u.url });
      await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
      await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("online");
      const discoveries = u.methods.filter((m) => m === "server/discover").length;
      // Polled, not read once: a check may already have written lastHealthyAt before the count above was taken.
      await expect
        .poll(() => u.methods.filter((m) => m === "server/discover").length, { timeout: 10_000 })
        .toBeGreaterThan(discoveries);
      await expect
        .poll(async () => (await db.instance.findUniqueOrThrow({ where: { id: instance.id } })).lastHealthyAt, {
          timeout: 10_000,
        })
        .not.toBeNull();
      expect(u.methods).not.toContain("ping");
      expect((await db.instance.findUniqueOrThrow({ where: { id: instance.id } })).healthDegraded).toBe(false);
    } finally {
      await u.stop();
    }
  });

  it("schedules one health job scheduler per online instance, spread around the interval", async () => {
    const { instance } = await onlineUpstream();
    const scheduler = await h.queue.getJobScheduler(jobIds.healthScheduler(instance.id));
    expect(scheduler?.every).toBe(healthSchedule(instance.id, INTERVAL).everyMs);
    // Production values: 120 s ± 10%.
    const prod = healthSchedule(instance.id).everyMs;
    expect(prod).toBeGreaterThanOrEqual(HEALTH_POLICY.intervalMs * 0.9);
    expect(prod).toBeLessThanOrEqual(HEALTH_POLICY.intervalMs * 1.1);
    await expect
      .poll(async () => (await db.instance.findUniqueOrThrow({ where: { id: instance.id } })).lastHealthyAt, {
        timeout: 10_000,
      })
      .not.toBeNull();
  });

  it("does not write an unchanged healthy check again until the refresh period has passed", async () => {
    const u = await TestUpstream.start();
    upstreams.push(u);
    const { instance } = await makeInstance(db, { url: u.url });
    let checks = 0;
    const running = new Set<string | undefined>();
    const ours = (job: Job) => job.name === JOB_NAMES.health && job.data.instanceId === instance.id;
    h.app.worker.on("active", (job) => {
      if (ours(job)) running.add(job.id);
    });
    h.app.worker.on("completed", (job) => {
      if (!ours(job)) return;
      running.delete(job.id);
      checks++;
    });
    h.app.worker.on("failed", (job) => {
      if (job && ours(job)) running.delete(job.id);
    });
    await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
    await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("online");
    await expect
      .poll(async () => (await db.instance.findUniqueOrThrow({ where: { id: instance.id } })).lastHealthCheckAt, {
        timeout: 10_000,
      })
      .not.toBeNull();
    // Checks that had started when the first one was written may have read "never checked" and write too (checks
    // overlap when one outlasts the 300 ms interval, as under load, so there may be any number of them): let
    // every one of them finish and flush before taking the reference. Checks starting later read the write.
    const startedBefore = [...running];
    await expect.poll(() => startedBefore.some((id) => running.has(id)), { timeout: 15_000 }).toBe(false);
    await h.app.deps.health.flush();
    const first = (await db.instance.findUniqueOrThrow({ where: { id: instance.id } })).lastHealthCheckAt;
    const after = checks;
    await expect.poll(() => checks, { timeout: 15_000 }).toBeGreaterThanOrEqual(after + 3);
    await h.app.deps.health.flush();
    expect((await db.instance.findUniqueOrThrow({ where: { id: instance.id } })).lastHealthCheckAt).toEqual(first);
  });

  it("takes an instance whose upstream answers 503 to three checks in a row out of online, and back when it recovers", async () => {
    const { u, instance } = await onlineUpstream();

    u.failing = true; // up, but answering 503
    await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("offline");
    const degraded = await listInstanceEvents(db, { instanceId: instance.id, types: ["server_health_degraded"] });
    expect(degraded).toHaveLength(1);
    expect(degraded[0]?.payload).toMatchObject({ consecutiveFailures: 3 });
    expect((await db.instance.findUniqueOrThrow({ where: { id: instance.id } })).statusMessage).toBe(
      "The server is unavailable right now (HTTP 503).",
    );
    // Written right after the status.
    await expect.poll(() => h.eventTypes(instance.id)).toContain("server_disconnected");

    // The reconnect loop probes it now (health checks are for online instances) and brings it back.
    u.failing = false;
    await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("online");
    const row = await db.instance.findUniqueOrThrow({ where: { id: instance.id } });
    expect(row).toMatchObject({ healthDegraded: false, healthConsecutiveFailures: 0 });
    await expect.poll(() => h.eventTypes(instance.id)).toContain("server_reconnected");
    // Published after the row is written, and delivered through Redis: it may arrive after the row is read.
    await expect
      .poll(() =>
        h.live.some(
          (e) =>
            e.instanceId === instance.id &&
            e.type === "status_changed" &&
            (e.payload as { to?: string }).to === "offline",
        ),
      )
      .toBe(true);
  });

  it("takes an instance whose upstream stopped out of online without any call, and back when it starts again", async () => {
    const { u, instance } = await onlineUpstream();

    // Nothing calls it (no route runs here): the health checks alone have to notice.
    await u.stop();
    await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("offline");
    expect((await db.instance.findUniqueOrThrow({ where: { id: instance.id } })).statusMessage).toMatch(
      /connection refused/,
    );

    await u.restart();
    await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("online");
    // Checked again, as every online instance is.
    expect(await h.queue.getJobScheduler(jobIds.healthScheduler(instance.id))).toBeDefined();
  });
});
