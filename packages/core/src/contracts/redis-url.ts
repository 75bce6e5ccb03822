/**
 * The connection fields of a redis:// or rediss:// URL, as plain data: web (producer) and worker both build
 * their BullMQ connection options from the same REDIS_URL and must read it the same way.
 */
export interface RedisConnectionFields {
  host: string;
  port: number;
  username?: string;
  password?: string;
  db: number;
  tls?: Record<string, never>;
}

export function redisConnectionFromUrl(url: string): RedisConnectionFields {
  const u = new URL(url);
  return {
    host: u.hostname,
    port: u.port ? Number(u.port) : 6379,
    username: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0,
    tls: u.protocol === "rediss:" ? {} : undefined,
  };
}
