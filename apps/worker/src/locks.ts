import { randomUUID } from "node:crypto";
import type { RedisClient as Redis } from "@switchboard/runtime/redis-client";
import { redisKeys } from "@switchboard/core/contracts";

export type Release = () => Promise<void>;

/**
 * One job at a time per instance, across every worker: discovery, reconnect, force reconnect, config change
 * and removal of the same instance must not interleave. A Redis key with a token and a TTL (a worker killed
 * mid-job frees its locks when they expire); release deletes only our own token.
 */
export class InstanceLocks {
  /** Locks this worker holds now (instance id -> token), for `releaseAll` when it stops. */
  private readonly held = new Map<string, string>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs = 120_000,
  ) {}

  private key(instanceId: string) {
    return redisKeys.instanceLock(this.prefix, instanceId);
  }

  async tryAcquire(instanceId: string): Promise<Release | null> {
    const token = randomUUID();
    const key = this.key(instanceId);
    const ok = await this.redis.set(key, token, "PX", this.ttlMs, "NX");
    if (ok !== "OK") return null;
    this.held.set(instanceId, token);
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      if (this.held.get(instanceId) === token) this.held.delete(instanceId);
      await this.drop(key, token);
    };
  }

  private async drop(key: string, token: string): Promise<void> {
    await this.redis.eval(
      "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end",
      1,
      key,
      token,
    );
  }

  /**
   * Releases every lock still held: a stopping worker whose jobs went back to the queue unfinished, so that the
   * worker taking them over does not wait for the locks to expire.
   */
  async releaseAll(): Promise<number> {
    const held = [...this.held];
    this.held.clear();
    await Promise.all(held.map(([instanceId, token]) => this.drop(this.key(instanceId), token).catch(() => {})));
    return held.length;
  }
}
