import { randomBytes } from "node:crypto";
import type { DbTx, Tx } from "../client";

/**
 * SCIM 2.0 provisioning (docs/scim.md): the deployment's bearer token, the users and groups an identity provider
 * pushes. A provisioned user is an ordinary account with a `scim_users` row beside it.
 */

// ---- the deployment's token -----------------------------------------------------------------------------------

export async function scimTokenStatus(db: DbTx) {
  return db.scimToken.findUnique({ where: { id: 1 }, select: { prefix: true, createdAt: true, lastUsedAt: true } });
}

/** Creates the token or replaces it (rotation): the old one stops working in the same statement. */
export async function saveScimToken(db: DbTx, t: { tokenHash: string; prefix: string; createdById: string }) {
  return db.scimToken.upsert({
    where: { id: 1 },
    create: { id: 1, ...t },
    update: { ...t, createdAt: new Date(), lastUsedAt: null },
    select: { prefix: true, createdAt: true, lastUsedAt: true },
  });
}

export async function deleteScimToken(db: DbTx) {
  await db.scimToken.deleteMany({ where: { id: 1 } });
}

export async function scimTokenMatches(db: DbTx, tokenHash: string): Promise<boolean> {
  const found = await db.scimToken.findUnique({ where: { tokenHash }, select: { id: true, lastUsedAt: true } });
  if (!found) return false;
  // Minute-accurate, not a write per request.
  if (!found.lastUsedAt || Date.now() - found.lastUsedAt.getTime() > 60_000)
    await db.scimToken.update({ where: { id: 1 }, data: { lastUsedAt: new Date() } });
  return true;
}

// ---- users ----------------------------------------------------------------------------------------------------

const scimUserSelect = {
  userId: true,
  externalId: true,
  userName: true,
  active: true,
  createdAt: true,
  updatedAt: true,
  user: {
    select: {
      name: true,
      email: true,
      scimGroups: { select: { group: { select: { id: true, displayName: true } } } },
    },
  },
} as const;

export async function isUserDeactivated(db: DbTx, userId: string): Promise<boolean> {
  const row = await db.scimUser.findUnique({ where: { userId }, select: { active: true } });
  return row !== null && !row.active;
}

export async function findScimUser(db: DbTx, userId: string) {
  return db.scimUser.findUnique({ where: { userId }, select: scimUserSelect });
}

export async function listScimUsers(
  db: DbTx,
  { userName, externalId, skip, take }: { userName?: string; externalId?: string; skip: number; take: number },
) {
  const where = {
    ...(userName !== undefined ? { userName: { equals: userName, mode: "insensitive" as const } } : {}),
    ...(externalId !== undefined ? { externalId } : {}),
  };
  const [total, rows] = await Promise.all([
    db.scimUser.count({ where }),
    db.scimUser.findMany({ where, select: scimUserSelect, orderBy: { createdAt: "asc" }, skip, take }),
  ]);
  return { total, rows };
}

export type ScimUserRow = NonNullable<Awaited<ReturnType<typeof findScimUser>>>;

/**
 * Provisions a user: a new account (no password: they sign in through the provider), or the existing account
 * with this address, now managed by the provider. Null when the address is already provisioned.
 */
export async function createScimUser(
  db: Tx,
  u: { email: string; name: string; userName: string; externalId: string | null; active: boolean },
) {
  return db.$transaction(async (tx) => {
    const existing = await tx.user.findUnique({
      where: { email: u.email },
      select: { id: true, scimIdentity: { select: { userId: true } } },
    });
    if (existing?.scimIdentity) return null;
    const userId =
      existing?.id ??
      (
        await tx.user.create({
          data: { id: randomBytes(16).toString("hex"), email: u.email, name: u.name, emailVerified: true },
          select: { id: true },
        })
      ).id;
    await tx.scimUser.create({
      data: { userId, externalId: u.externalId, userName: u.userName, active: u.active },
    });
    return tx.scimUser.findUniqueOrThrow({ where: { userId }, select: scimUserSelect });
  });
}

export async function emailTakenByOther(db: DbTx, { email, userId }: { email: string; userId: string }) {
  const found = await db.user.findUnique({ where: { email }, select: { id: true } });
  return found !== null && found.id !== userId;
}

export async function updateScimUser(
  db: Tx,
  userId: string,
  u: { email: string; name: string; userName: string; externalId: string | null; active: boolean },
) {
  return db.$transaction(async (tx) => {
    await tx.user.update({ where: { id: userId }, data: { email: u.email, name: u.name } });
    await tx.scimUser.update({
      where: { userId },
      data: { userName: u.userName, externalId: u.externalId, active: u.active },
    });
    return tx.scimUser.findUniqueOrThrow({ where: { userId }, select: scimUserSelect });
  });
}

/** Instances grouped by team, for the worker's stop jobs. */
function byTeam(instances: Array<{ id: string; installation: { teamId: string } }>) {
  const teams = new Map<string, string[]>();
  for (const i of instances) {
    const list = teams.get(i.installation.teamId) ?? [];
    list.push(i.id);
    teams.set(i.installation.teamId, list);
  }
  return [...teams].map(([teamId, instanceIds]) => ({ teamId, instanceIds }));
}

/**
 * Ends everything a person holds, in one transaction: their sessions (console sign-ins), personal access tokens
 * and OAuth grants of every team, the authorization server's access and refresh tokens, and their instances.
 * Memberships stay (a deactivated person keeps their place for when the provider reactivates them).
 */
