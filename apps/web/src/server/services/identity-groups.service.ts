import "server-only";
import { getDb, type Db } from "@switchboard/db/client";
import { countOwners, listTeamInstallationIds, setMemberRole } from "@switchboard/db/queries/team";
import {
  addMembership,
  createGroupMapping,
  deleteGroupMapping,
  findGroupMapping,
  groupMappingExists,
  listGroupMappings,
  listTeamNames,
  mappingsOfProvider,
  membershipsOfUser,
} from "@switchboard/db/queries/identity-groups";
import { findUserEmail } from "@switchboard/db/queries/user";
import { isUserDeactivated, scimGroupMemberIds, scimGroupNamesOfUser } from "@switchboard/db/queries/scim";
import {
  groupNameProblem,
  identityGroupPlan,
  isTeamRole,
  leavesTeamWithoutOwner,
  type IdentityGroupPlan,
  type TeamRole,
} from "@switchboard/core/accounts";
import { AppError } from "../errors";
import type { UserActor } from "./actor";
import { enqueueInstallationCreated } from "@switchboard/runtime/jobs";
import { logger } from "@switchboard/runtime/logger";
import { recordAudit } from "../audit/record";
import { endMembership } from "./team.service";

/** The provider id under which SCIM groups are mapped to teams (docs/scim.md). */
export const SCIM_PROVIDER_ID = "scim";

export interface IdentityGroupsOutcome extends IdentityGroupPlan {
  /** Changes left out because they would leave a team without an owner (an owner must be replaced by hand). */
  kept: Array<{ teamId: string; reason: string }>;
}

/** The installations of a team give a member who joins an instance each (the job is idempotent per member). */
export async function startMemberInstances(db: Db, teamId: string) {
  const team = await db.team.findUnique({ where: { id: teamId }, select: { slug: true } });
  if (!team) return;
  const installationIds = await listTeamInstallationIds(db, { teamSlug: team.slug });
  await Promise.all(installationIds.map((installationId) => enqueueInstallationCreated({ installationId })));
}

/**
 * Makes a person's memberships follow the groups their identity provider says they are in (at every SSO sign-in,
 * and whenever SCIM changes a group): joins the mapped teams a group gives, sets the role their groups give
 * (the highest when several map to one team), and ends membership of mapped teams no group gives any more, with
 * the same clean-up as a removal by an admin. Teams no mapping of this provider names are left alone. A change
 * that would leave a team without an owner is kept back and logged.
 */
