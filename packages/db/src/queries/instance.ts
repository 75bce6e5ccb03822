import type { InstanceStatus } from "@switchboard/core/status";
import type { DbTx } from "../client";

/**
 * The instance aggregate's core: the ids every event about an instance carries (`InstanceRef`) and the reads that
 * list them. Who else writes or reads instances has its own file: the worker's lifecycle writes
 * (`instance-lifecycle`), the console's read models (`instance-views`), events (`instance-events`), secret values
 * for redaction (`instance-secrets`); the launch context lives with launch resolution (`../launch`).
 */

/** The ids every event about an instance carries, plus its status. */
export interface InstanceRef {
  id: string;
  installationId: string;
  userId: string;
  teamId: string;
  status: InstanceStatus;
}

/** What `toInstanceRef` needs: select it, or spread it into a larger select. */
export const instanceRefSelect = {
  id: true,
  installationId: true,
  userId: true,
  status: true,
  installation: { select: { teamId: true } },
} as const;

export function toInstanceRef(row: {
  id: string;
  installationId: string;
  userId: string;
  status: InstanceStatus;
  installation: { teamId: string };
}): InstanceRef {
  return {
    id: row.id,
    installationId: row.installationId,
    userId: row.userId,
    status: row.status,
    teamId: row.installation.teamId,
  };
}

export async function getInstanceRef(db: DbTx, instanceId: string): Promise<InstanceRef | null> {
  const row = await db.instance.findUnique({ where: { id: instanceId }, select: instanceRefSelect });
  return row ? toInstanceRef(row) : null;
}

/** Ids and statuses in pages (reconciliation walks every instance without loading them all at once). */
export async function listInstanceRefsByStatus(
  db: DbTx,
  input: { statuses: readonly InstanceStatus[]; afterId?: string; take?: number },
): Promise<InstanceRef[]> {
  const rows = await db.instance.findMany({
    where: { status: { in: [...input.statuses] }, ...(input.afterId ? { id: { gt: input.afterId } } : {}) },
    orderBy: { id: "asc" },
    take: input.take ?? 500,
    select: instanceRefSelect,
  });
  return rows.map(toInstanceRef);
}

export async function listInstanceRefsOfInstallation(db: DbTx, installationId: string): Promise<InstanceRef[]> {
  const rows = await db.instance.findMany({
    where: { installationId },
    select: instanceRefSelect,
    orderBy: { id: "asc" },
  });
  return rows.map(toInstanceRef);
}

export async function listInstanceRefsOfMember(
  db: DbTx,
  input: { teamId: string; userId: string },
): Promise<InstanceRef[]> {
  const rows = await db.instance.findMany({
    where: { userId: input.userId, installation: { teamId: input.teamId } },
    select: instanceRefSelect,
    orderBy: { id: "asc" },
  });
  return rows.map(toInstanceRef);
}

/** Every instance of the team's installations. */
export async function listInstanceRefsOfTeam(db: DbTx, { teamId }: { teamId: string }): Promise<InstanceRef[]> {
  const rows = await db.instance.findMany({
    where: { installation: { teamId } },
    select: instanceRefSelect,
    orderBy: { id: "asc" },
  });
  return rows.map(toInstanceRef);
}

/** Instances by status, deployment-wide (the worker's metrics read it at each scrape: one grouped count). */
export async function countInstancesByStatus(db: DbTx): Promise<Array<[status: InstanceStatus, count: number]>> {
  const rows = await db.instance.groupBy({ by: ["status"], _count: { _all: true } });
  return rows.map((r) => [r.status as InstanceStatus, r._count._all]);
}
