import "server-only";
import type { Db } from "@switchboard/db/client";
import {
  countOwners,
  deleteMembership,
  deleteTeam as deleteTeamRows,
  findInvitation,
  findMembership,
  findTeamMember,
  findTeamMemberByEmail,
  listMembers,
  listPendingInvitations,
  listTeamInstallationIds,
  listTeamsForUser,
  setMemberRole,
  teamSlugTaken,
} from "@switchboard/db/queries/team";
import { findUserEmail } from "@switchboard/db/queries/user";
import {
  isTeamRole,
  leavesTeamWithoutOwner,
  roleChangeProblem,
  slugify,
  slugProblem,
  type TeamRole,
} from "@switchboard/core/accounts";
import { getAuth } from "../auth";
import { AppError, fromAuthError } from "../errors";
import {
  enqueueInstallationCreated,
  enqueueInstallationRemoved,
  enqueueMemberRemoved,
} from "@switchboard/runtime/jobs";
import { invalidateAccess } from "@switchboard/runtime/invalidations";
import { env } from "@switchboard/runtime/env";
import type { Actor, UserActor } from "./actor";

/** Services that call Better Auth pass the request's headers on (its session cookie). */
interface Caller {
  db: Db;
  actor: UserActor;
  headers: Headers;
}

export async function listTeams({ db, actor: { userId } }: Pick<Caller, "db" | "actor">) {
  return listTeamsForUser(db, { userId });
}

export async function createTeam({ db, headers, name, slug }: Caller & { name: string; slug?: string }) {
  const finalSlug = slug || slugify(name);
  if (!finalSlug) throw new AppError("INVALID_INPUT", "Choose a name with at least one letter or digit.");
  const problem = slugProblem(finalSlug);
  if (problem) throw new AppError("INVALID_INPUT", problem);
  if (await teamSlugTaken(db, finalSlug))
    throw new AppError("CONFLICT", `The URL “${finalSlug}” is taken; pick another.`);
  try {
    const team = await getAuth().api.createOrganization({ headers, body: { name, slug: finalSlug } });
    if (!team) throw new AppError("INTERNAL", "The team could not be created.");
    return { id: team.id, name: team.name, slug: team.slug };
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw fromAuthError(err, "The team could not be created.");
  }
}

export async function getMembers({
  db,
  actor: { teamId },
  search,
  cursor,
  limit,
}: {
  db: Db;
  actor: Actor;
  search?: string;
  cursor?: string | null;
  limit: number;
}) {
  return listMembers(db, { teamId, search, cursor, limit });
}

function invitationUrl(invitationId: string): string {
  return new URL(`/invite/${invitationId}`, env().APP_URL).toString();
}

export async function inviteMember({
  db,
  headers,
  actor: { teamId },
  email,
  role,
}: Caller & { actor: Actor; email: string; role: "admin" | "member" }) {
  const existing = await findTeamMemberByEmail(db, { teamId, email });
  if (existing) throw new AppError("CONFLICT", `${email} is already a member of this team.`);
  try {
    const invitation = await getAuth().api.createInvitation({
      headers,
      body: { email, role, organizationId: teamId, resend: true },
    });
    return {
      id: invitation.id,
      email: invitation.email,
      role: invitation.role,
      expiresAt: invitation.expiresAt,
      url: invitationUrl(invitation.id),
    };
  } catch (err) {
    throw fromAuthError(err, "The invitation could not be created.");
  }
}

export async function getPendingInvitations({ db, actor: { teamId } }: { db: Db; actor: Actor }) {
  const rows = await listPendingInvitations(db, { teamId });
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    role: r.role,
    expiresAt: r.expiresAt,
    invitedBy: r.inviter.name,
    url: invitationUrl(r.id),
  }));
}

export async function cancelInvitation({
  db,
  headers,
  actor: { teamId },
  invitationId,
}: Caller & { actor: Actor; invitationId: string }) {
  const invitation = await findInvitation(db, { invitationId });
  if (!invitation || invitation.teamId !== teamId) throw new AppError("NOT_FOUND", "Invitation not found.");
  try {
    await getAuth().api.cancelInvitation({ headers, body: { invitationId } });
  } catch (err) {
    throw fromAuthError(err, "The invitation could not be cancelled.");
  }
}

/** What the invitee may see before accepting: the team's name and who invited them, nothing else. */
export async function describeInvitation({
  db,
  invitationId,
  email,
}: {
  db: Db;
  invitationId: string;
  email: string | null;
}) {
  const invitation = await findInvitation(db, { invitationId });
  if (!invitation) throw new AppError("NOT_FOUND", "This invitation does not exist.");
  const expired = invitation.expiresAt.getTime() < Date.now();
  return {
    id: invitation.id,
    teamName: invitation.team.name,
    teamSlug: invitation.team.slug,
    invitedBy: invitation.inviter.name,
    role: invitation.role,
    email: invitation.email,
    status:
      expired && invitation.status === "pending"
        ? ("expired" as const)
        : (invitation.status as "pending" | "accepted" | "rejected" | "canceled"),
    forYou: email !== null && email.toLowerCase() === invitation.email.toLowerCase(),
  };
}

