import "server-only";
import type { Db } from "@switchboard/db/client";
import {
  countOwners,
  findInvitation,
  findMembership,
  listMembers,
  listPendingInvitations,
  listTeamsForUser,
  teamSlugTaken,
} from "@switchboard/db/queries/teams";
import { roleChangeProblem, slugify, teamSlugProblem, type TeamRole } from "@switchboard/core/accounts";
import { getAuth } from "../auth";
import { AppError, fromAuthError } from "../errors";
import { enqueueInstallationCreated, enqueueInstallationRemoved, enqueueMemberRemoved } from "@switchboard/runtime/jobs";
import { invalidateAccess } from "@switchboard/runtime/invalidations";
import { env } from "@switchboard/runtime/env";

interface Caller {
  db: Db;
  userId: string;
  headers: Headers;
}

export async function listTeams({ db, userId }: Pick<Caller, "db" | "userId">) {
  return listTeamsForUser(db, { userId });
}

export async function createTeam({ db, headers, name, slug }: Caller & { name: string; slug?: string }) {
  const finalSlug = slug || slugify(name);
  if (!finalSlug) throw new AppError("INVALID_INPUT", "Choose a name with at least one letter or digit.");
  const slugProblem = teamSlugProblem(finalSlug);
  if (slugProblem) throw new AppError("INVALID_INPUT", slugProblem);
  if (await teamSlugTaken(db, finalSlug)) throw new AppError("CONFLICT", `The URL “${finalSlug}” is taken; pick another.`);
  try {
    const team = await getAuth().api.createOrganization({ headers, body: { name, slug: finalSlug } });
    if (!team) throw new AppError("INTERNAL", "The team could not be created.");
    return { id: team.id, name: team.name, slug: team.slug };
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw fromAuthError(err, "The team could not be created.");
  }
}

export async function getMembers({ db, teamId, cursor, limit }: { db: Db; teamId: string; cursor?: string | null; limit: number }) {
  return listMembers(db, { teamId, cursor, limit });
}

export function invitationUrl(invitationId: string): string {
  return new URL(`/invite/${invitationId}`, env().APP_URL).toString();
}

export async function inviteMember({ db, headers, teamId, email, role }: Caller & { teamId: string; email: string; role: "admin" | "member" }) {
  const existing = await db.membership.findFirst({ where: { teamId, user: { email } } });
  if (existing) throw new AppError("CONFLICT", `${email} is already a member of this team.`);
  try {
    const invitation = await getAuth().api.createInvitation({
      headers,
      body: { email, role, organizationId: teamId, resend: true },
    });
    return { id: invitation.id, email: invitation.email, role: invitation.role, expiresAt: invitation.expiresAt, url: invitationUrl(invitation.id) };
  } catch (err) {
    throw fromAuthError(err, "The invitation could not be created.");
  }
}

export async function getPendingInvitations({ db, teamId }: { db: Db; teamId: string }) {
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

export async function cancelInvitation({ db, headers, teamId, invitationId }: Caller & { teamId: string; invitationId: string }) {
  const invitation = await findInvitation(db, { invitationId });
  if (!invitation || invitation.teamId !== teamId) throw new AppError("NOT_FOUND", "Invitation not found.");
  try {
    await getAuth().api.cancelInvitation({ headers, body: { invitationId } });
  } catch (err) {
    throw fromAuthError(err, "The invitation could not be cancelled.");
  }
}

/** What the invitee may see before accepting: the team's name and who invited them, nothing else. */
export async function describeInvitation({ db, invitationId, email }: { db: Db; invitationId: string; email: string | null }) {
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
    status: expired && invitation.status === "pending" ? ("expired" as const) : (invitation.status as "pending" | "accepted" | "rejected" | "canceled"),
    forYou: email !== null && email.toLowerCase() === invitation.email.toLowerCase(),
  };
}

export async function acceptInvitation({ db, headers, userId, invitationId }: Caller & { invitationId: string }) {
  const user = await db.user.findUnique({ where: { id: userId }, select: { email: true, emailVerified: true } });
  const view = await describeInvitation({ db, invitationId, email: user?.email ?? null });
  if (view.status !== "pending") throw new AppError("INVITATION_INVALID", `This invitation is ${view.status}.`);
  if (!view.forYou) throw new AppError("FORBIDDEN", `This invitation was sent to ${view.email}. Sign in with that address to accept it.`);
  // Holding the link is not enough: the invitee proves they own the invited address first.
  if (!user?.emailVerified) {
    throw new AppError("FORBIDDEN", `Confirm your email address first: open the link we sent to ${view.email}, then accept again.`);
  }
  try {
    await getAuth().api.acceptInvitation({ headers, body: { invitationId } });
  } catch (err) {
    throw fromAuthError(err, "The invitation could not be accepted.");
  }
  // The new member gets an instance of every server the team has installed (the job is idempotent per member).
  const installations = await db.installation.findMany({ where: { team: { slug: view.teamSlug } }, select: { id: true } });
  await Promise.all(installations.map((i) => enqueueInstallationCreated({ installationId: i.id })));
  return { teamSlug: view.teamSlug };
}