export async function cutOffUser(db: Tx, userId: string) {
  return db.$transaction(async (tx) => {
    const instances = await tx.instance.findMany({
      where: { userId },
      select: { id: true, installation: { select: { teamId: true } } },
    });
    await tx.instance.deleteMany({ where: { userId } });
    await tx.personalAccessToken.deleteMany({ where: { userId } });
    await tx.oauthAccessToken.deleteMany({ where: { userId } });
    await tx.oauthRefreshToken.deleteMany({ where: { userId } });
    await tx.oauthConsent.deleteMany({ where: { userId } });
    await tx.session.deleteMany({ where: { userId } });
    return byTeam(instances);
  });
}

/** Deletes the account and everything that hangs off it; returns its instances by team (read in the same transaction). */
export async function deleteUserEverywhere(db: Tx, userId: string) {
  return db.$transaction(async (tx) => {
    const instances = await tx.instance.findMany({
      where: { userId },
      select: { id: true, installation: { select: { teamId: true } } },
    });
    const teams = await tx.membership.findMany({ where: { userId }, select: { teamId: true } });
    await tx.user.delete({ where: { id: userId } });
    const stopped = byTeam(instances);
    for (const { teamId } of teams)
      if (!stopped.some((s) => s.teamId === teamId)) stopped.push({ teamId, instanceIds: [] });
    return stopped;
  });
}

// ---- groups ---------------------------------------------------------------------------------------------------

const scimGroupSelect = {
  id: true,
  displayName: true,
  externalId: true,
  createdAt: true,
  updatedAt: true,
  members: { select: { userId: true, user: { select: { email: true } } } },
} as const;

export type ScimGroupRow = NonNullable<Awaited<ReturnType<typeof findScimGroup>>>;

export async function findScimGroup(db: DbTx, id: string) {
  return db.scimGroup.findUnique({ where: { id }, select: scimGroupSelect });
}

export async function listScimGroups(
  db: DbTx,
  { displayName, skip, take }: { displayName?: string; skip: number; take: number },
) {
  const where = displayName !== undefined ? { displayName: { equals: displayName, mode: "insensitive" as const } } : {};
  const [total, rows] = await Promise.all([
    db.scimGroup.count({ where }),
    db.scimGroup.findMany({ where, select: scimGroupSelect, orderBy: { createdAt: "asc" }, skip, take }),
  ]);
  return { total, rows };
}

export async function scimGroupNameTaken(
  db: DbTx,
  { displayName, exceptId }: { displayName: string; exceptId?: string },
) {
  const found = await db.scimGroup.findFirst({
    where: {
      displayName: { equals: displayName, mode: "insensitive" },
      ...(exceptId ? { NOT: { id: exceptId } } : {}),
    },
    select: { id: true },
  });
  return found !== null;
}

/** Of these ids, the ones that are provisioned users (a group holds only those). */
export async function existingScimUserIds(db: DbTx, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.scimUser.findMany({ where: { userId: { in: ids } }, select: { userId: true } });
  return rows.map((r) => r.userId);
}

export async function createScimGroup(
  db: Tx,
  g: { displayName: string; externalId: string | null; memberIds: string[] },
) {
  return db.$transaction(async (tx) => {
    const group = await tx.scimGroup.create({
      data: { displayName: g.displayName, externalId: g.externalId },
      select: { id: true },
    });
    if (g.memberIds.length)
      await tx.scimGroupMember.createMany({
        data: g.memberIds.map((userId) => ({ groupId: group.id, userId })),
        skipDuplicates: true,
      });
    return tx.scimGroup.findUniqueOrThrow({ where: { id: group.id }, select: scimGroupSelect });
  });
}

/** Renames the group and adds and removes members, in one transaction. */
export async function updateScimGroup(
  db: Tx,
  id: string,
  g: { displayName: string; externalId: string | null; add: string[]; remove: string[] },
) {
  return db.$transaction(async (tx) => {
    await tx.scimGroup.update({ where: { id }, data: { displayName: g.displayName, externalId: g.externalId } });
    if (g.add.length)
      await tx.scimGroupMember.createMany({
        data: g.add.map((userId) => ({ groupId: id, userId })),
        skipDuplicates: true,
      });
    if (g.remove.length) await tx.scimGroupMember.deleteMany({ where: { groupId: id, userId: { in: g.remove } } });
    return tx.scimGroup.findUniqueOrThrow({ where: { id }, select: scimGroupSelect });
  });
}

export async function deleteScimGroup(db: DbTx, id: string) {
  await db.scimGroup.delete({ where: { id } });
}

/** The names of the SCIM groups a person is in: what `applyIdentityGroups` gets for provider `scim`. */
export async function scimGroupNamesOfUser(db: DbTx, userId: string): Promise<string[]> {
  const rows = await db.scimGroupMember.findMany({
    where: { userId },
    select: { group: { select: { displayName: true } } },
  });
  return rows.map((r) => r.group.displayName);
}

/** The provisioned members of the SCIM group with this name (any case). */
export async function scimGroupMemberIds(db: DbTx, displayName: string): Promise<string[]> {
  const rows = await db.scimGroupMember.findMany({
    where: { group: { displayName: { equals: displayName, mode: "insensitive" } } },
    select: { userId: true },
  });
  return rows.map((r) => r.userId);
}
