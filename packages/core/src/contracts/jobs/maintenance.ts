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

/**
 * Retention: every hour, each team's request log and audit trail older than the team's settings (Team's
 * `*RetentionDays`) are deleted in batches of `batch` rows, each batch its own short statement or transaction, so
 * no long lock holds up the route or the console. The audit chain keeps an anchor (docs/audit.md).
 */
export const RETENTION_PRUNE = {
  schedulerId: "maintenance-retention-prune",
  everyMs: 60 * 60_000,
  batch: 5000,
  /** The deployment's own chain (sign-ins, deployment settings) belongs to no team: kept this long. */
  deploymentAuditDays: 365,
} as const;

/** Days to milliseconds, for retention cut-offs. */
export const retentionCutoff = (now: Date, days: number): Date => new Date(now.getTime() - days * 86_400_000);
