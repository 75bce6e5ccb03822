/**
 * The connection fields of REDIS_URL, as plain data: web (producer) and worker both build their Redis clients and
 * BullMQ connection options from the same REDIS_URL and must read it the same way.
 *
 * `redis://` and `rediss://` (TLS) name one Redis server. `redis+cluster://` and `rediss+cluster://` name one node
 * of a Redis Cluster (a managed service's configuration endpoint, or any node): the client learns the others from
 * it. A cluster has only database 0.
 */
export interface RedisConnectionFields {
  host: string;
  port: number;
  username?: string;
  password?: string;
  db: number;
  tls?: Record<string, never>;
  cluster: boolean;
}

/** The schemes REDIS_URL may use (env schemas check it with this). */
export const REDIS_URL_PATTERN = /^rediss?(\+cluster)?:\/\//;

export function redisConnectionFromUrl(url: string): RedisConnectionFields {
  const u = new URL(url);
  const cluster = u.protocol.endsWith("+cluster:");
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0;
  if (cluster && db !== 0) throw new Error("A Redis Cluster has only database 0: drop the /N from REDIS_URL");
  return {
    host: u.hostname,
    port: u.port ? Number(u.port) : 6379,
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db,
    tls: u.protocol.startsWith("rediss") ? {} : undefined,
    cluster,
  };
}
