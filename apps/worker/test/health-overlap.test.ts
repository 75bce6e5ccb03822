import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobIds } from "@switchboard/core/contracts";
import type { InstanceEventType } from "@switchboard/core/events";
import { healthRecheckDelay } from "@switchboard/core/policies";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { listInstanceEvents } from "@switchboard/db/queries/instance-events";
import { TestUpstream } from "@switchboard/testing/upstream";
import type { JobContext } from "../src/deps";
import { processHealth } from "../src/processors/health";
import { makeInstance } from "./support/fixtures";
import { createHarness, JOB_NAMES, type Harness } from "./support/harness";

const db = getDb();
let h: Harness;
const upstreams: TestUpstream[] = [];

beforeAll(async () => {
  // Schedules a day apart, removed once the instance is online: the only checks are the ones a test runs.
  h = await createHarness("health-overlap", { tunables: { healthIntervalMs: 24 * 60 * 60_000 } });
});
afterAll(async () => {
  await h?.close();
  await Promise.all(upstreams.map((u) => u.stop()));
  await disconnectDb();
});

const ctx: JobContext = {
  logger: pino({ level: "silent" }),
  jobId: undefined,
  rescheduleSelf: async () => {
    throw new Error("a health check never reschedules itself");
  },
};

/** One health check of the instance, as its scheduled job runs it. */
const check = (instanceId: string) => processHealth({ instanceId }, ctx, h.app.deps);

/**
 * Two checks of one instance side by side, as when a check outlasts the interval and the schedule's next run
 * starts (BullMQ adds that run when this one starts): started in the same turn, they read the same state.
 */
const overlapping = (instanceId: string) => Promise.all([check(instanceId), check(instanceId)]);

async function onlineInstance() {
  const u = await TestUpstream.start();
  upstreams.push(u);
  const { instance } = await makeInstance(db, { url: u.url });
  await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
  await expect
    .poll(async () => (await db.instance.findUniqueOrThrow({ where: { id: instance.id } })).status, {
      timeout: 15_000,
    })
    .toBe("online");
  await h.app.deps.jobs.removeHealth(instance.id);
  return { u, id: instance.id };
}

const countEvents = async (instanceId: string, type: InstanceEventType) =>
  (await listInstanceEvents(db, { instanceId, types: [type] })).length;

async function healthOf(id: string) {
  const row = await db.instance.findUniqueOrThrow({ where: { id } });
  return { consecutiveFailures: row.healthConsecutiveFailures, degraded: row.healthDegraded };
}

describe("overlapping health checks of one instance", () => {
  it("count a failure seen by both once, report degraded once and take the instance down once", async () => {
    const { u, id } = await onlineInstance();
    u.failing = true;
    await check(id);
    // A failure brings the next check forward: a quarter of the interval (6 h of this file's day), not a day.
    const recheck = await h.queue.getJob(jobIds.healthRecheck(id, 1));
    expect(await recheck?.isDelayed()).toBe(true);
    expect(recheck?.opts.delay).toBeLessThanOrEqual(healthRecheckDelay(24 * 60 * 60_000));
    await check(id);
    expect(await healthOf(id)).toEqual({ consecutiveFailures: 2, degraded: false });

    await overlapping(id);
    expect(await healthOf(id)).toEqual({ consecutiveFailures: 3, degraded: true });
    expect(await countEvents(id, "server_health_degraded")).toBe(1);
    // The third failure takes the instance down, once: only the check whose write landed reports it. (The event
    // is written right after the status.)
    await expect.poll(() => countEvents(id, "server_disconnected"), { timeout: 10_000 }).toBe(1);
    expect((await db.instance.findUniqueOrThrow({ where: { id } })).status).toBe("offline");
    const reports = (await h.queue.getJobs(["waiting", "delayed", "active", "completed", "failed"])).filter(
      (j) => j?.name === JOB_NAMES.callFailed && j.data.instanceId === id,
    );
    expect(reports).toHaveLength(1);
  });

  it("report restored once when both succeed on a degraded instance", async () => {
    const { id } = await onlineInstance();
    // Degraded and still online: a check answered before the take-down its third failure queued was applied.
    await db.instance.update({ where: { id }, data: { healthConsecutiveFailures: 3, healthDegraded: true } });

    await overlapping(id);
    expect(await healthOf(id)).toEqual({ consecutiveFailures: 0, degraded: false });
    const restored = await listInstanceEvents(db, { instanceId: id, types: ["server_health_restored"] });
    expect(restored).toHaveLength(1);
    expect(restored[0]?.payload).toMatchObject({ failuresBeforeRestore: 3 });
  });
});