export async function applyIdentityGroups({
  userId,
  providerId,
  groups,
  db = getDb(),
}: {
  userId: string;
  providerId: string;
  groups: string[];
  db?: Db;
}): Promise<IdentityGroupsOutcome> {
  const mappings = (await mappingsOfProvider(db, providerId)).flatMap((m) =>
    isTeamRole(m.role) ? [{ groupName: m.groupName, teamId: m.teamId, role: m.role }] : [],
  );
  const outcome: IdentityGroupsOutcome = { add: [], change: [], remove: [], kept: [] };
  if (mappings.length === 0) return outcome;
  const memberships = await membershipsOfUser(db, userId);
  const plan = identityGroupPlan({ mappings, groups, memberships });
  if (plan.add.length + plan.change.length + plan.remove.length === 0) return outcome;

  const user = await findUserEmail(db, userId);
  if (!user) return outcome;
  const deactivated = await isUserDeactivated(db, userId);
  const names = await listTeamNames(
    db,
    [...plan.add, ...plan.change, ...plan.remove].map((p) => p.teamId),
  );
  const audit = (teamId: string, action: string, detail: Record<string, unknown>) =>
    recordAudit(db, {
      teamId,
      actorId: null,
      actorLabel: `identity provider ${providerId}`,
      action,
      targetType: "user",
      targetId: userId,
      targetLabel: user.email,
      detail: { providerId, team: names.get(teamId) ?? teamId, ...detail },
    });
  const membershipOf = new Map(memberships.map((m) => [m.teamId, m]));
  const lastOwner = (teamId: string, from: string, to: string | null) =>
    leavesTeamWithoutOwner({ from, to }, () => countOwners(db, { teamId }));

  for (const { teamId, role } of plan.add) {
    try {
      await addMembership(db, { teamId, userId, role });
    } catch (err) {
      // Joined at the same moment by another sign-in or SCIM request: that one did the work.
      logger.warn({ err, teamId, userId }, "identity groups: membership already there");
      continue;
    }
    outcome.add.push({ teamId, role });
    await audit(teamId, "identity_groups.member_added", { role });
    // A deactivated person gets their instances back when the provider reactivates them.
    if (!deactivated) await startMemberInstances(db, teamId);
  }
  for (const change of plan.change) {
    if (await lastOwner(change.teamId, change.from, change.to)) {
      outcome.kept.push({ teamId: change.teamId, reason: "last owner" });
      logger.warn({ teamId: change.teamId, userId }, "identity groups: the team's last owner keeps the owner role");
      continue;
    }
    await setMemberRole(db, { memberId: membershipOf.get(change.teamId)!.id, role: change.to });
    outcome.change.push(change);
    await audit(change.teamId, "identity_groups.role_changed", { from: change.from, to: change.to });
  }
  for (const { teamId, role } of plan.remove) {
    if (await lastOwner(teamId, role, null)) {
      outcome.kept.push({ teamId, reason: "last owner" });
      logger.warn({ teamId, userId }, "identity groups: the team's last owner stays in the team");
      continue;
    }
    await endMembership({ db, teamId, membershipId: membershipOf.get(teamId)!.id, userId });
    outcome.remove.push({ teamId, role });
    await audit(teamId, "identity_groups.member_removed", { role });
  }
  return outcome;
}

// ---- the mappings, as deployment owners manage them in the console ----------------------------------------------

export async function listMappings({ db }: { db: Db }) {
  const rows = await listGroupMappings(db);
  return rows.map((m) => ({
    id: m.id,
    providerId: m.providerId,
    groupName: m.groupName,
    role: m.role,
    team: { id: m.teamId, name: m.team.name, slug: m.team.slug },
    createdAt: m.createdAt,
  }));
}

/**
 * SCIM pushes group membership ahead of any sign-in: the members of the SCIM group a mapping names follow it at
 * once. (Groups of an SSO provider follow at each person's next sign-in.)
 */
async function reapplyScimGroup(db: Db, providerId: string, groupName: string) {
  if (providerId !== SCIM_PROVIDER_ID) return;
  for (const userId of await scimGroupMemberIds(db, groupName)) {
    await applyIdentityGroups({ db, userId, providerId, groups: await scimGroupNamesOfUser(db, userId) });
  }
}

export async function addMapping({
  db,
  actor,
  providerId,
  groupName,
  teamId,
  role,
}: {
  db: Db;
  actor: UserActor;
  providerId: string;
  groupName: string;
  teamId: string;
  role: TeamRole;
}) {
  const problem = groupNameProblem(groupName);
  if (problem) throw new AppError("INVALID_INPUT", problem);
  const name = groupName.trim();
  if (!(await db.team.findUnique({ where: { id: teamId }, select: { id: true } })))
    throw new AppError("NOT_FOUND", "Team not found.");
  if (await groupMappingExists(db, { providerId, groupName: name, teamId }))
    throw new AppError(
      "CONFLICT",
      `The group “${name}” is already mapped to this team; remove it first to change its role.`,
    );
  const created = await createGroupMapping(db, {
    providerId,
    groupName: name,
    teamId,
    role,
    createdById: actor.userId,
  });
  await reapplyScimGroup(db, providerId, name);
  return { id: created.id };
}

export async function removeMapping({ db, teamId, mappingId }: { db: Db; teamId: string; mappingId: string }) {
  const mapping = await findGroupMapping(db, mappingId);
  if (!mapping || mapping.teamId !== teamId) throw new AppError("NOT_FOUND", "Mapping not found.");
  await deleteGroupMapping(db, mappingId);
  await reapplyScimGroup(db, mapping.providerId, mapping.groupName);
  return { id: mappingId };
}
