import { isTeamAdminRole, TEAM_ROLES } from "@switchboard/core/accounts";
import { approvalDecisionExpiry } from "@switchboard/core/governance";
import type { DbTx } from "../client";
import type { Prisma } from "../generated/prisma/client";
import { pageQuery, toPage } from "../pagination";

/**
 * Held tool calls as the console shows and decides them (ToolApproval). The gateway creates and consumes them
 * (its own queries); here: lists, one request with what an approver must see, the decision, and the settings
 * that make a tool need approval and name who approves.
 */

/** What a list shows: waiting (pending, unexpired), decided, or one outcome (an expired one was never used). */
export type ApprovalListState = "waiting" | "decided" | "approved" | "denied" | "used" | "expired";

const PERSON = { select: { id: true, name: true, email: true } } as const;

const LIST_SELECT = {
  id: true,
  toolName: true,
  requested: true,
  reason: true,
  state: true,
  comment: true,
  createdAt: true,
  expiresAt: true,
  decidedAt: true,
  usedAt: true,
  caller: PERSON,
  decidedBy: PERSON,
  installation: { select: { id: true, name: true, slug: true } },
} as const;

function stateWhere(state: ApprovalListState | undefined, now: Date): Prisma.ToolApprovalWhereInput {
  switch (state) {
    case undefined:
      return {};
    case "waiting":
      return { state: "pending", expiresAt: { gt: now } };
    case "decided":
      return { NOT: { state: "pending", expiresAt: { gt: now } } };
    case "approved":
      return { state: "approved", expiresAt: { gt: now } };
    case "expired":
      return { state: { in: ["pending", "approved"] }, expiresAt: { lte: now } };
    default:
      return { state };
  }
}

/**
 * A team's held calls, newest first, keyset pages on the id. `visibleTo` narrows them to what one member may see:
 * their own calls and those of installations naming them as an approver (admins pass none: they see all).
 */
