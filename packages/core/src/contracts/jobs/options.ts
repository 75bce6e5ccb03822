/** `true`: removed when done; `count` latest / those younger than `age` seconds kept. */
type Keep =
  boolean | { readonly count: number; readonly age?: number } | { readonly age: number; readonly count?: number };

/**
 * How the queue treats a job, as plain data: core holds no BullMQ. The fields are a subset of BullMQ's
 * `JobsOptions` under the same names, and runtime (`@switchboard/runtime/jobs/options`) hands them over as they
 * are (its types check that they still fit).
 */
export interface JobOptions {
  /** Runs in all, the first included. */
  readonly attempts?: number;
  readonly backoff?: { readonly type: "exponential" | "fixed"; readonly delay: number };
  /** Milliseconds before the job may run. */
  readonly delay?: number;
  readonly removeOnComplete?: Keep;
  readonly removeOnFail?: Keep;
}

/** A job failing on infrastructure (PostgreSQL or Redis restarting) is retried after 1, 2, 4 and 8 s. */
const RETRY_INFRA = { attempts: 5, backoff: { type: "exponential", delay: 1_000 } } as const;

/**
 * The option sets the jobs use, in one table: each job definition (`JOBS`) names its own, and the few places
 * that queue a job another way (a rediscovery from the hot path, an early health re-check) name theirs.
 *
 * Jobs with a deterministic id are removed when they finish (completed or failed): a finished job kept under
 * its id would make the queue ignore the next one with the same id.
 */
export const JOB_OPTION_PRESETS = {
  /**
   * Triggers (installation created, config changed, restart, crash, ...): retried on infrastructure errors;
   * the latest ones kept for inspection.
   */
  trigger: { ...RETRY_INFRA, removeOnComplete: { count: 1_000 }, removeOnFail: { count: 5_000 } },
  /**
   * The worker's own discovery and reconnect jobs (deduplicated by id). ~15 s of PostgreSQL outage pass without
   * losing the discovery or the reconnect loop; a longer outage exhausts the retries, and the next reconciliation
   * (worker start, Redis data loss) starts them again from the statuses in PostgreSQL.
   */
  singleton: { ...RETRY_INFRA, removeOnComplete: true, removeOnFail: true },
  /** Requests from the hot path (rediscovery, OAuth refresh), deduplicated by id: a few attempts, then dropped. */
  singletonOnce: {
    attempts: 3,
    backoff: { type: "exponential", delay: 1_000 },
    removeOnComplete: true,
    removeOnFail: true,
  },
  /**
   * An upstream's list_changed (heard on the gateway's or the worker's pooled connections), deduplicated per
   * instance (runtime's `catalogueRefreshOptions`) and delayed a little so a burst of notifications (a server
   * registering several tools) becomes one refresh; one more waits behind a running refresh. A few attempts: the
   * next notification, or the next discovery, catches up with what a dropped one missed.
   */
  catalogueRefresh: {
    delay: 500,
    attempts: 3,
    backoff: { type: "exponential", delay: 1_000 },
    removeOnComplete: true,
    removeOnFail: true,
  },
  /** Repeated jobs (health probes, maintenance): each run removed when done, the last failures kept. */
  repeated: { removeOnComplete: true, removeOnFail: { count: 100 } },
  /** A console's connection test of a local command: one attempt (the person waits), its answer kept ten minutes. */
  connectionTest: { attempts: 1, removeOnComplete: { age: 600 }, removeOnFail: { age: 600 } },
} as const satisfies Record<string, JobOptions>;
