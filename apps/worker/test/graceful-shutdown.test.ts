import { randomBytes } from "node:crypto";
import path from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INSTANCE_QUEUE, JOB_NAMES, redisKeys } from "@switchboard/core/contracts";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { queueConnection } from "@switchboard/runtime/redis-client";
import { freePort } from "@switchboard/testing/net";
import { TestUpstream } from "@switchboard/testing/upstream";
import { killWorkerProcesses, startWorkerProcess } from "@switchboard/testing/worker-process";
import { makeInstance } from "./support/fixtures";
import { REDIS_URL, testPrefix } from "./support/harness";
import { processesWith, serverProcesses } from "@switchboard/testing/processes";

/**
 * The worker (src/main.ts, a real process) stopped with SIGTERM in the middle of a job it cannot finish in its
 * grace period, while it runs a stdio server: the job goes back to the queue and the next worker completes it,
 * the stdio server is gone when the worker has exited, and its lease, instance lock and heartbeat are released,
 * so the next worker takes everything over at once (the lock would hold the job for 2 minutes, the heartbeat
 * keep the worker counted for 15 s).
 */
const db = getDb();
const EVERYTHING = path.resolve(import.meta.dirname, "../../../node_modules/.bin/mcp-server-everything");
const prefix = testPrefix("graceful");
const bridgeSecret = randomBytes(24).toString("hex");
let queue: Queue;
let redis: Redis;
let upstream: TestUpstream;

beforeAll(async () => {
  queue = new Queue(INSTANCE_QUEUE, { connection: queueConnection(REDIS_URL, "producer", "worker-test"), prefix });
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
  upstream = await TestUpstream.start(["echo"]);
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
const readyz = async (port: number) => {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`);
  return { status: res.status, body: (await res.json()) as { status: string } };
};

describe("a worker stopped with SIGTERM mid-job", () => {
  it("hands the unfinished job to the next worker, stops its stdio servers and releases what it held at once", async () => {
    const healthPort = await freePort();
    const start = (health?: number) =>
      startWorkerProcess({
        prefix,
        bridgeSecret,
        bridgePort: 0,
        healthPort: health,
        env: { SHUTDOWN_GRACE_MS: "3000" },
      });
    const first = await start(healthPort);
    await expect.poll(() => readyz(healthPort).then((r) => r.status), { timeout: 10_000 }).toBe(200);

    // A stdio server running on it, holding its lease.
    const marker = `graceful-${randomBytes(4).toString("hex")}`;
    const { instance: stdio } = await makeInstance(db, { stdio: { command: EVERYTHING, args: ["stdio", marker] } });
    await queue.add(JOB_NAMES.discover, { instanceId: stdio.id, reason: "provisioned" });
    await expect.poll(() => statusOf(stdio.id), { timeout: 30_000, interval: 200 }).toBe("online");
    expect(serverProcesses(marker)).toHaveLength(1);
    const lease = redisKeys.stdioLease(prefix, stdio.id);
    expect(await redis.get(lease)).toContain(first.logs().find((l) => l.workerId)?.workerId as string);

    // A discovery under way that outlasts the grace period: the upstream holds tools/list.
    const { instance: http } = await makeInstance(db, { url: upstream.url });
    upstream.hold("tools/list");
    const job = await queue.add(JOB_NAMES.discover, { instanceId: http.id, reason: "provisioned" });
    await expect.poll(() => upstream.heldRequests, { timeout: 30_000, interval: 50 }).toBeGreaterThan(0);
    expect(await redis.exists(redisKeys.instanceLock(prefix, http.id))).toBe(1);

    first.child.kill("SIGTERM");
    // Not ready from the signal on, while it still drains.
    await expect
      .poll(() => readyz(healthPort), { timeout: 5_000, interval: 20 })
      .toMatchObject({
        status: 503,
        body: { status: "draining" },
      });
    expect(await first.exited).toEqual({ code: 0, signal: null });
    expect(first.logs().some((l) => l.msg === "job handed back to the queue" && l.jobId === job.id)).toBe(true);

    // Nothing of it is left: no stdio process, no lease, no instance lock, no heartbeat.
    expect(processesWith(marker)).toEqual([]);
    expect(await redis.get(lease)).toBeNull();
    expect(await redis.exists(redisKeys.instanceLock(prefix, http.id))).toBe(0);
    expect(await redis.zcard(redisKeys.workersAlive(prefix))).toBe(0);
    // The job waits for the next worker, not counted as an attempt.
    expect(await (await queue.getJob(job.id!))!.getState()).toBe("waiting");

    upstream.release();
    const second = await start();
    // The next worker completes the handed-back job.
    await expect.poll(() => statusOf(http.id), { timeout: 30_000, interval: 200 }).toBe("online");
    await expect.poll(async () => (await queue.getJob(job.id!))?.getState(), { timeout: 10_000 }).toBe("completed");
    await second.stop();
  }, 120_000);
});
