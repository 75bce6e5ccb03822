import { Redis } from "ioredis";
import { env } from "./env";

const g = globalThis as unknown as { __sbRedis?: Redis; __sbRedisSub?: Redis };

function connect(name: string): Redis {
  const client = new Redis(env().REDIS_URL, { connectionName: `switchboard-web-${name}`, maxRetriesPerRequest: 3, lazyConnect: false });
  // ioredis reconnects by itself; without a listener an outage would crash the process with an unhandled error.
  client.on("error", () => {});
  return client;
}

/** Commands (sessions, caches). Created on first use, one per process. */
export function redis(): Redis {
  g.__sbRedis ??= connect("cmd");
  return g.__sbRedis;
}

/** A connection in subscriber mode for live events; a subscribed connection cannot run other commands. */
export function subscriberConnection(): Redis {
  g.__sbRedisSub ??= connect("sub");
  return g.__sbRedisSub;
}

export function redisKey(...parts: string[]): string {
  return [env().REDIS_PREFIX, ...parts].join(":");
}
