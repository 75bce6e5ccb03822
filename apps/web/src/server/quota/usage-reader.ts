import "server-only";
import { RateLimiterRedis } from "rate-limiter-flexible";
import { redisKeys } from "@switchboard/core/contracts";
import type { QuotaCounter } from "@switchboard/core/governance";
import { env } from "@switchboard/runtime/env";
import { redis } from "@switchboard/runtime/redis";

/** One count as it stands: calls used in the current window and when it ends (null: no window running). */
export interface QuotaUsage {
  used: number;
  resetAt: string | null;
}

let reader: RateLimiterRedis | null = null;

/**
 * Reads the gateway's counts (apps/gateway tool-quota.ts) without taking any: the same contract key
 * (`redisKeys.toolQuota`) and the same store, through rate-limiter-flexible's own `get`, so the console never
 * spells the key or the stored format itself. Points and duration do not matter to `get`.
 */
export async function readQuotaUsage(counters: readonly QuotaCounter[], now = Date.now()): Promise<QuotaUsage[]> {
  reader ??= new RateLimiterRedis({ storeClient: redis(), keyPrefix: "", points: 1, duration: 1 });
  const prefix = env().REDIS_PREFIX;
  return Promise.all(
    counters.map(async (c) => {
      const res = await reader!.get(redisKeys.toolQuota(prefix, c.quotaId, c.counts, c.identity));
      if (!res || res.msBeforeNext <= 0) return { used: 0, resetAt: null };
      return { used: Math.min(res.consumedPoints, c.limit), resetAt: new Date(now + res.msBeforeNext).toISOString() };
    }),
  );
}
