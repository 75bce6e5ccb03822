import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { redisKeys } from "@switchboard/core/contracts";
import { quotaCounters, type QuotaCounter, type QuotaRefusal, type ToolQuota } from "@switchboard/core/governance";
import type { QuotaGate } from "@switchboard/core/proxy";
import { getDb } from "@switchboard/db/client";
import { listTeamToolQuotas } from "@switchboard/db/queries/quota";
import { env } from "@switchboard/runtime/env";
import { logger } from "@switchboard/runtime/logger";
import { redis } from "@switchboard/runtime/redis";

/**
 * Counts tool calls against a team's quotas (core governance `quotaCounters` says which counters a call takes).
 * The counts live in Redis, so every gateway process counts the same calls (rate-limiter-flexible: one atomic
 * script per counter, one key each, so Redis Cluster takes it as it is), keyed on the member, token, installation
 * or tool, never the session. A team's limits are read from PostgreSQL and kept here for a few seconds.
 */

/** How long this process keeps a team's limits: a change an admin makes applies within this time. */
export const QUOTA_SETTINGS_TTL_MS = 5_000;

const settings = new Map<string, { at: number; value: Promise<ToolQuota[]> }>();

function teamQuotas(teamId: string): Promise<ToolQuota[]> {
  const hit = settings.get(teamId);
  if (hit && Date.now() - hit.at < QUOTA_SETTINGS_TTL_MS) return hit.value;
  const value = listTeamToolQuotas(getDb(), { teamId });
  settings.set(teamId, { at: Date.now(), value });
  value.catch(() => settings.delete(teamId));
  return value;
}

/** One limiter per limit and window length; the key carries the rest. */
const limiters = new Map<string, RateLimiterRedis>();

function limiter(counter: QuotaCounter): RateLimiterRedis {
  const id = `${counter.limit}/${counter.windowSeconds}`;
  let rate = limiters.get(id);
  if (!rate) {
    rate = new RateLimiterRedis({
      storeClient: redis(),
      // The key is the contract's whole key (its prefix included), not rate-limiter-flexible's own prefix.
      keyPrefix: "",
      points: counter.limit,
      duration: counter.windowSeconds,
      // Once refused, the rest of the window is refused from memory: a flood costs this process's Redis nothing.
      inMemoryBlockOnConsumed: counter.limit + 1,
    });
    limiters.set(id, rate);
  }
  return rate;
}

type Taken = { counter: QuotaCounter; key: string } & (
  { ok: true } | { ok: false; msBeforeNext: number } | { ok: false; unavailable: unknown }
);

/**
 * The quota gate of one member's token. A call takes every counter at once; if one refuses it, the counters it
 * took are given back, so a refused call counts against nothing but the limit that refused it. Without Redis
 * (or its limits) nothing is refused: quotas must not take the route down with them.
 */
export function toolQuotaGate(member: { teamId: string; userId: string; tokenId: string }): QuotaGate {
  return {
    async take(call) {
      let quotas: ToolQuota[];
      try {
        quotas = await teamQuotas(member.teamId);
      } catch (err) {
        logger.warn({ err, teamId: member.teamId }, "tool quotas unavailable (database): call not counted");
        return null;
      }
      if (quotas.length === 0) return null;
      const counters = quotaCounters(quotas, { ...member, ...call });
      if (counters.length === 0) return null;
      const prefix = env().REDIS_PREFIX;
      const taken: Taken[] = await Promise.all(
        counters.map(async (counter): Promise<Taken> => {
          const key = redisKeys.toolQuota(prefix, counter.quotaId, counter.counts, counter.identity);
          try {
            await limiter(counter).consume(key);
            return { counter, key, ok: true };
          } catch (err) {
            if (err instanceof RateLimiterRes) return { counter, key, ok: false, msBeforeNext: err.msBeforeNext };
            return { counter, key, ok: false, unavailable: err };
          }
        }),
      );
      const refused = taken.find((t) => !t.ok && "msBeforeNext" in t);
      for (const t of taken)
        if (!t.ok && "unavailable" in t)
          logger.warn(
            { err: t.unavailable, quotaId: t.counter.quotaId },
            "tool quota unavailable (Redis): not counted",
          );
      if (!refused || refused.ok || !("msBeforeNext" in refused)) return null;
      const given = taken.filter((t) => t.ok);
      await Promise.all(
        given.map((t) =>
          limiter(t.counter)
            .reward(t.key, 1)
            .catch(() => undefined),
        ),
      );
      const { counter } = refused;
      const refusal: QuotaRefusal = {
        subject: counter.subject,
        window: counter.window,
        counts: counter.counts,
        limit: counter.limit,
        resetAt: new Date(Date.now() + Math.max(0, refused.msBeforeNext)).toISOString(),
      };
      return refusal;
    },
  };
}
