import type { RedisOptions } from "bullmq";
import { Redis } from "ioredis";
import { redisConnectionFromUrl } from "@switchboard/core/contracts";
import { backoffDelay, type BackoffOptions } from "@switchboard/core/policies";

/** Keep reconnecting forever with a capped delay: Redis restarting must not need a worker restart. */
const REDIS_RECONNECT: BackoffOptions = { baseMs: 200, maxMs: 5_000, growth: "linear" };
const retryStrategy = (times: number) => backoffDelay(REDIS_RECONNECT, times - 1);

/**
 * BullMQ connection options from a redis:// URL. BullMQ creates (and closes) its own clients from these;
 * workers get `maxRetriesPerRequest: null` (blocking commands must wait through a Redis restart, not fail).
 */
export function redisOptions(url: string, role: "producer" | "worker"): RedisOptions {
  return {
    ...redisConnectionFromUrl(url),
    maxRetriesPerRequest: role === "worker" ? null : 3,
    retryStrategy,
    connectionName: `switchboard-worker-${role}`,
  };
}

/** A plain client we own (pub/sub publishing, locks, leases); the caller quits it. */
export function createRedis(url: string, name: string): Redis {
  return new Redis(url, {
    maxRetriesPerRequest: 3,
    retryStrategy,
    connectionName: `switchboard-worker-${name}`,
  });
}