export async function changeRole({ db, teamId, actorRole, memberId, role }: { db: Db; teamId: string; actorRole: TeamRole; memberId: string; role: TeamRole }) {
  const target = await db.membership.findFirst({ where: { id: memberId, teamId } });
  if (!target) throw new AppError("NOT_FOUND", "Member not found.");
  const problem = roleChangeProblem({ actor: actorRole, from: target.role as TeamRole, to: role });
  if (problem) throw new AppError("FORBIDDEN", problem);
  if (target.role === "owner" && role !== "owner" && (await countOwners(db, { teamId })) <= 1) {
    throw new AppError("CONFLICT", "A team needs at least one owner.");
  }
  return db.membership.update({ where: { id: memberId }, data: { role } });
}

/**
 * The one way a membership ends (removed by an admin or left): the member's instances of the team's
 * installations and their personal access tokens go in the same transaction as the membership; then every web
 * process drops the cached tokens (Redis pub/sub) and the worker stops the instances' jobs and processes.
 */
async function endMembership({ db, teamId, membershipId, userId }: { db: Db; teamId: string; membershipId: string; userId: string }) {
  // The worker is told which instances because the rows are gone by the time it runs.
  const instanceIds = (await db.instance.findMany({ where: { userId, installation: { teamId } }, select: { id: true } })).map((i) => i.id);
  await db.$transaction([
    db.instance.deleteMany({ where: { userId, installation: { teamId } } }),
    db.personalAccessToken.deleteMany({ where: { userId, teamId } }),
    db.membership.delete({ where: { id: membershipId } }),
  ]);
  await invalidateAccess({ userId, teamId });
  await enqueueMemberRemoved({ teamId, userId, instanceIds });
}

export async function removeMember({ db, teamId, actorRole, actorUserId, memberId }: { db: Db; teamId: string; actorRole: string; actorUserId: string; memberId: string }) {
  const target = await db.membership.findFirst({ where: { id: memberId, teamId } });
  if (!target) throw new AppError("NOT_FOUND", "Member not found.");
  if (target.role === "owner" && actorRole !== "owner") throw new AppError("FORBIDDEN", "Only an owner can remove an owner.");
  if (target.role === "owner" && (await countOwners(db, { teamId })) <= 1) throw new AppError("CONFLICT", "A team needs at least one owner.");
  if (target.userId === actorUserId) throw new AppError("INVALID_INPUT", "Use “Leave team” to remove yourself.");
  await endMembership({ db, teamId, membershipId: target.id, userId: target.userId });
}

export async function leaveTeam({ db, teamId, userId }: { db: Db; teamId: string; userId: string }) {
  const membership = await db.membership.findFirst({ where: { teamId, userId } });
  if (!membership) throw new AppError("NOT_FOUND", "Team not found.");
  if (membership.role === "owner" && (await countOwners(db, { teamId })) <= 1) {
    throw new AppError("CONFLICT", "You are the team's only owner: make another member owner or delete the team.");
  }
  await endMembership({ db, teamId, membershipId: membership.id, userId });
}

/**
 * Deletes the team and everything in it (cascade). Every member's tokens stop working at once on every web
 * process, and the worker stops each installation's instances (stdio processes included) right away.
 */
export async function deleteTeam({ db, teamId, actorRole }: { db: Db; teamId: string; actorRole: string }) {
  if (actorRole !== "owner") throw new AppError("FORBIDDEN", "Only an owner can delete the team.");
  const installations = await db.installation.findMany({ where: { teamId }, select: { id: true, instances: { select: { id: true } } } });
  await db.team.delete({ where: { id: teamId } });
  await invalidateAccess({ teamId });
  await Promise.all(
    installations.map((i) => enqueueInstallationRemoved({ installationId: i.id, teamId, instanceIds: i.instances.map((x) => x.id) })),
  );
}

export { findMembership };
