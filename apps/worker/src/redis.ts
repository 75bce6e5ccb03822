import type { RedisOptions } from "bullmq";
import { Redis } from "ioredis";
import { redisConnectionFromUrl } from "@switchboard/core/jobs";

/**
 * BullMQ connection options from a redis:// URL. BullMQ creates (and closes) its own clients from these;
 * workers get `maxRetriesPerRequest: null` (blocking commands must wait through a Redis restart, not fail).
 */
export function redisOptions(url: string, role: "producer" | "worker"): RedisOptions {
  return {
    ...redisConnectionFromUrl(url),
    maxRetriesPerRequest: role === "worker" ? null : 3,
    // Keep reconnecting forever with a capped delay: Redis restarting must not need a worker restart.
    retryStrategy: (times: number) => Math.min(times * 200, 5_000),
    connectionName: `switchboard-worker-${role}`,
  };
}

/** A plain client we own (pub/sub publishing, locks, leases); the caller quits it. */
export function createRedis(url: string, name: string): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: 3,
    retryStrategy: (times: number) => Math.min(times * 200, 5_000),
    connectionName: `switchboard-worker-${name}`,
  });
}
