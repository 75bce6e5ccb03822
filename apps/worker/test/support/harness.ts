import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Queue } from "bullmq";
import pino from "pino";
import { INSTANCE_QUEUE, JOB_NAMES, jobIds, redisChannels, type JobName } from "@switchboard/core/contracts";
import type { EgressPolicy } from "@switchboard/core/egress";
import { backoffDelay, RECONNECT_POLICY, type BackoffOptions } from "@switchboard/core/policies";
import type { LiveEvent } from "@switchboard/core/events";
import { getDb } from "@switchboard/db/client";
import { listInstanceEvents } from "@switchboard/db/queries/instance-events";
import { startWorkerApp, type WorkerApp, type WorkerAppOptions } from "../../src/app";
import { StdioSandbox } from "../../src/sandbox";
import { createRedis, queueConnection, type RedisClient } from "@switchboard/runtime/redis-client";
import { deleteMatching } from "@switchboard/testing/redis";
import { removeSandboxDir } from "@switchboard/testing/sandbox-dir";
import { FIXTURES_DIR } from "./stdio-fixtures";

export { FIXTURES_DIR };

export const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** A fresh BullMQ prefix per test file: jobs and schedulers of one run never meet another's. */
export function testPrefix(label: string): string {
  return `sbtest-${label}-${Date.now().toString(36)}-${randomBytes(3).toString("hex")}`;
}

/**
 * The egress policy of worker tests: the upstream fixtures listen on 127.0.0.1 on ports picked at run time, so
 * that one host is a named exception (any port), as an operator would name a server. Everything else stays
 * refused: egress.test.ts runs the worker with the default policy and proves refusals end to end.
 */
export const TEST_EGRESS: EgressPolicy = { allowPrivate: false, allow: [{ host: "127.0.0.1", port: "*" }] };

/** The reconnect backoff scaled to 1/20 (50 ms base, same doubling and jitter): tests see many attempts in little time. */
export const FAST_RECONNECT: BackoffOptions = {
  ...RECONNECT_POLICY,
  baseMs: RECONNECT_POLICY.baseMs / 20,
  maxMs: RECONNECT_POLICY.maxMs / 20,
};

export function fastReconnectDelay(attemptIndex: number): number {
  return backoffDelay(FAST_RECONNECT, attemptIndex);
}

export interface Harness {
  prefix: string;
  app: WorkerApp;
  queue: Queue;
  redis: RedisClient;
  /** Live events received on the Redis channels (real pub/sub). */
  live: LiveEvent[];
  /** The sandbox its stdio servers run in (a fresh data directory, removed on close). */
  sandbox: StdioSandbox;
  start(overrides?: Partial<WorkerAppOptions>): Promise<WorkerApp>;
  add<N extends JobName>(name: N, data: unknown, opts?: Parameters<Queue["add"]>[2]): Promise<void>;
  statusesOf(instanceId: string): Promise<string[]>;
  eventTypes(instanceId: string): Promise<string[]>;
  reconnectJob(instanceId: string): ReturnType<Queue["getJob"]>;
  close(): Promise<void>;
}

/**
 * Starts a worker app on real Redis and PostgreSQL under a unique prefix, and subscribes to its live
 * channels. close() stops the worker and obliterates everything the prefix holds.
 */
export async function createHarness(label: string, overrides: Partial<WorkerAppOptions> = {}): Promise<Harness> {
  const prefix = testPrefix(label);
  const db = getDb();
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });
  const queue = new Queue(INSTANCE_QUEUE, {
    connection: queueConnection(REDIS_URL, "producer", "worker-test"),
    prefix,
  });
  const redis = createRedis(REDIS_URL, { name: "worker-test", logger });
  const subscriber = createRedis(REDIS_URL, { name: "worker-test-sub", logger });
  const live: LiveEvent[] = [];
  await subscriber.psubscribe(redisChannels.everyTeam(prefix));
  subscriber.on("pmessage", (_pattern, _channel, message) => live.push(JSON.parse(message) as LiveEvent));

  // Every stdio server of the tests runs sandboxed, as in production; the fixtures directory is readable.
  const sandbox = await testSandbox(logger);
  const apps: WorkerApp[] = [];
  const start = async (more: Partial<WorkerAppOptions> = {}) => {
    const app = await startWorkerApp({
      db,
      logger,
      sandbox,
      redisUrl: REDIS_URL,
      prefix,
      concurrency: 8,
      egress: TEST_EGRESS,
      ...overrides,
      ...more,
      tunables: { reconnectDelay: fastReconnectDelay, lockRetryMs: 50, ...overrides.tunables, ...more.tunables },
    });
    apps.push(app);
    return app;
  };
  const app = await start();

  return {
    prefix,
    get app() {
      return apps.at(-1) ?? app;
    },
    queue,
    redis,
    live,
    sandbox,
    start,
    async add(name, data, opts) {
      await queue.add(name, data, opts);
    },
    async statusesOf(instanceId) {
      const events = await listInstanceEvents(db, { instanceId, types: ["status_changed"] });
      return events.map((e) => (e.payload as { to: string }).to);
    },
    async eventTypes(instanceId) {
      return (await listInstanceEvents(db, { instanceId })).map((e) => e.type);
    },
    reconnectJob(instanceId) {
      return queue.getJob(jobIds.reconnect(instanceId));
    },
    async close() {
      for (const a of apps) await a.close();
      await queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
      await deleteMatching(redis, `${prefix}:*`);
      await subscriber.quit();
      await redis.quit();
      sandbox.close();
      removeSandboxDir(sandbox.dataDir);
    },
  };
}

/** A sandbox like production's, with its homes in a fresh temp directory and the test fixtures readable. */
export async function testSandbox(logger: pino.Logger, more: { readOnlyPaths?: string[] } = {}): Promise<StdioSandbox> {
  return StdioSandbox.start({
    mode: "on",
    dataDir: mkdtempSync(path.join(os.tmpdir(), "sb-sandboxes-")),
    readOnlyPaths: [FIXTURES_DIR, ...(more.readOnlyPaths ?? [])],
    logger,
  });
}

export { JOB_NAMES, jobIds };

/** For tests that run the worker as a process: drops everything their prefix holds, and closes both clients. */
export async function dropPrefix(queue: Queue, redis: RedisClient, prefix: string): Promise<void> {
  await queue.obliterate({ force: true }).catch(() => {});
  await queue.close();
  await deleteMatching(redis, `${prefix}:*`);
  await redis.quit();
}
