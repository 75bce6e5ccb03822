import type { Db } from "@switchboard/db/client";
import { getHealthStates, type HealthState, recordHealthyChecks } from "@switchboard/db/queries/instance-lifecycle";
import type { Logger } from "@switchboard/runtime/logger";

/** Which write a health check needs. */
export type HealthWrite = "none" | "touch" | "record";

/**
 * A check that moved the failure counter or the degraded flag is written at once ("record"); an unchanged
 * success only refreshes lastHealthCheckAt / lastHealthyAt when the stored time is older than `refreshMs`
 * ("touch", batched), otherwise nothing is written. At 10,000 instances every 120 s that turns ~83 writes/s into
 * ~17 touches/s in a handful of statements.
 */
export function healthWrite(
  before: { consecutiveFailures: number; degraded: boolean; lastCheckAt: number | null },
  after: { consecutiveFailures: number; degraded: boolean },
  ok: boolean,
  now: number,
  refreshMs: number,
): HealthWrite {
  if (!ok || after.consecutiveFailures !== before.consecutiveFailures || after.degraded !== before.degraded)
    return "record";
  if (before.lastCheckAt === null || now - before.lastCheckAt >= refreshMs) return "touch";
  return "none";
}

interface Waiter {
  resolve: (state: HealthState | undefined) => void;
  reject: (error: unknown) => void;
}

/**
 * The health path's database access, batched: the states of the checks that start in the same turn of the
 * event loop are read with one query, and the "still healthy" refreshes are written with one statement per
 * flush (every `flushMs`, or sooner when `maxBatch` pile up).
 */
export class HealthStore {
  private waiting = new Map<string, Waiter[]>();
  private loadScheduled = false;
  private touches = new Set<string>();
  private flushing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly deps: { db: Db; clock: () => Date; logger: Logger },
    private readonly options: { flushMs?: number; maxBatch?: number } = {},
  ) {
    this.timer = setInterval(() => void this.flush(), options.flushMs ?? 1_000);
    this.timer.unref();
  }

  load(instanceId: string): Promise<HealthState | undefined> {
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(instanceId);
      if (list) list.push({ resolve, reject });
      else this.waiting.set(instanceId, [{ resolve, reject }]);
      if (!this.loadScheduled) {
        this.loadScheduled = true;
        // A few milliseconds gather the checks that start together into one query.
        setTimeout(() => void this.runLoads(), 5);
      }
    });
  }

  touch(instanceId: string): void {
    this.touches.add(instanceId);
    if (this.touches.size >= (this.options.maxBatch ?? 500)) void this.flush();
  }

  /** Writes the pending refreshes now (also on close). */
  flush(): Promise<void> {
    if (this.touches.size === 0) return this.flushing;
    const ids = [...this.touches];
    this.touches.clear();
    this.flushing = this.flushing.then(async () => {
      try {
        await recordHealthyChecks(this.deps.db, { instanceIds: ids, at: this.deps.clock() });
      } catch (err) {
        // Only a timestamp refresh is lost; the next check of each instance touches it again.
        this.deps.logger.warn({ err, instances: ids.length }, "could not record healthy checks");
      }
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }

  private async runLoads(): Promise<void> {
    this.loadScheduled = false;
    const batch = this.waiting;
    this.waiting = new Map();
    const ids = [...batch.keys()];
    const max = this.options.maxBatch ?? 500;
    await Promise.all(
      Array.from({ length: Math.ceil(ids.length / max) }, async (_, i) => {
        const chunk = ids.slice(i * max, (i + 1) * max);
        try {
          const states = await getHealthStates(this.deps.db, chunk);
          for (const id of chunk) for (const w of batch.get(id) ?? []) w.resolve(states.get(id));
        } catch (error) {
          for (const id of chunk) for (const w of batch.get(id) ?? []) w.reject(error);
        }
      }),
    );
  }
}
