/**
 * Deterministic ids. A job added with an id that already exists is ignored by the queue, which is how
 * "at most one reconnect job per instance" and "reconciliation never duplicates" hold however many triggers
 * arrive. `:` is the queue's key separator and is not allowed in custom ids.
 */
export const jobIds = {
  discover: (instanceId: string) => `discover-${instanceId}`,
  reconnect: (instanceId: string) => `reconnect-${instanceId}`,
  /** Deduplication id (not a job id): a burst of list_changed notifications of an instance is one refresh. */
  catalogueRefresh: (instanceId: string) => `catalogue-refresh-${instanceId}`,
  /** The self-rescheduling OAuth refresh loop of an instance (at most one). */
  oauthRefresh: (instanceId: string) => `oauth-refresh-${instanceId}`,
  /** A refresh asked for by a 401 in the proxy; one pending per instance however many calls failed. */
  oauthUnauthorized: (instanceId: string) => `oauth-unauthorized-${instanceId}`,
  /** Job scheduler id (not a job id): upserting it again replaces the schedule instead of adding one. */
  healthScheduler: (instanceId: string) => `health-${instanceId}`,
  /** The early re-check after an instance's `failures`-th failed health check in a row (one per step). */
  healthRecheck: (instanceId: string, failures = 1) => `health-recheck-${instanceId}-${failures}`,
} as const;
