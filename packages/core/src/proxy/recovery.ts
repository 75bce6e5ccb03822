import type { RediscoveryTrigger, StatusSink } from "./types";

/**
 * Turns "a call to an offline/error instance succeeded" into one status change and one background
 * re-discovery per instance at a time, however many calls notice it together. Share one coordinator between
 * the proxy servers of a process so that two sessions of a member do not both re-discover.
 */
export class RecoveryCoordinator {
  private readonly inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly deps: {
      status: Pick<StatusSink, "recoveryDetected">;
      rediscovery: RediscoveryTrigger;
      /** Re-discovery failures land here; the app keeps the cached catalogue either way. */
      onError?: (instanceId: string, error: unknown) => void;
    },
  ) {}

  /** Starts recovery unless one is running for the instance; never waits for it. */
  detected(instanceId: string): void {
    if (this.inFlight.has(instanceId)) return;
    const run = (async () => {
      await this.deps.status.recoveryDetected(instanceId);
      await this.deps.rediscovery.request(instanceId);
    })()
      .catch((error: unknown) => this.deps.onError?.(instanceId, error))
      .finally(() => this.inFlight.delete(instanceId));
    this.inFlight.set(instanceId, run);
  }

  isRecovering(instanceId: string): boolean {
    return this.inFlight.has(instanceId);
  }

  /** Resolves when no recovery is running (tests and graceful shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all(this.inFlight.values());
  }
}
