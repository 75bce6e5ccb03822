import "server-only";
import { randomBytes } from "node:crypto";
import type { Db } from "@switchboard/db/client";
import { sha256 } from "@switchboard/db/crypto";
import {
  createScimGroup,
  createScimUser,
  cutOffUser,
  deleteScimGroup,
  deleteScimToken,
  deleteUserEverywhere,
  emailTakenByOther,
  existingScimUserIds,
  findScimGroup,
  findScimUser,
  saveScimToken,
  scimGroupNameTaken,
  scimGroupNamesOfUser,
  scimTokenStatus,
  updateScimGroup,
  updateScimUser,
  type ScimGroupRow,
  type ScimUserRow,
} from "@switchboard/db/queries/scim";
import { membershipsOfUser } from "@switchboard/db/queries/identity-groups";
import { setMemberRole, teamForSuccession } from "@switchboard/db/queries/team";
import { isTeamRole, ownerSuccession } from "@switchboard/core/accounts";
import { logger } from "@switchboard/runtime/logger";
import { enqueueMemberRemoved } from "@switchboard/runtime/jobs";
import { invalidateAccess } from "@switchboard/runtime/invalidations";
import { recordAudit } from "../audit/record";
import { ScimError } from "../scim/errors";
import { userRecordOf, type ScimGroupState, type ScimUserState } from "../scim/resources";
import { applyIdentityGroups, SCIM_PROVIDER_ID, startMemberInstances } from "./identity-groups.service";
import type { UserActor } from "./actor";

const TOKEN_PREFIX = "sbscim_";

// ---- the deployment's token (console) -------------------------------------------------------------------------

export async function getScimToken({ db }: { db: Db }) {
  return scimTokenStatus(db);
}

/** A new token (or a rotation: the old one stops at once). Only its hash is kept; the caller shows it once. */
export async function createScimToken({ db, actor }: { db: Db; actor: UserActor }) {
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const status = await saveScimToken(db, {
    tokenHash: sha256(token),
    prefix: token.slice(0, TOKEN_PREFIX.length + 4),
    createdById: actor.userId,
  });
  return { token, ...status };
}

export async function revokeScimToken({ db }: { db: Db }) {
  await deleteScimToken(db);
}

// ---- what the provider changes --------------------------------------------------------------------------------

function audit(db: Db, action: string, target: { type: string; id: string; label: string }, detail = {}) {
  return recordAudit(db, {
    teamId: null,
    actorId: null,
    actorLabel: "SCIM",
    action,
    targetType: target.type,
    targetId: target.id,
    targetLabel: target.label,
    detail,
  });
}

/**
 * Everything a deactivated or deleted person holds ends at once: sessions, personal tokens and OAuth grants in
 * the database, every gateway process's cached copies (the invalidations channel), and their instances (the
 * worker stops them).
 */
async function cutOff(db: Db, userId: string) {
  const stopped = await cutOffUser(db, userId);
  await invalidateAccess({ userId });
  await Promise.all(stopped.map(({ teamId, instanceIds }) => enqueueMemberRemoved({ teamId, userId, instanceIds })));
}

/**
 * A person the provider deleted or deactivated may have been a team's only owner, and the provider cannot be told
 * "make someone else owner first": core's `ownerSuccession` names the new owner (longest-standing admin, else
 * member), recorded in the team's trail; a team left with nobody active is recorded in the deployment's trail and
 * flagged on the deployment settings' team list.
 */
async function keepTeamsOwned(
  db: Db,
  {
    userId,
    email,
    teamIds,
    because,
  }: { userId: string; email: string; teamIds: string[]; because: "deleted" | "deactivated" },
) {
  for (const teamId of new Set(teamIds)) {
    const team = await teamForSuccession(db, { teamId });
    if (!team) continue;
    const { members } = team;
    const outcome = ownerSuccession(
      members.flatMap((m) => (isTeamRole(m.role) ? [{ ...m, role: m.role }] : [])),
      userId,
    );
    if (outcome.kind === "owned") continue;
    if (outcome.kind === "promote") {
      const next = members.find((m) => m.userId === outcome.userId)!;
      await setMemberRole(db, { memberId: next.memberId, role: "owner" });
      await invalidateAccess({ userId: next.userId, teamId });
      await recordAudit(db, {
        teamId,
        actorId: null,
        actorLabel: "SCIM",
        action: "scim.owner_succeeded",
        targetType: "user",
        targetId: next.userId,
        targetLabel: next.email,
        detail: { from: outcome.from, previousOwner: email, because },
      });
      continue;
    }
    logger.warn({ teamId, userId }, "SCIM left a team without an owner");
    await audit(
      db,
      "scim.team_left_without_owner",
      { type: "team", id: teamId, label: team.name },
      { previousOwner: email, because },
    );
  }
}

async function reactivate(db: Db, userId: string) {
  for (const { teamId } of await membershipsOfUser(db, userId)) await startMemberInstances(db, teamId);
}

