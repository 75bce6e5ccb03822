import { RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import { redisKeys } from "@switchboard/core/contracts";
import { env } from "@switchboard/runtime/env";
import { logger } from "@switchboard/runtime/logger";
import { redis } from "@switchboard/runtime/redis";

/**
 * How fast a token and a member may open MCP sessions: a count per fixed minute, kept in Redis so every gateway
 * process counts the same initialize requests (rate-limiter-flexible, one key per token or member, each counted
 * by one atomic script: nothing here spans two keys, so Redis Cluster takes it as it is). The session limits
 * bound how many are open; this bounds how fast they turn over, and with it the evictions (and their markers)
 * that a client opening sessions in a loop causes.
 */

export type SessionRateLimit = "token" | "member";

export interface SessionRateRefusal {
  limit: SessionRateLimit;
  /** New sessions allowed per window. */
  max: number;
  windowSeconds: number;
  /** Whole seconds until the window ends (at least 1): the Retry-After value. */
  retryAfterSeconds: number;
}

const WINDOW_SECONDS = 60;

interface Limiters {
  perToken: number;
  perMember: number;
  token: RateLimiterRedis;
  member: RateLimiterRedis;
}
let limiters: Limiters | undefined;

function limiter(points: number): RateLimiterRedis {
  return new RateLimiterRedis({
    storeClient: redis(),
    // The key is the contract's whole key (its prefix included), not rate-limiter-flexible's own prefix.
    keyPrefix: "",
    points,
    duration: WINDOW_SECONDS,
    // Once refused, the rest of the window is refused from memory: a flood costs this process's Redis nothing.
    inMemoryBlockOnConsumed: points + 1,
  });
}

function current(): Limiters {
  const e = env();
  const perToken = e.MCP_SESSIONS_PER_MINUTE_PER_TOKEN;
  const perMember = e.MCP_SESSIONS_PER_MINUTE_PER_MEMBER;
  if (!limiters || limiters.perToken !== perToken || limiters.perMember !== perMember)
    limiters = { perToken, perMember, token: limiter(perToken), member: limiter(perMember) };
  return limiters;
}

/**
 * Counts one new session for the token and for its member. Null when both are within their rate; otherwise which
 * limit refused it and when its window ends. Without Redis nothing is refused (the session cannot be saved
 * either, and that failure is answered on its own).
 */
export async function takeSessionRate(member: {
  tokenId: string;
  teamId: string;
  userId: string;
}): Promise<SessionRateRefusal | null> {
  const l = current();
  const prefix = env().REDIS_PREFIX;
  const steps: [SessionRateLimit, RateLimiterRedis, string, number][] = [
    ["token", l.token, redisKeys.mcpSessionRateToken(prefix, member.tokenId), l.perToken],
    ["member", l.member, redisKeys.mcpSessionRateMember(prefix, member.teamId, member.userId), l.perMember],
  ];
  for (const [limit, rate, key, max] of steps) {
    try {
      await rate.consume(key);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) {
        logger.warn({ err, limit }, "MCP session rate limit unavailable (Redis): session not counted");
        return null;
      }
      return {
        limit,
        max,
        windowSeconds: WINDOW_SECONDS,
        retryAfterSeconds: Math.max(1, Math.ceil(err.msBeforeNext / 1000)),
      };
    }
  }
  return null;
}

/** The sentence a refused client reads. */
export function sessionRateMessage(refusal: SessionRateRefusal): string {
  const who = refusal.limit === "token" ? "this token" : "you in this team";
  return `Too many new MCP sessions for ${who} (at most ${refusal.max} a minute); try again in ${refusal.retryAfterSeconds} s, or reuse an open session.`;
}
