import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jobIds } from "@switchboard/core/contracts";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { getCipher } from "@switchboard/db/crypto";
import { countCatalogue } from "@switchboard/db/queries/catalogue";
import { makeInstallation, makeInstance } from "./support/fixtures";
import { createHarness, JOB_NAMES, type Harness } from "./support/harness";
import { TestUpstream } from "@switchboard/testing/upstream";

const db = getDb();
let h: Harness;
let u: TestUpstream;

beforeAll(async () => {
  h = await createHarness("triggers");
  u = await TestUpstream.start(["echo"]);
});
afterAll(async () => {
  await h?.close();
  await u?.stop();
  await disconnectDb();
});

const statusOf = async (id: string) => (await db.instance.findUniqueOrThrow({ where: { id } })).status;

async function onlineInstance() {
  const { instance, installation } = await makeInstance(db, { url: u.url });
  await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
  await expect.poll(() => statusOf(instance.id), { timeout: 15_000 }).toBe("online");
  return { instance, installation };
}

async function jobsOf(instanceId: string) {
  const jobs = await h.queue.getJobs(["delayed", "waiting", "active", "prioritized", "waiting-children"]);
  return jobs.filter((j) => j?.data?.instanceId === instanceId);
}

describe("installation created", () => {
  it("creates an instance per member: provisioning -> online when nothing is owed, awaiting_user_config otherwise", async () => {
    const open = await makeInstallation(db, { url: u.url, members: 2 });
    await h.add(JOB_NAMES.installationCreated, { installationId: open.installation.id });
    await expect
      .poll(async () => db.instance.count({ where: { installationId: open.installation.id, status: "online" } }), {
        timeout: 20_000,
      })
      .toBe(3);

    const personal = await makeInstallation(db, {
      url: u.url,
      members: 1,
      fields: [{ key: "X-Api-Key", tier: "user", kind: "header", required: true, secret: true }],
    });
    await h.add(JOB_NAMES.installationCreated, { installationId: personal.installation.id });
    await expect
      .poll(async () => db.instance.count({ where: { installationId: personal.installation.id } }), { timeout: 10_000 })
      .toBe(2);
    const instances = await db.instance.findMany({ where: { installationId: personal.installation.id } });
    expect(instances.every((i) => i.status === "awaiting_user_config")).toBe(true);
    expect(instances[0]?.statusMessage).toContain("X-Api-Key");
    for (const i of instances) {
      expect(await jobsOf(i.id)).toEqual([]);
      expect(h.app.deps.connections.peek(i.id)).toBeUndefined();
    }

    // Running it again changes nothing.
    await h.add(JOB_NAMES.installationCreated, { installationId: personal.installation.id });
    await expect
      .poll(async () => (await h.queue.getJobCounts("completed")).completed, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(3);
    expect(await db.instance.count({ where: { installationId: personal.installation.id } })).toBe(2);

    // The member fills the field: awaiting_user_config -> provisioning -> discovery, launched with the secret.
    const mine = instances.find((i) => i.userId === personal.owner.id)!;
    await db.instanceConfigValue.create({
      data: { instanceId: mine.id, key: "X-Api-Key", value: getCipher().encrypt("sk-member-secret"), encrypted: true },
    });
    await h.add(JOB_NAMES.configChanged, { installationId: personal.installation.id, userId: personal.owner.id });
    await expect.poll(() => statusOf(mine.id), { timeout: 15_000 }).toBe("online");
    expect(await h.statusesOf(mine.id)).toEqual([
      "awaiting_user_config",
      "provisioning",
      "command_received",
      "connecting",
      "discovering_tools",
      "syncing_tools",
      "online",
    ]);
    // Other instances of this server may have made a request since: some request carried the member's secret.
    expect(u.headerValues.get("x-api-key")).toContain("sk-member-secret");
    const other = instances.find((i) => i.userId !== personal.owner.id)!;
    expect(await statusOf(other.id)).toBe("awaiting_user_config");
  });
});

describe("configuration changed", () => {
  it("restarts an online instance with the new configuration: restarting -> connecting -> ... -> online", async () => {
    const setup = await makeInstallation(db, {
      url: u.url,
      fields: [{ key: "X-Team", tier: "team", kind: "header" }],
      teamValues: { "X-Team": { value: "v1" } },
    });
    await h.add(JOB_NAMES.installationCreated, { installationId: setup.installation.id });
    await expect
      .poll(async () => (await db.instance.findFirst({ where: { installationId: setup.installation.id } }))?.status, {
        timeout: 15_000,
      })
      .toBe("online");
    const instance = (await db.instance.findFirstOrThrow({ where: { installationId: setup.installation.id } }))!;

    await db.installationConfigValue.updateMany({
      where: { installationId: setup.installation.id, key: "X-Team" },
      data: { value: "v2" },
    });
    await h.add(JOB_NAMES.configChanged, { installationId: setup.installation.id });
    await expect
      .poll(async () => (await h.statusesOf(instance.id)).slice(-5), { timeout: 15_000 })
      .toEqual(["restarting", "connecting", "discovering_tools", "syncing_tools", "online"]);
    expect(u.headerValues.get("x-team")).toContain("v2");
    expect(await h.eventTypes(instance.id)).toContain("server_restarted");
  });
});

describe("removal", () => {
  it("stops every job, schedule and connection of a removed installation and deletes its catalogue", async () => {
    const { instance, installation } = await onlineInstance();
    expect(await h.queue.getJobScheduler(jobIds.healthScheduler(instance.id))).toBeDefined();
    expect(h.app.deps.connections.peek(instance.id)).toBeDefined();

    await h.add(JOB_NAMES.installationRemoved, {
      installationId: installation.id,
      teamId: installation.teamId,
      instanceIds: [instance.id],
    });
    await expect.poll(async () => (await countCatalogue(db, instance.id)).tools, { timeout: 10_000 }).toBe(0);
    expect(await h.queue.getJobScheduler(jobIds.healthScheduler(instance.id))).toBeUndefined();
    expect(h.app.deps.connections.peek(instance.id)).toBeUndefined();
    expect(await jobsOf(instance.id)).toEqual([]);
  });

  it("does the same for a member who left, even when the console deleted the rows first", async () => {
    const { instance, installation } = await onlineInstance();
    await db.instance.delete({ where: { id: instance.id } });
    await h.add(JOB_NAMES.memberRemoved, {
      teamId: installation.teamId,
      userId: instance.userId,
      instanceIds: [instance.id],
    });
    await expect
      .poll(() => h.queue.getJobScheduler(jobIds.healthScheduler(instance.id)), { timeout: 10_000 })
      .toBeUndefined();
    expect(h.app.deps.connections.peek(instance.id)).toBeUndefined();
    expect(await jobsOf(instance.id)).toEqual([]);
  });
});

describe("robustness", () => {
  it("fails an unknown job name or an invalid payload once, without retry", async () => {
    const unknown = await h.queue.add("instance.explode", { instanceId: "x" }, { attempts: 5 });
    const invalid = await h.queue.add(JOB_NAMES.discover, { instanceId: 42 }, { attempts: 5 });
    for (const job of [unknown, invalid]) {
      await expect.poll(async () => (await h.queue.getJob(job.id!))?.failedReason, { timeout: 10_000 }).toBeTruthy();
      const failed = (await h.queue.getJob(job.id!))!;
      expect(failed.attemptsMade).toBe(1);
      expect(await failed.isFailed()).toBe(true);
    }
  });

  it("reconciles from PostgreSQL at start-up without duplicating schedules or jobs when the worker restarts", async () => {
    const online = await onlineInstance();
    const pending = await makeInstance(db, { url: u.url });

    await h.app.close();
    // Work arrives while no worker runs (the demo seed): a restarted worker finds it.
    await h.start();
    await expect.poll(() => statusOf(pending.instance.id), { timeout: 15_000 }).toBe("online");
    await expect
      .poll(() => h.queue.getJobScheduler(jobIds.healthScheduler(pending.instance.id)), { timeout: 5_000 })
      .toBeDefined();
    const settled = await h.queue.getJobSchedulersCount();

    // Another restart, a second worker and an explicit reconciliation: nothing new.
    await h.app.close();
    await h.start();
    await h.start();
    await h.app.reconcile();
    expect(await h.queue.getJobSchedulersCount()).toBe(settled);
    const ids = (await h.queue.getJobSchedulers(0, -1)).map((s) => s.key);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.filter((id) => id === jobIds.healthScheduler(online.instance.id))).toHaveLength(1);
    const pendingDiscoveries = (await h.queue.getJobs(["delayed", "waiting", "active"])).filter(
      (j) => j?.name === JOB_NAMES.discover && j.data.instanceId === pending.instance.id,
    );
    expect(pendingDiscoveries).toEqual([]);
  });
});