export async function provisionUser({ db, state }: { db: Db; state: ScimUserState }): Promise<ScimUserRow> {
  const record = userRecordOf(state);
  const row = await createScimUser(db, record);
  if (!row) throw new ScimError(409, `A user with the address ${record.email} is already provisioned.`, "uniqueness");
  await audit(
    db,
    "scim.user_provisioned",
    { type: "user", id: row.userId, label: row.user.email },
    {
      active: row.active,
    },
  );
  if (!row.active) await cutOff(db, row.userId);
  return row;
}

export async function replaceUser({
  db,
  current,
  state,
}: {
  db: Db;
  current: ScimUserRow;
  state: ScimUserState;
}): Promise<ScimUserRow> {
  const record = userRecordOf(state);
  if (await emailTakenByOther(db, { email: record.email, userId: current.userId }))
    throw new ScimError(409, `Another account uses the address ${record.email}.`, "uniqueness");
  const row = await updateScimUser(db, current.userId, record);
  const target = { type: "user", id: row.userId, label: row.user.email };
  if (current.active && !row.active) {
    await cutOff(db, row.userId);
    await audit(db, "scim.user_deactivated", target);
    await keepTeamsOwned(db, {
      userId: row.userId,
      email: row.user.email,
      teamIds: (await membershipsOfUser(db, row.userId)).map((m) => m.teamId),
      because: "deactivated",
    });
  } else if (!current.active && row.active) {
    await reactivate(db, row.userId);
    await audit(db, "scim.user_reactivated", target);
  } else {
    await audit(db, "scim.user_updated", target, {
      before: { email: current.user.email, name: current.user.name, userName: current.userName },
    });
  }
  return row;
}

export async function deleteUser({ db, current }: { db: Db; current: ScimUserRow }) {
  const stopped = await deleteUserEverywhere(db, current.userId);
  await invalidateAccess({ userId: current.userId });
  await Promise.all(
    stopped.map(({ teamId, instanceIds }) => enqueueMemberRemoved({ teamId, userId: current.userId, instanceIds })),
  );
  await audit(db, "scim.user_deleted", { type: "user", id: current.userId, label: current.user.email });
  await keepTeamsOwned(db, {
    userId: current.userId,
    email: current.user.email,
    teamIds: stopped.map((s) => s.teamId),
    because: "deleted",
  });
}

/** Members' teams and roles follow their SCIM groups (the mappings of provider `scim`). */
async function applyGroupsOf(db: Db, userIds: Iterable<string>) {
  for (const userId of new Set(userIds)) {
    if (!(await findScimUser(db, userId))) continue;
    await applyIdentityGroups({
      db,
      userId,
      providerId: SCIM_PROVIDER_ID,
      groups: await scimGroupNamesOfUser(db, userId),
    });
  }
}

async function checkMembers(db: Db, ids: Set<string>) {
  const known = new Set(await existingScimUserIds(db, [...ids]));
  const unknown = [...ids].find((id) => !known.has(id));
  if (unknown !== undefined)
    throw new ScimError(400, `No provisioned user has the id “${unknown.slice(0, 64)}”.`, "invalidValue");
}

export async function provisionGroup({ db, state }: { db: Db; state: ScimGroupState }): Promise<ScimGroupRow> {
  if (await scimGroupNameTaken(db, { displayName: state.displayName }))
    throw new ScimError(409, `A group named “${state.displayName}” already exists.`, "uniqueness");
  await checkMembers(db, state.members);
  const row = await createScimGroup(db, {
    displayName: state.displayName,
    externalId: state.externalId,
    memberIds: [...state.members],
  });
  await audit(
    db,
    "scim.group_provisioned",
    { type: "scim_group", id: row.id, label: row.displayName },
    {
      members: row.members.length,
    },
  );
  await applyGroupsOf(db, state.members);
  return row;
}

export async function replaceGroup({
  db,
  current,
  state,
}: {
  db: Db;
  current: ScimGroupRow;
  state: ScimGroupState;
}): Promise<ScimGroupRow> {
  if (await scimGroupNameTaken(db, { displayName: state.displayName, exceptId: current.id }))
    throw new ScimError(409, `A group named “${state.displayName}” already exists.`, "uniqueness");
  await checkMembers(db, state.members);
  const before = new Set(current.members.map((m) => m.userId));
  const add = [...state.members].filter((id) => !before.has(id));
  const remove = [...before].filter((id) => !state.members.has(id));
  const row = await updateScimGroup(db, current.id, {
    displayName: state.displayName,
    externalId: state.externalId,
    add,
    remove,
  });
  await audit(
    db,
    "scim.group_updated",
    { type: "scim_group", id: row.id, label: row.displayName },
    {
      added: add.length,
      removed: remove.length,
      ...(current.displayName !== row.displayName ? { renamedFrom: current.displayName } : {}),
    },
  );
  // A rename changes what every member's groups map to; otherwise only the added and removed ones move.
  await applyGroupsOf(db, current.displayName !== row.displayName ? [...before, ...add] : [...add, ...remove]);
  return row;
}

export async function deleteGroup({ db, current }: { db: Db; current: ScimGroupRow }) {
  await deleteScimGroup(db, current.id);
  await audit(db, "scim.group_deleted", { type: "scim_group", id: current.id, label: current.displayName });
  await applyGroupsOf(
    db,
    current.members.map((m) => m.userId),
  );
}

export { findScimGroup, findScimUser };
