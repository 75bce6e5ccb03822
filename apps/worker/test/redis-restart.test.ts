import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INSTANCE_QUEUE, jobIds, JOB_NAMES, OAUTH_FLOW_CLEANUP } from "@switchboard/core/contracts";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { listInstanceEvents } from "@switchboard/db/queries/instance-events";
import { queueConnection } from "@switchboard/runtime/redis-client";
import { makeInstance } from "./support/fixtures";
import { testPrefix } from "./support/harness";
import { PrivateRedis } from "@switchboard/testing/private-redis";
import { TestUpstream } from "@switchboard/testing/upstream";
import { killWorkerProcesses, startWorkerProcess } from "@switchboard/testing/worker-process";

/**
 * Redis restarting under a running worker process, on a private redis-server without persistence: the
 * restarted Redis is empty (schedules and jobs lost), which is the case that needs the worker's help.
 */
const db = getDb();
const prefix = testPrefix("redis-restart");
let redis: PrivateRedis;
let queue: Queue;
let upstream: TestUpstream;

beforeAll(async () => {
  redis = await PrivateRedis.start();
  queue = new Queue(INSTANCE_QUEUE, { connection: queueConnection(redis.url, "producer", "worker-test"), prefix });
  queue.on("error", () => {}); // the producer sees the restart too
  upstream = await TestUpstream.start(["echo"]);
});
afterAll(async () => {
  await killWorkerProcesses();
  await queue?.close().catch(() => {});
  await redis?.kill();
  await upstream?.stop();
  await disconnectDb();
});

const statusOf = async (id: string) => (await db.instance.findUniqueOrThrow({ where: { id } })).status;
const statuses = async (instanceId: string) =>
  (await listInstanceEvents(db, { instanceId, types: ["status_changed"] })).map(
    (e) => (e.payload as { to: string }).to,
  );

describe("Redis restarting", () => {
  it("reconnects by itself, restores the lost schedules from PostgreSQL and processes new work", async () => {
    const worker = await startWorkerProcess({ prefix, env: { REDIS_URL: redis.url } });
    const { instance } = await makeInstance(db, { url: upstream.url });
    await queue.add(
      JOB_NAMES.discover,
      { instanceId: instance.id, reason: "provisioned" },
      { jobId: jobIds.discover(instance.id) },
    );
    await expect.poll(() => statusOf(instance.id), { timeout: 20_000, interval: 100 }).toBe("online");
    expect(await queue.getJobScheduler(jobIds.healthScheduler(instance.id))).toBeDefined();

    // A key the worker never writes: its absence after the restart shows the data went with the old server.
    const canary = `${prefix}:test-canary`;
    const raw = new Redis(redis.url, { maxRetriesPerRequest: 3 });
    raw.on("error", () => {});
    try {
      await raw.set(canary, "1");
      await redis.restart();
      expect(await raw.exists(canary)).toBe(0);
    } finally {
      raw.disconnect();
    }
    // ...and the worker puts the health schedule back by itself once it reconnected.
    await expect
      .poll(() => queue.getJobScheduler(jobIds.healthScheduler(instance.id)), { timeout: 30_000, interval: 200 })
      .toBeDefined();
    expect(await queue.getJobScheduler(OAUTH_FLOW_CLEANUP.schedulerId)).toBeDefined();
    expect(
      worker
        .logs()
        .some((l) => l.msg === "Redis came back without the worker's data; reconciling from PostgreSQL again"),
    ).toBe(true);

    // New work after the restart runs: a forced reconnect walks the instance through the whole sequence again.
    const before = (await statuses(instance.id)).length;
    await queue.add(
      JOB_NAMES.forceReconnect,
      { instanceId: instance.id, requestedBy: null },
      { attempts: 5, backoff: { type: "exponential", delay: 1_000 } },
    );
    await expect
      .poll(async () => (await statuses(instance.id)).slice(before), { timeout: 30_000, interval: 100 })
      .toEqual(["connecting", "discovering_tools", "syncing_tools", "online"]);
    await expect
      .poll(
        async () => (await listInstanceEvents(db, { instanceId: instance.id, types: ["server_reconnected"] })).length,
      )
      .toBe(1);

    // One schedule, not two: the reconciliation and the discovery upsert the same id.
    const keys = (await queue.getJobSchedulers(0, -1)).map((s) => s.key);
    expect(keys.filter((k) => k === jobIds.healthScheduler(instance.id))).toHaveLength(1);
    expect(worker.alive()).toBe(true);
  });
});
