import { OAUTH_FLOW_CLEANUP, type JobPayload } from "@switchboard/core/contracts";
import { deleteStalePendingFlows } from "@switchboard/db/queries/upstream-oauth";
import type { JobContext, WorkerDeps } from "../deps";

/** Deletes OAuth pending flows that expired or were used more than an hour ago (a single statement). */
export async function processOAuthFlowCleanup(
  _payload: JobPayload<"maintenance.oauth-flow-cleanup">,
  ctx: JobContext,
  deps: WorkerDeps,
) {
  const before = new Date(deps.clock().getTime() - OAUTH_FLOW_CLEANUP.keepMs);
  const deleted = await deleteStalePendingFlows(deps.db, before);
  if (deleted > 0) ctx.logger.info({ deleted, before }, "deleted stale OAuth pending flows");
  return { deleted };
}