export async function acceptInvitation({
  db,
  headers,
  actor: { userId },
  invitationId,
}: Caller & { invitationId: string }) {
  const user = await findUserEmail(db, userId);
  const view = await describeInvitation({ db, invitationId, email: user?.email ?? null });
  if (view.status !== "pending") throw new AppError("INVITATION_INVALID", `This invitation is ${view.status}.`);
  if (!view.forYou)
    throw new AppError(
      "FORBIDDEN",
      `This invitation was sent to ${view.email}. Sign in with that address to accept it.`,
    );
  // Holding the link is not enough: the invitee proves they own the invited address first.
  if (!user?.emailVerified) {
    throw new AppError(
      "FORBIDDEN",
      `Confirm your email address first: open the link we sent to ${view.email}, then accept again.`,
    );
  }
  try {
    await getAuth().api.acceptInvitation({ headers, body: { invitationId } });
  } catch (err) {
    throw fromAuthError(err, "The invitation could not be accepted.");
  }
  // The new member gets an instance of every server the team has installed (the job is idempotent per member).
  const installationIds = await listTeamInstallationIds(db, { teamSlug: view.teamSlug });
  await Promise.all(installationIds.map((installationId) => enqueueInstallationCreated({ installationId })));
  return { teamSlug: view.teamSlug };
}

export async function changeRole({
  db,
  actor: { teamId, role: actorRole },
  memberId,
  role,
}: {
  db: Db;
  actor: Actor;
  memberId: string;
  role: TeamRole;
}) {
  const target = await findTeamMember(db, { teamId, memberId });
  if (!target) throw new AppError("NOT_FOUND", "Member not found.");
  // A stored role outside our three (only possible through old data) counts as the weakest one.
  const problem = roleChangeProblem({
    actor: isTeamRole(actorRole) ? actorRole : "member",
    from: target.role as TeamRole,
    to: role,
  });
  if (problem) throw new AppError("FORBIDDEN", problem);
  if (await leavesTeamWithoutOwner({ from: target.role, to: role }, () => countOwners(db, { teamId }))) {
    throw new AppError("CONFLICT", "A team needs at least one owner.");
  }
  return setMemberRole(db, { memberId, role });
}

/**
 * The one way a membership ends (removed by an admin or left): the member's instances of the team's
 * installations and their personal access tokens go in the same transaction as the membership; then every web
 * process drops the cached tokens (Redis pub/sub) and the worker stops the instances' jobs and processes. Also the
 * way a mapped team's member leaves when their identity provider's groups no longer give it (identity-groups).
 */
export async function endMembership({
  db,
  teamId,
  membershipId,
  userId,
}: {
  db: Db;
  teamId: string;
  membershipId: string;
  userId: string;
}) {
  const instanceIds = await deleteMembership(db, { teamId, membershipId, userId });
  await invalidateAccess({ userId, teamId });
  await enqueueMemberRemoved({ teamId, userId, instanceIds });
}

export async function removeMember({
  db,
  actor: { teamId, role: actorRole, userId: actorUserId },
  memberId,
}: {
  db: Db;
  actor: Actor;
  memberId: string;
}) {
  const target = await findTeamMember(db, { teamId, memberId });
  if (!target) throw new AppError("NOT_FOUND", "Member not found.");
  if (target.role === "owner" && actorRole !== "owner")
    throw new AppError("FORBIDDEN", "Only an owner can remove an owner.");
  if (await leavesTeamWithoutOwner({ from: target.role, to: null }, () => countOwners(db, { teamId })))
    throw new AppError("CONFLICT", "A team needs at least one owner.");
  if (target.userId === actorUserId) throw new AppError("INVALID_INPUT", "Use “Leave team” to remove yourself.");
  await endMembership({ db, teamId, membershipId: target.id, userId: target.userId });
}

export async function leaveTeam({ db, actor: { teamId, userId } }: { db: Db; actor: Actor }) {
  const membership = await findMembership(db, { teamId, userId });
  if (!membership) throw new AppError("NOT_FOUND", "Team not found.");
  if (await leavesTeamWithoutOwner({ from: membership.role, to: null }, () => countOwners(db, { teamId }))) {
    throw new AppError("CONFLICT", "You are the team's only owner: make another member owner or delete the team.");
  }
  await endMembership({ db, teamId, membershipId: membership.id, userId });
}

/**
 * Deletes the team and everything in it (cascade). Every member's tokens stop working at once on every web
 * process, and the worker stops each installation's instances (stdio processes included) right away.
 */
export async function deleteTeam({ db, actor: { teamId, role: actorRole } }: { db: Db; actor: Actor }) {
  if (actorRole !== "owner") throw new AppError("FORBIDDEN", "Only an owner can delete the team.");
  const installations = await deleteTeamRows(db, { teamId });
  await invalidateAccess({ teamId });
  await Promise.all(
    installations.map(({ installationId, instanceIds }) =>
      enqueueInstallationRemoved({ installationId, teamId, instanceIds }),
    ),
  );
}
