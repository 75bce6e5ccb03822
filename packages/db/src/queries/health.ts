import type { InstanceStatus } from "@switchboard/core/status";
import type { DbTx } from "../client";

/** What one health check needs to know about an instance; nothing else is read on the health path. */
export interface HealthState {
  id: string;
  installationId: string;
  userId: string;
  teamId: string;
  status: InstanceStatus;
  transport: string;
  healthConsecutiveFailures: number;
  healthDegraded: boolean;
  lastHealthCheckAt: Date | null;
}

/**
 * Health state of many instances in one query (the worker batches the checks that run at the same moment);
 * instances that do not exist are absent from the map.
 */
export async function getHealthStates(db: DbTx, instanceIds: readonly string[]): Promise<Map<string, HealthState>> {
  const rows = await db.instance.findMany({
    where: { id: { in: [...instanceIds] } },
    select: {
      id: true,
      installationId: true,
      userId: true,
      status: true,
      healthConsecutiveFailures: true,
      healthDegraded: true,
      lastHealthCheckAt: true,
      installation: { select: { teamId: true, template: { select: { transport: true } } } },
    },
  });
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        installationId: r.installationId,
        userId: r.userId,
        teamId: r.installation.teamId,
        status: r.status,
        transport: r.installation.template.transport,
        healthConsecutiveFailures: r.healthConsecutiveFailures,
        healthDegraded: r.healthDegraded,
        lastHealthCheckAt: r.lastHealthCheckAt,
      },
    ]),
  );
}

/**
 * Successful checks that changed nothing, written together: one statement for the batch. Only instances still
 * healthy are touched, so a failure recorded meanwhile is never painted over.
 */
export async function recordHealthyChecks(
  db: DbTx,
  input: { instanceIds: readonly string[]; at: Date },
): Promise<number> {
  if (input.instanceIds.length === 0) return 0;
  const result = await db.instance.updateMany({
    where: { id: { in: [...input.instanceIds] }, healthConsecutiveFailures: 0 },
    data: { lastHealthCheckAt: input.at, lastHealthyAt: input.at },
  });
  return result.count;
}
