import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { jobIds } from "@switchboard/core/contracts";
import { queueConnection } from "../src/redis-client";
import { jobOptions } from "../src/jobs/options";
import { createJobProducer } from "../src/jobs/producer";
import { BullJobScheduling, createInstanceQueue } from "../src/jobs/scheduling";

/**
 * Real Redis, a prefix of this file's own. The options below are spelled out as numbers on purpose: jobs already
 * queued were added with them, and a job definition that changes one by accident must fail here.
 */
const queue = createInstanceQueue(
  queueConnection(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", "producer", "job-options-test"),
  `sbtest-jobopts-${randomBytes(4).toString("hex")}`,
);
const producer = createJobProducer(queue);
const scheduling = new BullJobScheduling(queue, 120_000);

const backoff = { type: "exponential", delay: 1_000 };
const TRIGGER = { attempts: 5, backoff, removeOnComplete: { count: 1_000 }, removeOnFail: { count: 5_000 } };
const SINGLETON = { attempts: 5, backoff, removeOnComplete: true, removeOnFail: true };
const SINGLETON_ONCE = { attempts: 3, backoff, removeOnComplete: true, removeOnFail: true };

afterAll(async () => {
  await queue.obliterate({ force: true });
  await queue.close();
});

async function added(name: string) {
  const jobs = await queue.getJobs(["waiting", "delayed", "prioritized"]);
  const job = jobs.find((j) => j.name === name);
  expect(job, name).toBeDefined();
  await job!.remove();
  return job!;
}

describe("job options", () => {
  it("queues the console's triggers with the trigger options, their payloads as given", async () => {
    await producer.enqueueInstallationCreated({ installationId: "inst-1" });
    await producer.enqueueConfigChanged({ installationId: "inst-1", userId: "u-1" });
    await producer.enqueueForceReconnect({ instanceId: "i-1", requestedBy: "u-1" });
    await producer.enqueueRestart({ instanceId: "i-1" });
    await producer.enqueueInstallationRemoved({ installationId: "inst-1", teamId: "t-1", instanceIds: ["i-1"] });
    await producer.enqueueMemberRemoved({ teamId: "t-1", userId: "u-1", instanceIds: ["i-1"] });
    await producer.reportCallFailed({ instanceId: "i-1", status: "offline", message: "down" });
    for (const name of [
      "installation.created",
      "config.changed",
      "instance.force-reconnect",
      "instance.restart",
      "installation.removed",
      "member.removed",
      "instance.call-failed",
    ]) {
      expect((await added(name)).opts, name).toMatchObject(TRIGGER);
    }
  });

  it("queues a rediscovery and an OAuth refresh once per instance, with a few attempts", async () => {
    await producer.requestRediscovery({ instanceId: "i-2" });
    const discover = await added("instance.discover");
    expect(discover.id).toBe(jobIds.discover("i-2"));
    expect(discover.data).toEqual({ instanceId: "i-2", reason: "rediscovery" });
    expect(discover.opts).toMatchObject(SINGLETON_ONCE);

    await producer.enqueueOAuth({ instanceId: "i-2", event: "unauthorized" });
    const refresh = await added("instance.oauth-refresh");
    expect(refresh.id).toBe(jobIds.oauthUnauthorized("i-2"));
    expect(refresh.opts).toMatchObject(SINGLETON_ONCE);

    await producer.enqueueOAuth({ instanceId: "i-2", event: "authorized" });
    expect((await added("instance.oauth-authorized")).opts).toMatchObject(TRIGGER);
    const loop = await added("instance.oauth-refresh");
    expect(loop.id).toBe(jobIds.oauthRefresh("i-2"));
    expect(loop.data).toEqual({ instanceId: "i-2", reason: "scheduled" });
    expect(loop.opts).toMatchObject(SINGLETON_ONCE);
  });

  it("queues the worker's own discovery, reconnect, re-check and crash with their options", async () => {
    await scheduling.enqueueDiscover("i-3", "reconcile");
    const discover = await added("instance.discover");
    expect(discover.id).toBe(jobIds.discover("i-3"));
    expect(discover.opts).toMatchObject(SINGLETON);

    expect(await scheduling.scheduleReconnect("i-3", 60_000)).toBe(true);
    const reconnect = await added("instance.reconnect");
    expect(reconnect.id).toBe(jobIds.reconnect("i-3"));
    expect(reconnect.opts).toMatchObject({ ...SINGLETON, delay: 60_000 });

    await scheduling.scheduleHealthRecheck("i-3", 2, 30_000);
    const recheck = await added("instance.health");
    expect(recheck.id).toBe(jobIds.healthRecheck("i-3", 2));
    expect(recheck.opts).toMatchObject({ ...SINGLETON, attempts: 1, delay: 30_000 });

    await scheduling.enqueueCrashed("i-3", { exitCode: 1, signal: null });
    expect((await added("instance.crashed")).opts).toMatchObject(TRIGGER);

    await scheduling.requestCatalogueRefresh({ instanceId: "i-3", kind: "tools" });
    const refresh = await added("instance.catalogue-refresh");
    expect(refresh.opts).toMatchObject({ ...SINGLETON_ONCE, delay: 500 });
    expect(refresh.opts.deduplication).toMatchObject({ id: jobIds.catalogueRefresh("i-3"), keepLastIfActive: true });
  });

  it("gives the console's connection test one attempt and keeps its answer ten minutes", () => {
    expect(jobOptions("connection.test")).toEqual({
      attempts: 1,
      removeOnComplete: { age: 600 },
      removeOnFail: { age: 600 },
    });
  });

  it("keeps each housekeeping and health schedule's runs out of the queue once done", async () => {
    await scheduling.upsertHealth("i-4");
    await scheduling.upsertMaintenance();
    const schedulers = await queue.getJobSchedulers();
    expect(schedulers.map((s) => s.name).sort()).toEqual([
      "instance.health",
      "maintenance.activity-rollup",
      "maintenance.oauth-flow-cleanup",
      "maintenance.retention-prune",
    ]);
    for (const s of schedulers)
      expect(s.template?.opts, s.name).toMatchObject({ removeOnComplete: true, removeOnFail: { count: 100 } });
  });
});
