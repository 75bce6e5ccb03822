import type { RedisClient as Redis } from "@switchboard/runtime/redis-client";

import { redisKeys, type StdioLease } from "@switchboard/core/contracts";

export type LeaseHolder = StdioLease;

export type LeaseResult = ({ mine: true } | { mine: false }) & LeaseHolder;

// KEYS[2] is the holder's set of leased instances (redisKeys.workerLeases): whoever finds this worker gone
// (its heartbeat ran out) reads what it held there, after the leases themselves may have expired.
const ACQUIRE = `
if redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then redis.call('sadd', KEYS[2], ARGV[3]) return 1 end
return 0`;
const RENEW = `
local v = redis.call('get', KEYS[1])
if v == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
redis.call('srem', KEYS[2], ARGV[3])
return 0`;
const RELEASE = `
redis.call('srem', KEYS[2], ARGV[2])
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

/**
 * Which worker runs an instance's stdio process. With several workers each process runs on exactly one: the
 * holder of its lease (SET NX with a TTL, renewed every third of it). A worker that dies stops renewing, the
 * lease expires and the next worker that needs the instance takes it over. The proxy route reads the same key
 * to find the bridge that serves the instance.
 */
export class StdioLeases {
  private readonly held = new Set<string>();
  private readonly timer: NodeJS.Timeout;
  private readonly value: string;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    readonly self: LeaseHolder,
    private readonly ttlMs = 15_000,
    private readonly onLost: (instanceId: string) => void = () => {},
  ) {
    this.value = JSON.stringify(self);
    this.timer = setInterval(() => void this.renewAll(), Math.max(100, Math.floor(ttlMs / 3)));
    this.timer.unref();
  }

  private keys(instanceId: string): [string, string] {
    return [redisKeys.stdioLease(this.prefix, instanceId), redisKeys.workerLeases(this.prefix, this.self.workerId)];
  }

  async acquire(instanceId: string): Promise<LeaseResult> {
    const keys = this.keys(instanceId);
    const [key] = keys;
    if ((await this.redis.eval(ACQUIRE, 2, ...keys, this.value, String(this.ttlMs), instanceId)) === 1) {
      this.held.add(instanceId);
      return { mine: true, ...this.self };
    }
    const current = await this.redis.get(key);
    if (current === this.value) {
      this.held.add(instanceId);
      await this.redis.pexpire(key, this.ttlMs);
      await this.redis.sadd(keys[1], instanceId);
      return { mine: true, ...this.self };
    }
    if (current === null) return this.acquire(instanceId); // expired between the two calls
    const holder = JSON.parse(current) as LeaseHolder;
    return { mine: false, ...holder };
  }

  async holder(instanceId: string): Promise<LeaseHolder | null> {
    const current = await this.redis.get(redisKeys.stdioLease(this.prefix, instanceId));
    return current ? (JSON.parse(current) as LeaseHolder) : null;
  }

  isHeld(instanceId: string): boolean {
    return this.held.has(instanceId);
  }

  async release(instanceId: string): Promise<void> {
    if (!this.held.delete(instanceId)) return;
    await this.redis.eval(RELEASE, 2, ...this.keys(instanceId), this.value, instanceId).catch(() => {});
  }

  private async renewAll(): Promise<void> {
    for (const instanceId of [...this.held]) {
      try {
        const ok = await this.redis.eval(
          RENEW,
          2,
          ...this.keys(instanceId),
          this.value,
          String(this.ttlMs),
          instanceId,
        );
        if (ok !== 1) {
          // Someone else holds it now (we were cut off longer than the TTL): stop our copy.
          this.held.delete(instanceId);
          this.onLost(instanceId);
        }
      } catch {
        // Redis unreachable: keep trying; if it stays away longer than the TTL another worker may take over.
      }
    }
  }

  /** Stops renewing and releases every lease (graceful shutdown hands the processes over at once). */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.held].map((id) => this.release(id)));
  }

  /** Stops renewing without releasing: what a killed worker looks like to the others (tests). */
  abandon(): void {
    clearInterval(this.timer);
    this.held.clear();
  }
}
