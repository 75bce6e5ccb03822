import type { JobPayload } from "@switchboard/core/contracts";
import { rollUpActivity } from "@switchboard/db/queries/activity-rollup";
import type { JobContext, WorkerDeps } from "../deps";

export type ActivityRollupDeps = Pick<WorkerDeps, "db">;

/**
 * Brings the activity roll-ups up to date with the request log (see `rollUpActivity`: idempotent, and a run that
 * finds another one holding the lock skips, so overlapping schedules or two workers are harmless).
 */
export async function processActivityRollup(
  _payload: JobPayload<"maintenance.activity-rollup">,
  ctx: JobContext,
  deps: ActivityRollupDeps,
) {
  const result = await rollUpActivity(deps.db);
  if (result.newRows > 0) ctx.logger.debug({ ...result }, "activity roll-ups updated");
  return { skipped: result.skipped, newRows: result.newRows, minuteRows: result.minuteRows, dayRows: result.dayRows };
}
