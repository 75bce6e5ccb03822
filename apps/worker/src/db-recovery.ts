import type { Logger } from "@switchboard/runtime/logger";

/**
 * PostgreSQL away for longer than a job's retries (about 15 s) leaves work undone: a discovery that used up its
 * attempts is gone while its instance still says `discovering_tools`. BullMQ cannot know that; PostgreSQL can.
 * After a job fails because the database was unavailable, this watcher probes it every few seconds and, once it
 * answers, reconciles from it again (idempotent: only what is missing is queued). One watch at a time.
 */
export class DatabaseRecoveryWatcher {
  private watching: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly deps: {
      probe: () => Promise<unknown>;
      reconcile: () => Promise<unknown>;
      logger: Logger;
      intervalMs?: number;
    },
  ) {}

  /** A job failed with the database unavailable: watch for it to come back (no-op if already watching). */
  unavailable(): void {
    if (this.closed || this.watching) return;
    this.deps.logger.warn("PostgreSQL is unavailable; will reconcile once it answers again");
    this.watching = this.watch().finally(() => (this.watching = undefined));
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private async watch() {
    const interval = this.deps.intervalMs ?? 2_000;
    while (!this.closed) {
      await new Promise<void>((resolve) => (this.timer = setTimeout(resolve, interval)));
      if (this.closed) return;
      try {
        await this.deps.probe();
        await this.deps.reconcile();
        this.deps.logger.info("PostgreSQL is back; reconciled");
        return;
      } catch {
        // still away (or the reconciliation hit it going away again): keep watching
      }
    }
  }
}
