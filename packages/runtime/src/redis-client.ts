import type { RedisOptions } from "bullmq";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import { redisConnectionFromUrl } from "@switchboard/core/contracts";
import { backoffDelay, type BackoffOptions } from "@switchboard/core/policies";

/** Keep reconnecting forever with a capped delay: Redis restarting must not need a process restart. */
const REDIS_RECONNECT: BackoffOptions = { baseMs: 200, maxMs: 5_000, growth: "linear" };
const retryStrategy = (times: number) => backoffDelay(REDIS_RECONNECT, times - 1);

/**
 * BullMQ connection options from a redis:// URL. BullMQ creates (and closes) its own clients from these;
 * workers get `maxRetriesPerRequest: null` (blocking commands must wait through a Redis restart, not fail),
 * producers fail a command after a few retries instead of hanging the request that queued it.
 */
export function queueConnection(url: string, role: "producer" | "worker", processName: string): RedisOptions {
  return {
    ...redisConnectionFromUrl(url),
    maxRetriesPerRequest: role === "worker" ? null : 3,
    retryStrategy,
    connectionName: `switchboard-${processName}-${role}`,
  };
}

/**
 * A plain client the caller owns and quits (commands, pub/sub, locks, leases). ioredis reconnects by itself and
 * emits an error on every failed attempt; without a listener that would crash the process. Errors are logged,
 * not swallowed: the first of an outage as a warning (later attempts at debug, so a long outage does not flood
 * the log), and the recovery once the connection is ready again.
 */
export function createRedis(
  url: string,
  opts: { name: string; logger: Pick<Logger, "warn" | "debug" | "info"> },
): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: 3, retryStrategy, connectionName: `switchboard-${opts.name}` });
  let down = false;
  client.on("error", (err: Error) => {
    const fields = { redis: opts.name, err: { message: err.message, code: (err as NodeJS.ErrnoException).code } };
    if (down) {
      opts.logger.debug(fields, "Redis still unreachable; reconnecting");
      return;
    }
    down = true;
    opts.logger.warn(fields, "Redis connection failed; reconnecting");
  });
  client.on("ready", () => {
    if (!down) return;
    down = false;
    opts.logger.info({ redis: opts.name }, "Redis connection restored");
  });
  return client;
}
