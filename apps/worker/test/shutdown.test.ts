import { randomBytes } from "node:crypto";
import path from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INSTANCE_QUEUE, JOB_NAMES } from "@switchboard/core/contracts";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { queueConnection } from "@switchboard/runtime/redis-client";
import { makeInstance } from "./support/fixtures";
import { REDIS_URL, testPrefix } from "./support/harness";
import { killWorkerProcesses, startWorkerProcess } from "@switchboard/testing/worker-process";
import { processesWith, serverProcesses } from "@switchboard/testing/processes";

/**
 * The real entry point (src/main.ts) in its own process, so it can be signalled like production: SIGTERM must
 * kill every stdio process group it runs, and SIGKILL must not leave them behind either.
 */
const db = getDb();
const EVERYTHING = path.resolve(import.meta.dirname, "../../../node_modules/.bin/mcp-server-everything");
const prefix = testPrefix("shutdown");
let queue: Queue;
let redis: Redis;

beforeAll(() => {
  queue = new Queue(INSTANCE_QUEUE, { connection: queueConnection(REDIS_URL, "producer", "worker-test"), prefix });
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
});
afterAll(async () => {
  await killWorkerProcesses();
  await queue.obliterate({ force: true }).catch(() => {});
  await queue.close();
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
  await disconnectDb();
});

async function runningEverything() {
  const marker = `shutdown-${randomBytes(4).toString("hex")}`;
  const { instance } = await makeInstance(db, { stdio: { command: EVERYTHING, args: ["stdio", marker] } });
  await queue.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
  await expect
    .poll(async () => (await db.instance.findUniqueOrThrow({ where: { id: instance.id } })).status, {
      timeout: 30_000,
      interval: 200,
    })
    .toBe("online");
  expect(serverProcesses(marker)).toHaveLength(1);
  return { instance, marker };
}

describe("stdio processes never outlive their worker", () => {
  it("kills every process group it runs on SIGTERM, then exits 0", async () => {
    const worker = await startWorkerProcess({ prefix });
    const { marker } = await runningEverything();
    worker.child.kill("SIGTERM");
    expect(await worker.exited).toEqual({ code: 0, signal: null });
    expect(processesWith(marker)).toEqual([]);
  });

  it("leaves no server behind when the worker is SIGKILLed: the server's stdin closes and it exits", async () => {
    const worker = await startWorkerProcess({ prefix });
    const { marker } = await runningEverything();
    worker.child.kill("SIGKILL");
    expect(await worker.exited).toEqual({ code: null, signal: "SIGKILL" });
    // Nobody can signal the group any more; mcp-server-everything (like every SDK stdio server) ends on EOF.
    await expect.poll(() => processesWith(marker), { timeout: 10_000, interval: 100 }).toEqual([]);
  });
});
