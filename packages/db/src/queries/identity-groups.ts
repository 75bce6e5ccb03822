import { randomBytes } from "node:crypto";
import type { DbTx } from "../client";

/** Mappings from an identity provider's groups to teams and roles (docs/scim.md, "Groups to teams"). */

const mappingSelect = {
  id: true,
  providerId: true,
  groupName: true,
  teamId: true,
  role: true,
  createdAt: true,
  team: { select: { name: true, slug: true } },
} as const;

export async function listGroupMappings(db: DbTx) {
  return db.identityGroupMapping.findMany({
    select: mappingSelect,
    orderBy: [{ providerId: "asc" }, { groupName: "asc" }, { createdAt: "asc" }],
    take: 1000,
  });
}

/** Every mapping of one provider: `applyIdentityGroups` decides with all of them. */
export async function mappingsOfProvider(db: DbTx, providerId: string) {
  return db.identityGroupMapping.findMany({
    where: { providerId },
    select: { groupName: true, teamId: true, role: true },
  });
}

export async function findGroupMapping(db: DbTx, id: string) {
  return db.identityGroupMapping.findUnique({ where: { id }, select: mappingSelect });
}

export async function groupMappingExists(
  db: DbTx,
  { providerId, groupName, teamId }: { providerId: string; groupName: string; teamId: string },
) {
  const found = await db.identityGroupMapping.findFirst({
    where: { providerId, teamId, groupName: { equals: groupName, mode: "insensitive" } },
    select: { id: true },
  });
  return found !== null;
}

export async function createGroupMapping(
  db: DbTx,
  m: { providerId: string; groupName: string; teamId: string; role: string; createdById: string | null },
) {
  return db.identityGroupMapping.create({ data: m, select: mappingSelect });
}

export async function deleteGroupMapping(db: DbTx, id: string) {
  await db.identityGroupMapping.delete({ where: { id } });
}

/** The users a mapping of this provider to this team may concern (its members, and SCIM group members). */
export async function membershipsOfUser(db: DbTx, userId: string) {
  return db.membership.findMany({
    where: { userId },
    select: { id: true, teamId: true, role: true, team: { select: { name: true, slug: true } } },
  });
}

/** A membership made by a mapping (Better Auth's organization plugin makes the invited ones). */
export async function addMembership(
  db: DbTx,
  { teamId, userId, role }: { teamId: string; userId: string; role: string },
) {
  return db.membership.create({
    data: { id: randomBytes(16).toString("hex"), teamId, userId, role },
    select: { id: true },
  });
}

export async function listTeamNames(db: DbTx, teamIds: string[]) {
  const rows = await db.team.findMany({ where: { id: { in: teamIds } }, select: { id: true, name: true } });
  return new Map(rows.map((r) => [r.id, r.name]));
}
