import type { DbTx } from "../client";
import { pageQuery, toPage, type PageArgs } from "../pagination";

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

export async function listMembers(db: DbTx, { teamId, cursor, limit }: { teamId: string } & PageArgs) {
  const rows = await db.membership.findMany({
    where: { teamId },
    include: { user: { select: { id: true, name: true, email: true } } },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    ...pageQuery({ cursor, limit }),
  });
  const page = toPage(rows, limit);
  return { ...page, items: page.items.map((m) => ({ id: m.id, role: m.role, joinedAt: m.createdAt, user: m.user })) };
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
