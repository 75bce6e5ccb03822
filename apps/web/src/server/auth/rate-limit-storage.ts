import type { RedisClient as Redis } from "@switchboard/runtime/redis-client";
import type { Logger } from "pino";
import { redisKeys } from "@switchboard/core/contracts";

interface Rule {
  window: number;
  max: number;
}

// One atomic step: count this request in the key's window (started by the first request) and report the count
// and how long the window still runs.
const CONSUME = `
local count = redis.call("INCR", KEYS[1])
if count == 1 then redis.call("PEXPIRE", KEYS[1], ARGV[1]) end
local ttl = redis.call("PTTL", KEYS[1])
if ttl < 0 then redis.call("PEXPIRE", KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return { count, ttl }`;

/**
 * Better Auth's rate-limit counters in Redis, so every console process counts the same requests (the default
 * memory store let an attacker multiply the limit by the number of processes). Fixed windows per client
 * address and path, as Better Auth keys them.
 */
export function redisRateLimitStorage({
  redis,
  prefix,
  logger,
}: {
  redis: () => Redis;
  prefix: string;
  logger: Logger;
}) {
  return {
    async consume(key: string, rule: Rule): Promise<{ allowed: boolean; retryAfter: number | null }> {
      const windowMs = Math.max(1, Math.round(rule.window * 1000));
      let count: number;
      let ttl: number;
      try {
        [count, ttl] = (await redis().eval(CONSUME, 1, redisKeys.authRate(prefix, key), windowMs)) as [number, number];
      } catch (err) {
        // Without Redis nobody could sign in at all; let the request through and say so loudly.
        logger.error({ err }, "auth rate limit unavailable (Redis): request not counted");
        return { allowed: true, retryAfter: null };
      }
      if (count <= rule.max) return { allowed: true, retryAfter: null };
      return { allowed: false, retryAfter: Math.max(1, Math.ceil(ttl / 1000)) };
    },
  };
}
