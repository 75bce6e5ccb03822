import type { DbTx, Tx } from "../client";
import { type PageArgs, pageQuery, toPage } from "../pagination";
import type { InstanceStatus } from "@switchboard/core/status";

export async function findMembership(db: DbTx, { teamId, userId }: { teamId: string; userId: string }) {
  return db.membership.findUnique({
    where: { teamId_userId: { teamId, userId } },
    include: { team: true },
  });
}

/** The team with this slug, but only if the user belongs to it: a stranger cannot tell it exists. */
export async function findTeamBySlugForMember(db: DbTx, { slug, userId }: { slug: string; userId: string }) {
  const membership = await db.membership.findFirst({
    where: { userId, team: { slug } },
    include: { team: true },
  });
  return membership ? { team: membership.team, role: membership.role } : null;
}

export async function listTeamsForUser(db: DbTx, { userId }: { userId: string }) {
  const memberships = await db.membership.findMany({
    where: { userId },
    include: { team: { include: { _count: { select: { memberships: true, installations: true } } } } },
    orderBy: { createdAt: "asc" },
  });
  return memberships.map((m) => ({
    id: m.team.id,
    name: m.team.name,
    slug: m.team.slug,
    role: m.role,
    memberCount: m.team._count.memberships,
    installationCount: m.team._count.installations,
  }));
}

export async function teamSlugTaken(db: DbTx, slug: string): Promise<boolean> {
  return (await db.team.count({ where: { slug } })) > 0;
}

/**
 * The team's members, oldest first; `search` keeps those whose name or email contains it (any case). Each has
 * `lastActiveAt`: when they last called one of the team's servers through the gateway (the request log), or null.
 */
export async function listMembers(
  db: DbTx,
  { teamId, search, cursor, limit }: { teamId: string; search?: string } & PageArgs,
) {
  const rows = await db.membership.findMany({
    where: {
      teamId,
      ...(search
        ? {
            user: {
              OR: [
                { name: { contains: search, mode: "insensitive" as const } },
                { email: { contains: search, mode: "insensitive" as const } },
              ],
            },
          }
        : {}),
    },
    include: { user: { select: { id: true, name: true, email: true } } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    ...pageQuery({ cursor, limit }),
  });
  const page = toPage(rows, limit);
  const lastCalls = await db.toolCallLog.groupBy({
    by: ["userId"],
    where: { teamId, userId: { in: page.items.map((m) => m.userId) } },
    _max: { createdAt: true },
  });
  const lastActive = new Map(lastCalls.map((c) => [c.userId, c._max.createdAt]));
  return {
    ...page,
    items: page.items.map((m) => ({
      id: m.id,
      role: m.role,
      joinedAt: m.createdAt,
      lastActiveAt: lastActive.get(m.userId) ?? null,
      user: m.user,
    })),
  };
}

export async function listPendingInvitations(db: DbTx, { teamId }: { teamId: string }) {
  return db.invitation.findMany({
    where: { teamId, status: "pending", expiresAt: { gt: new Date() } },
    include: { inviter: { select: { name: true, email: true } } },
    orderBy: { createdAt: "desc" },
    take: 100,
  });
}

export async function findInvitation(db: DbTx, { invitationId }: { invitationId: string }) {
  return db.invitation.findUnique({
    where: { id: invitationId },
    include: { team: { select: { id: true, name: true, slug: true } }, inviter: { select: { name: true } } },
  });
}

export async function countOwners(db: DbTx, { teamId }: { teamId: string }) {
  return db.membership.count({ where: { teamId, role: "owner" } });
}

/** A membership of the team by its id (another team's answers null). */
export async function findTeamMember(db: DbTx, { teamId, memberId }: { teamId: string; memberId: string }) {
  return db.membership.findFirst({ where: { id: memberId, teamId } });
}

/** The membership of whoever has this email address in the team, if anyone. */
export async function findTeamMemberByEmail(db: DbTx, { teamId, email }: { teamId: string; email: string }) {
  return db.membership.findFirst({ where: { teamId, user: { email } } });
}

export async function setMemberRole(db: DbTx, { memberId, role }: { memberId: string; role: string }) {
  return db.membership.update({ where: { id: memberId }, data: { role } });
}

/**
 * Ends a membership in one transaction: the member's instances of the team's installations, their personal
 * access tokens of the team, and the membership. Returns the ids of the instances deleted (the worker is told
 * which ones, as the rows are gone by the time it runs).
 */
export async function deleteMembership(
  db: Tx,
  { teamId, membershipId, userId }: { teamId: string; membershipId: string; userId: string },
) {
  return db.$transaction(async (tx) => {
    const instances = await tx.instance.findMany({ where: { userId, installation: { teamId } }, select: { id: true } });
    await tx.instance.deleteMany({ where: { userId, installation: { teamId } } });
    await tx.personalAccessToken.deleteMany({ where: { userId, teamId } });
    await tx.membership.delete({ where: { id: membershipId } });
    return instances.map((i) => i.id);
  });
}

/**
 * Deletes the team and everything in it (cascade). Returns its installations with their instance ids, read in
 * the same transaction, so the worker can stop exactly what was deleted.
 */
export async function deleteTeam(db: Tx, { teamId }: { teamId: string }) {
  return db.$transaction(async (tx) => {
    const installations = await tx.installation.findMany({
      where: { teamId },
      select: { id: true, instances: { select: { id: true } } },
    });
    await tx.team.delete({ where: { id: teamId } });
    return installations.map((i) => ({ installationId: i.id, instanceIds: i.instances.map((x) => x.id) }));
  });
}

/** The ids of a team's installations (a new member gets an instance of each). */
export async function listTeamInstallationIds(db: DbTx, { teamSlug }: { teamSlug: string }) {
  return (await db.installation.findMany({ where: { team: { slug: teamSlug } }, select: { id: true } })).map(
    (i) => i.id,
  );
}

export async function findTeamSlug(db: DbTx, teamId: string): Promise<string | null> {
  return (await db.team.findUnique({ where: { id: teamId }, select: { slug: true } }))?.slug ?? null;
}

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

/** A team and its members as core's `ownerSuccession` reads them (a deactivated SCIM account is not active). */
export async function teamForSuccession(db: DbTx, { teamId }: { teamId: string }) {
  const team = await db.team.findUnique({
    where: { id: teamId },
    select: {
      name: true,
      memberships: {
        select: {
          id: true,
          userId: true,
          role: true,
          createdAt: true,
          user: { select: { email: true, scimIdentity: { select: { active: true } } } },
        },
      },
    },
  });
  if (!team) return null;
  return {
    name: team.name,
    members: team.memberships.map((m) => ({
      memberId: m.id,
      userId: m.userId,
      email: m.user.email,
      role: m.role,
      since: m.createdAt,
      active: m.user.scimIdentity?.active ?? true,
    })),
  };
}
