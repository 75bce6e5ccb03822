import type { RedisClient as Redis } from "./redis-client";
import { heartbeatTtlMs, redisKeys, stdioLeaseSchema, type StdioLease } from "@switchboard/core/contracts";

/**
 * Which workers are alive, in Redis: the workers write their heartbeats, the gateway reads them (the route, to
 * know at once that no worker can run a stdio server; the sweep, to find workers that stopped without leaving).
 * Times are Redis's own clock (TIME inside the scripts), so hosts whose clocks disagree still agree on who is
 * alive.
 */

const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

// 1 when the worker was not in the set: its first beat, or a beat after a sweep took it for gone.
const BEAT = `${NOW}
return redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])`;

const MEMBERS = `${NOW}
return { redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf'), redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now) }`;

const BRIDGE_VIEW = `${NOW}
return { redis.call('ZCOUNT', KEYS[1], '(' .. now, '+inf'), redis.call('GET', KEYS[2]) or '' }`;

// Claims a gone worker for one sweeper: only while its heartbeat is still out of date (a worker that was only slow
// and beat again meanwhile stays), and only once. Returns the instances it held; false when not claimed.
const CLAIM = `${NOW}
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) > now then return false end
local held = redis.call('SMEMBERS', KEYS[2])
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
return held`;

// Hands instances a sweep could not finish back, under the gone worker, for the next sweep.
const UNCLAIM = `
redis.call('ZADD', KEYS[1], 'NX', 0, ARGV[1])
for i = 2, #ARGV do redis.call('SADD', KEYS[2], ARGV[i]) end
return 1`;

// The lease, if that worker still holds it (another worker may have taken the instance over meanwhile).
const DROP_LEASE = `
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local ok, lease = pcall(cjson.decode, v)
if ok and type(lease) == 'table' and lease.workerId == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

export class WorkerRegistry {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private get alive(): string {
    return redisKeys.workersAlive(this.prefix);
  }

  /** This worker is alive for `ttlMs` more. True when it was not counted before this beat. */
  async beat(workerId: string, ttlMs: number): Promise<boolean> {
    return (await this.redis.eval(BEAT, 1, this.alive, workerId, String(ttlMs))) === 1;
  }

  /**
   * Beats now and every `everyMs` until the returned function is called (each beat valid for `missedBeats`
   * renewals). A failed beat (Redis away) is tried again at the next tick, and reported once per outage. `onRevived`: a later
   * beat found the worker no longer counted, so a sweep took it for gone (a pause longer than the heartbeat,
   * Redis away that long, Redis emptied) and took its stdio instances back; the worker must pick them up again.
   */
  async keepAlive(
    workerId: string,
    everyMs: number,
    hooks: { onError: (error: unknown) => void; onRevived: () => void },
  ): Promise<() => void> {
    const ttlMs = heartbeatTtlMs(everyMs);
    // Reported once per outage (the Redis client says more), not at every tick.
    let failing = false;
    const failed = (error: unknown) => {
      if (!failing) hooks.onError(error);
      failing = true;
    };
    await this.beat(workerId, ttlMs).then(() => void (failing = false), failed);
    const timer = setInterval(
      () =>
        void this.beat(workerId, ttlMs).then((added) => {
          failing = false;
          if (added) hooks.onRevived();
        }, failed),
      everyMs,
    );
    timer.unref();
    return () => clearInterval(timer);
  }

  /** A worker stopping cleanly: it released its leases and is no longer counted. */
  async leave(workerId: string): Promise<void> {
    await this.redis.zrem(this.alive, workerId);
    await this.redis.del(redisKeys.workerLeases(this.prefix, workerId));
  }

  /** Workers with a current heartbeat, and those whose heartbeat ran out without them leaving. */
  async members(): Promise<{ live: string[]; gone: string[] }> {
    const [live, gone] = (await this.redis.eval(MEMBERS, 1, this.alive)) as [string[], string[]];
    return { live, gone };
  }

  /** For the route, in one round trip: how many workers are alive, and who holds the instance's stdio lease. */
  async bridgeView(instanceId: string): Promise<{ liveWorkers: number; lease: StdioLease | null }> {
    const [liveWorkers, raw] = (await this.redis.eval(
      BRIDGE_VIEW,
      2,
      this.alive,
      redisKeys.stdioLease(this.prefix, instanceId),
    )) as [number, string];
    let lease: StdioLease | null = null;
    if (raw) {
      try {
        const parsed = stdioLeaseSchema.safeParse(JSON.parse(raw));
        if (parsed.success) lease = parsed.data;
      } catch {
        // Not JSON: no usable lease.
      }
    }
    return { liveWorkers, lease };
  }

  /** Deletes the instance's lease if `workerId` still holds it, so the next worker takes it over at once. */
  async dropLease(instanceId: string, workerId: string): Promise<boolean> {
    return (await this.redis.eval(DROP_LEASE, 1, redisKeys.stdioLease(this.prefix, instanceId), workerId)) === 1;
  }

  /**
   * Takes a gone worker off the list, once across processes, and returns the instances whose stdio lease it held
   * (as it recorded them); null when another sweep claimed it first or it beat again meanwhile.
   */
  async claim(workerId: string): Promise<string[] | null> {
    const keys = [this.alive, redisKeys.workerLeases(this.prefix, workerId)];
    const held = (await this.redis.eval(CLAIM, 2, ...keys, workerId)) as string[] | null;
    return held ?? null;
  }

  /** Gives the instances a sweep could not take back to the next sweep (the worker stays gone). */
  async unclaim(workerId: string, instanceIds: readonly string[]): Promise<void> {
    const keys = [this.alive, redisKeys.workerLeases(this.prefix, workerId)];
    await this.redis.eval(UNCLAIM, 2, ...keys, workerId, ...instanceIds);
  }

  /** One sweeper per tick across processes: true for the one that got it (it expires by itself). */
  async trySweepLock(ttlMs: number): Promise<boolean> {
    return (await this.redis.set(redisKeys.workerSweepLock(this.prefix), "1", "PX", ttlMs, "NX")) === "OK";
  }
}
