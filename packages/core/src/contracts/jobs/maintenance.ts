/**
 * Housekeeping that belongs to no instance: one job scheduler per task under a fixed id, so every worker (and
 * every restart) upserting it leaves exactly one schedule.
 */
export const OAUTH_FLOW_CLEANUP = {
  /** Job scheduler id (not a job id). */
  schedulerId: "maintenance-oauth-flow-cleanup",
  everyMs: 15 * 60_000,
  /**
   * Flows expired or used longer ago than this are deleted. Kept for an hour rather than deleted on expiry so
   * that a replayed or late callback still learns "used" / "expired" instead of "unknown".
   */
  keepMs: 60 * 60_000,
} as const;
