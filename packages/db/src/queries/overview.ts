import type { InstanceStatus } from "@switchboard/core/status";
import type { DbTx } from "../client";

/**
 * Everything the team overview aggregates, in three queries: installations, memberships and the instances'
 * status columns (no catalogue, no values). A team of 50 members x 20 servers is 1,000 small rows. `userId`
 * narrows memberships and instances to one member (a plain member's own overview).
 */
export async function loadTeamOverview(db: DbTx, { teamId, userId }: { teamId: string; userId?: string }) {
  const [installations, memberships, instances, memberCount] = await Promise.all([
    db.installation.findMany({
      where: { teamId },
      select: { id: true, slug: true, name: true },
      orderBy: [{ name: "asc" }, { id: "asc" }],
      take: 500,
    }),
    db.membership.findMany({
      where: { teamId, ...(userId ? { userId } : {}) },
      select: { id: true, role: true, createdAt: true, user: { select: { id: true, name: true, email: true } } },
      orderBy: [{ createdAt: "asc" }, { id: "asc" }],
      take: 5000,
    }),
    db.instance.findMany({
      where: { installation: { teamId }, ...(userId ? { userId } : {}) },
      select: {
        id: true,
        installationId: true,
        userId: true,
        status: true,
        statusMessage: true,
        statusChangedAt: true,
        reconnectAttempt: true,
        nextRetryAt: true,
        healthDegraded: true,
      },
    }),
    db.membership.count({ where: { teamId } }),
  ]);
  return { installations, memberships, instances, memberCount };
}

/** Ids of the team's instances in any of `statuses` (a bulk action's targets), optionally of one installation. */
export async function listTeamInstanceIdsByStatus(
  db: DbTx,
  {
    teamId,
    statuses,
    installationId,
  }: { teamId: string; statuses: readonly InstanceStatus[]; installationId?: string },
) {
  const rows = await db.instance.findMany({
    where: { installation: { teamId }, status: { in: [...statuses] }, ...(installationId ? { installationId } : {}) },
    select: { id: true },
    take: 10_000,
  });
  return rows.map((r) => r.id);
}

/** Display names of the team's members among `userIds` (who asked for a reconnect or restart, in a timeline). */
export async function teamMemberNames(
  db: DbTx,
  { teamId, userIds }: { teamId: string; userIds: string[] },
): Promise<Map<string, string>> {
  if (userIds.length === 0) return new Map();
  const rows = await db.user.findMany({
    where: { id: { in: userIds }, memberships: { some: { teamId } } },
    select: { id: true, name: true },
  });
  return new Map(rows.map((r) => [r.id, r.name]));
}
