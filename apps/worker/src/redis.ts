import type { RedisOptions } from "bullmq";
import { Redis } from "ioredis";

/**
 * BullMQ connection options from a redis:// URL. BullMQ creates (and closes) its own clients from these;
 * workers get `maxRetriesPerRequest: null` (blocking commands must wait through a Redis restart, not fail).
 */
export function redisOptions(url: string, role: "producer" | "worker"): RedisOptions {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: u.port ? Number(u.port) : 6379,
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
    tls: u.protocol === "rediss:" ? {} : undefined,
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
