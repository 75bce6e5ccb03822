import type { RedisClient as Redis } from "@switchboard/runtime/redis-client";
import { redisKeys } from "@switchboard/core/contracts";
import type { Logger } from "@switchboard/runtime/logger";

/**
 * Redis restarting without persistence (or flushed) comes back empty: health schedules, reconnect loops and
 * pending discoveries are gone, while PostgreSQL still says what should run. BullMQ reconnects by itself but
 * cannot know that; this watcher can. After each reconciliation it leaves a marker key; whenever its client
 * becomes ready again after a lost connection and the marker is missing, it reconciles again (idempotent, so
 * several workers doing it at once add nothing). A Redis that kept its data keeps the marker: nothing to do.
 */
export class RedisDataLossWatcher {
  private readonly key: string;
  private running: Promise<void> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly onReady = () => void this.check();

  constructor(
    private readonly deps: {
      redis: Redis;
      prefix: string;
      reconcile: () => Promise<unknown>;
      logger: Logger;
      /** Wait before trying again when the reconciliation itself failed (Redis or PostgreSQL still away). */
      retryMs?: number;
    },
  ) {
    this.key = redisKeys.workerReconciled(deps.prefix);
  }

  /** Records that Redis holds what PostgreSQL asks for, and starts watching reconnections. */
  async start(): Promise<void> {
    await this.mark();
    this.deps.redis.on("ready", this.onReady);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
    this.deps.redis.off("ready", this.onReady);
  }

  private async mark() {
    await this.deps.redis.set(this.key, new Date().toISOString());
  }

  /** Reconciles if the marker is gone; one run at a time. */
  check(): Promise<void> {
    this.running ??= this.run().finally(() => (this.running = undefined));
    return this.running;
  }

  private async run() {
    if (this.closed) return;
    try {
      if ((await this.deps.redis.exists(this.key)) === 1) return;
      this.deps.logger.warn("Redis came back without the worker's data; reconciling from PostgreSQL again");
      await this.deps.reconcile();
      await this.mark();
    } catch (err) {
      if (this.closed) return;
      this.deps.logger.warn({ err }, "could not check or restore Redis after a reconnection; trying again");
      clearTimeout(this.retry);
      this.retry = setTimeout(() => void this.check(), this.deps.retryMs ?? 2_000);
      this.retry.unref();
    }
  }
}
