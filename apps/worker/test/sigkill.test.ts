import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INSTANCE_QUEUE, jobIds, JOB_NAMES } from "@switchboard/core/contracts";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { queueConnection } from "@switchboard/runtime/redis-client";
import { makeInstance } from "./support/fixtures";
import { REDIS_URL, testPrefix } from "./support/harness";
import { TestUpstream } from "@switchboard/testing/upstream";
import { killWorkerProcesses, startWorkerProcess } from "@switchboard/testing/worker-process";

/**
 * A worker killed with SIGKILL mid-job cannot hand anything back: its job stays "active" with a lock nobody
 * renews. Another worker's stalled-job check must find it and run it again. Real processes, a short lock
 * (WORKER_LOCK_DURATION_MS) so the test does not wait the production minute.
 */
const db = getDb();
const prefix = testPrefix("sigkill");
const LOCK_MS = "2000";
let queue: Queue;
let redis: Redis;
let upstream: TestUpstream;

beforeAll(async () => {
  queue = new Queue(INSTANCE_QUEUE, { connection: queueConnection(REDIS_URL, "producer", "worker-test"), prefix });
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
  upstream = await TestUpstream.start(["echo", "add"]);
});
afterAll(async () => {
  await killWorkerProcesses();
  await upstream?.stop();
  await queue.obliterate({ force: true }).catch(() => {});
  await queue.close();
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  await disconnectDb();
});

const statusOf = async (id: string) => (await db.instance.findUniqueOrThrow({ where: { id } })).status;

describe("a worker killed mid-job", () => {
  it("loses nothing: the stalled discovery is picked up by the next worker and ends online, with one health schedule", async () => {
    const first = await startWorkerProcess({ prefix, env: { WORKER_LOCK_DURATION_MS: LOCK_MS } });
    const { instance } = await makeInstance(db, { url: upstream.url });
    upstream.hold("tools/list");
    // The id the worker and the console use, so reconciliation at the next start cannot add a second one.
    // Kept when it completes, to read how it got there.
    await queue.add(
      JOB_NAMES.discover,
      { instanceId: instance.id, reason: "provisioned" },
      { jobId: jobIds.discover(instance.id), attempts: 3 },
    );

    // Mid-way: connected, asking for the tools, the upstream not answering yet.
    await expect.poll(() => upstream.heldRequests, { timeout: 20_000, interval: 50 }).toBe(1);
    expect(await statusOf(instance.id)).toBe("discovering_tools");
    expect(await (await queue.getJob(jobIds.discover(instance.id)))?.isActive()).toBe(true);

    first.child.kill("SIGKILL");
    expect(await first.exited).toEqual({ code: null, signal: "SIGKILL" });
    expect(await (await queue.getJob(jobIds.discover(instance.id)))?.isActive()).toBe(true);

    // The next worker reconciles (the discovery job exists: nothing added), its stalled check moves the job
    // back to waiting once the dead worker's lock expired, and it runs it: the upstream sees tools/list again.
    const second = await startWorkerProcess({ prefix, env: { WORKER_LOCK_DURATION_MS: LOCK_MS } });
    await expect.poll(() => upstream.heldRequests, { timeout: 30_000, interval: 100 }).toBe(2);
    upstream.release();

    await expect.poll(() => statusOf(instance.id), { timeout: 20_000, interval: 100 }).toBe("online");
    // The instance goes online inside the job, a moment before BullMQ marks the job completed.
    await expect
      .poll(async () => (await queue.getJob(jobIds.discover(instance.id)))?.isCompleted(), { timeout: 10_000 })
      .toBe(true);
    const job = (await queue.getJob(jobIds.discover(instance.id)))!;
    expect(job.stalledCounter).toBe(1);
    // Picked up again, never failed (waiting for the dead worker's instance lock is a delay, not a failure).
    expect(second.logs().filter((l) => l.msg === "job failed" && l.jobId === job.id)).toEqual([]);
    const discoveries = (await queue.getJobs(["waiting", "delayed", "active", "completed", "failed"])).filter(
      (j) => j?.name === JOB_NAMES.discover && j.data.instanceId === instance.id,
    );
    expect(discoveries.map((j) => j.id)).toEqual([jobIds.discover(instance.id)]);
    expect(
      second
        .logs()
        .some((l) => l.msg === "job stalled; handed to a worker again" && l.jobId === jobIds.discover(instance.id)),
    ).toBe(true);

    const schedulers = (await queue.getJobSchedulers(0, -1)).map((s) => s.key);
    expect(schedulers.filter((key) => key === jobIds.healthScheduler(instance.id))).toHaveLength(1);
    expect(new Set(schedulers).size).toBe(schedulers.length);
    expect(await db.instanceTool.count({ where: { instanceId: instance.id } })).toBe(2);
    expect(second.alive()).toBe(true);
  });
});
