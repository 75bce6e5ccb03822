import type { JobPayload } from "@switchboard/core/contracts";
import { deleteCatalogue } from "@switchboard/db/queries/catalogue";
import { listInstanceRefsOfInstallation, listInstanceRefsOfMember } from "@switchboard/db/queries/instance";
import type { JobContext, WorkerDeps } from "../deps";
import { stopInstanceRuntime, withInstanceLock, type LockDeps, type StopDeps } from "../instance-lock";

export type RemovalDeps = LockDeps & StopDeps & Pick<WorkerDeps, "db">;

/**
 * Stops every job, schedule and process of the instances and deletes their catalogue. The payload carries
 * the ids because the console may already have deleted the rows (cascade); instances still in the database
 * for the same installation / member are included too.
 */
async function removeInstances(deps: RemovalDeps, ctx: JobContext, instanceIds: string[]) {
  for (const instanceId of instanceIds) {
    await withInstanceLock(deps, ctx, instanceId, async () => {
      await stopInstanceRuntime(deps, instanceId);
      await deps.connections.remove(instanceId);
      await deleteCatalogue(deps.db, [instanceId]);
    });
  }
  ctx.logger.info({ instances: instanceIds.length }, "instances stopped and catalogue deleted");
  return { removed: instanceIds.length };
}

export async function processInstallationRemoved(
  payload: JobPayload<"installation.removed">,
  ctx: JobContext,
  deps: RemovalDeps,
) {
  const stillThere = await listInstanceRefsOfInstallation(deps.db, payload.installationId);
  const ids = [...new Set([...payload.instanceIds, ...stillThere.map((r) => r.id)])];
  return removeInstances(deps, ctx, ids);
}

export async function processMemberRemoved(payload: JobPayload<"member.removed">, ctx: JobContext, deps: RemovalDeps) {
  const stillThere = await listInstanceRefsOfMember(deps.db, { teamId: payload.teamId, userId: payload.userId });
  const ids = [...new Set([...payload.instanceIds, ...stillThere.map((r) => r.id)])];
  return removeInstances(deps, ctx, ids);
}