export async function listApprovals(
  db: DbTx,
  input: {
    teamId: string;
    visibleTo?: string;
    state?: ApprovalListState;
    installationId?: string;
    cursor?: string | null;
    limit: number;
    now?: Date;
  },
) {
  const now = input.now ?? new Date();
  const rows = await db.toolApproval.findMany({
    where: {
      teamId: input.teamId,
      ...(input.installationId ? { installationId: input.installationId } : {}),
      AND: [
        stateWhere(input.state, now),
        input.visibleTo
          ? { OR: [{ callerId: input.visibleTo }, { installation: { approverIds: { has: input.visibleTo } } }] }
          : {},
      ],
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    ...pageQuery({ cursor: input.cursor, limit: input.limit }),
    select: LIST_SELECT,
  });
  return toPage(rows, input.limit);
}

/**
 * How many held calls wait for `userId` to decide them: pending, unexpired, not their own, of installations that
 * name them (or name nobody, when they are an admin).
 */
export async function countWaitingFor(
  db: DbTx,
  { teamId, userId, isAdmin, now = new Date() }: { teamId: string; userId: string; isAdmin: boolean; now?: Date },
): Promise<number> {
  return db.toolApproval.count({
    where: {
      teamId,
      state: "pending",
      expiresAt: { gt: now },
      callerId: { not: userId },
      installation: {
        OR: [{ approverIds: { has: userId } }, ...(isAdmin ? [{ approverIds: { isEmpty: true } }] : [])],
      },
    },
  });
}

/** One held call of the team with everything its page shows (another team's reads as missing). */
export async function findApproval(db: DbTx, { teamId, id }: { teamId: string; id: string }) {
  return db.toolApproval.findFirst({
    where: { id, teamId },
    select: {
      ...LIST_SELECT,
      arguments: true,
      argumentsHash: true,
      policyVersion: true,
      policyId: true,
      installation: { select: { id: true, name: true, slug: true, approverIds: true } },
    },
  });
}

/**
 * Decides a held call, only while it is pending and unexpired (one UPDATE with both conditions, so two approvers
 * deciding at once cannot both win). Its expiry becomes core `approvalDecisionExpiry(now)`: an approval is used,
 * and a denial told to the caller, until then. Returns false when the call was already decided or has expired.
 */
export async function decideApproval(
  db: DbTx,
  input: {
    teamId: string;
    id: string;
    deciderId: string;
    decision: "approved" | "denied";
    comment: string | null;
    now?: Date;
  },
): Promise<boolean> {
  const now = input.now ?? new Date();
  const { count } = await db.toolApproval.updateMany({
    where: { id: input.id, teamId: input.teamId, state: "pending", expiresAt: { gt: now } },
    data: {
      state: input.decision,
      decidedById: input.deciderId,
      decidedAt: now,
      comment: input.comment,
      expiresAt: approvalDecisionExpiry(now),
    },
  });
  return count === 1;
}

/** Marks a tool of the installation as needing approval for each call, or not (the row is made if missing). */
export async function setToolRequiresApproval(
  db: DbTx,
  {
    installationId,
    toolName,
    requiresApproval,
  }: { installationId: string; toolName: string; requiresApproval: boolean },
) {
  await db.installationItemSetting.upsert({
    where: { installationId_kind_name: { installationId, kind: "tool", name: toolName } },
    create: { installationId, kind: "tool", name: toolName, requiresApproval },
    update: { requiresApproval },
  });
}

/** The tools of an installation an admin marked as needing approval. */
export async function listToolsRequiringApproval(db: DbTx, installationId: string): Promise<string[]> {
  const rows = await db.installationItemSetting.findMany({
    where: { installationId, kind: "tool", requiresApproval: true },
    select: { name: true },
    orderBy: { name: "asc" },
  });
  return rows.map((r) => r.name);
}

export class ApproverNotMember extends Error {
  constructor(readonly userId: string) {
    super(`User ${userId} is not a member of this team`);
  }
}

/**
 * Names who approves the installation's held calls (empty: the team's admins). Each must be a member of the team
 * (ApproverNotMember otherwise); kept in the order given, without repeats.
 */
export async function setInstallationApprovers(
  db: DbTx,
  { teamId, installationId, approverIds }: { teamId: string; installationId: string; approverIds: readonly string[] },
): Promise<string[]> {
  const ids = [...new Set(approverIds)];
  const members = await db.membership.findMany({
    where: { teamId, userId: { in: ids } },
    select: { userId: true },
  });
  const missing = ids.find((id) => !members.some((m) => m.userId === id));
  if (missing) throw new ApproverNotMember(missing);
  await db.installation.update({ where: { id: installationId }, data: { approverIds: ids } });
  return ids;
}

/** The installation's approvers as people (named ones, in order; none named: an empty list). */
export async function findInstallationApprovers(
  db: DbTx,
  { teamId, installationId }: { teamId: string; installationId: string },
) {
  const installation = await db.installation.findFirst({
    where: { id: installationId, teamId },
    select: { approverIds: true },
  });
  if (!installation) return null;
  const users = await db.user.findMany({
    where: { id: { in: installation.approverIds }, memberships: { some: { teamId } } },
    select: { id: true, name: true, email: true },
  });
  return installation.approverIds.flatMap((id) => users.filter((u) => u.id === id));
}

/**
 * Who gets mail about a held call: the installation's named approvers who are still members, or (none named) the
 * team's owners and admins; never the caller.
 */
export async function approvalRecipients(db: DbTx, { approvalId }: { approvalId: string }) {
  const approval = await db.toolApproval.findUnique({
    where: { id: approvalId },
    select: {
      id: true,
      teamId: true,
      callerId: true,
      toolName: true,
      requested: true,
      reason: true,
      expiresAt: true,
      state: true,
      caller: PERSON,
      team: { select: { slug: true, name: true } },
      installation: { select: { name: true, slug: true, approverIds: true } },
    },
  });
  if (!approval) return null;
  const named = approval.installation.approverIds;
  const memberships = await db.membership.findMany({
    where: {
      teamId: approval.teamId,
      ...(named.length > 0
        ? { userId: { in: named, not: approval.callerId } }
        : { userId: { not: approval.callerId }, role: { in: TEAM_ROLES.filter(isTeamAdminRole) } }),
    },
    select: { user: { select: { id: true, email: true, name: true } } },
  });
  return { approval, recipients: memberships.map((m) => m.user) };
}
