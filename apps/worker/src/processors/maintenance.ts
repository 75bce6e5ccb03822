import { OAUTH_FLOW_CLEANUP, RETENTION_PRUNE, retentionCutoff, type JobPayload } from "@switchboard/core/contracts";
import { ACTIVITY_ROLLUP } from "@switchboard/core/activity";
import { listRetention, pruneAudit, pruneCallLog } from "@switchboard/db/queries/audit";
import { pruneActivity } from "@switchboard/db/queries/activity-rollup";
import { deleteStalePendingFlows } from "@switchboard/db/queries/upstream-oauth";
import type { JobContext, WorkerDeps } from "../deps";

export type MaintenanceDeps = Pick<WorkerDeps, "db" | "clock">;

/** Deletes OAuth pending flows that expired or were used more than an hour ago (a single statement). */
export async function processOAuthFlowCleanup(
  _payload: JobPayload<"maintenance.oauth-flow-cleanup">,
  ctx: JobContext,
  deps: MaintenanceDeps,
) {
  const before = new Date(deps.clock().getTime() - OAUTH_FLOW_CLEANUP.keepMs);
  const deleted = await deleteStalePendingFlows(deps.db, before);
  if (deleted > 0) ctx.logger.info({ deleted, before }, "deleted stale OAuth pending flows");
  return { deleted };
}

/**
 * Retention: each team's request log and audit trail past the team's settings, then the deployment's own chain,
 * in batches (RETENTION_PRUNE). The audit chains keep an anchor, so what remains still verifies.
 */
export async function processRetentionPrune(
  _payload: JobPayload<"maintenance.retention-prune">,
  ctx: JobContext,
  deps: MaintenanceDeps,
) {
  const now = deps.clock();
  let requestLog = 0;
  let audit = 0;
  let rollups = 0;
  for (const team of await listRetention(deps.db)) {
    requestLog += await pruneCallLog(
      deps.db,
      team.id,
      retentionCutoff(now, team.requestLogRetentionDays),
      RETENTION_PRUNE.batch,
    );
    audit += await pruneAudit(deps.db, team.id, retentionCutoff(now, team.auditRetentionDays), RETENTION_PRUNE.batch);
    // Minute rows serve the hour, day and week views only; day rows hold the usage history.
    const pruned = await pruneActivity(deps.db, {
      teamId: team.id,
      minutesBefore: new Date(now.getTime() - ACTIVITY_ROLLUP.minuteKeepMs),
      daysBefore: retentionCutoff(now, team.rollupRetentionDays),
      batch: RETENTION_PRUNE.batch,
    });
    rollups += pruned.minutes + pruned.days;
  }
  audit += await pruneAudit(
    deps.db,
    null,
    retentionCutoff(now, RETENTION_PRUNE.deploymentAuditDays),
    RETENTION_PRUNE.batch,
  );
  if (requestLog + audit + rollups > 0)
    ctx.logger.info({ requestLog, audit, rollups }, "pruned records past their retention");
  return { requestLog, audit, rollups };
}
