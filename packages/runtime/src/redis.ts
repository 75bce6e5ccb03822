import { env } from "./env";
import { logger } from "./logger";
import { createRedis, type RedisClient } from "./redis-client";

// Kept on globalThis for `next dev`: hot reload re-evaluates this module in the console, and a second client
// would leak the first one's connection. One of the four (see CONTRIBUTING).
const g = globalThis as unknown as { __sbRedis?: RedisClient; __sbRedisSub?: RedisClient };

function connect(name: string): RedisClient {
  return createRedis(env().REDIS_URL, { name: `web-${name}`, logger });
}

/** Commands (sessions, caches). Created on first use, one per process. */
export function redis(): RedisClient {
  g.__sbRedis ??= connect("cmd");
  return g.__sbRedis;
}

/** A connection in subscriber mode for live events; a subscribed connection cannot run other commands. */
export function subscriberConnection(): RedisClient {
  g.__sbRedisSub ??= connect("sub");
  return g.__sbRedisSub;
}
