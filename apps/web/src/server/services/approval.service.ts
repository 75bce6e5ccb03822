import { isTeamAdminRole, memberScope } from "@switchboard/core/accounts";
import { approvalState, approveProblem, mayApprove, whoMayApproveSentence } from "@switchboard/core/governance";
import type { Db } from "@switchboard/db/client";
import {
  countWaitingFor,
  decideApproval,
  findApproval,
  findInstallationApprovers,
  listApprovals as listApprovalRows,
  type ApprovalListState,
} from "@switchboard/db/queries/approvals";
import { insertGovernanceAudit } from "@switchboard/db/queries/governance";
import { findUserLabel } from "@switchboard/db/queries/user";
import { AppError } from "../errors";
import type { Actor } from "./actor";

/**
 * Held tool calls for the console: the list, one request, and the approver's decision. The gateway holds the
 * call and creates the request; the caller retries it once approved (docs/approvals.md).
 * Who sees what: admins every request of the team; a member their own calls and those they may decide.
 */

type Person = { id: string; name: string; email: string };
const person = (p: Person | null) => (p ? { id: p.id, name: p.name, email: p.email } : null);

function canDecide(actor: Actor, approval: { callerId: string; approverIds: readonly string[] }) {
  return mayApprove({
    approverIds: approval.approverIds,
    deciderId: actor.userId,
    deciderRole: actor.role,
    callerId: approval.callerId,
  });
}

export async function listApprovals({
  db,
  actor,
  state,
  installationId,
  cursor,
  limit,
}: {
  db: Db;
  actor: Actor;
  state?: ApprovalListState;
  installationId?: string;
  cursor?: string | null;
  limit: number;
}) {
  const now = new Date();
  const page = await listApprovalRows(db, {
    teamId: actor.teamId,
    visibleTo: memberScope(actor),
    state,
    installationId,
    cursor,
    limit,
    now,
  });
  return {
    items: page.items.map((a) => ({
      id: a.id,
      tool: a.toolName,
      requested: a.requested,
      reason: a.reason,
      status: approvalState(a, now),
      comment: a.comment,
      createdAt: a.createdAt,
      expiresAt: a.expiresAt,
      decidedAt: a.decidedAt,
      usedAt: a.usedAt,
      caller: person(a.caller)!,
      decidedBy: person(a.decidedBy),
      installation: { id: a.installation.id, name: a.installation.name, slug: a.installation.slug },
      mine: a.caller.id === actor.userId,
    })),
    nextCursor: page.nextCursor,
  };
}

/** How many held calls wait for the actor's decision (the navigation's badge). */
export async function waitingCount({ db, actor }: { db: Db; actor: Actor }) {
  return {
    count: await countWaitingFor(db, {
      teamId: actor.teamId,
      userId: actor.userId,
      isAdmin: isTeamAdminRole(actor.role),
    }),
  };
}

/**
 * One held call as its page shows it. Its caller, whoever may decide it and the admins see the exact arguments;
 * another member of the team (the link was passed on) sees who asks for what and who can approve it.
 */
export async function getApproval({ db, actor, approvalId }: { db: Db; actor: Actor; approvalId: string }) {
  const a = await findApproval(db, { teamId: actor.teamId, id: approvalId });
  if (!a) throw new AppError("NOT_FOUND", "This approval request does not exist.");
  const decider = canDecide(actor, { callerId: a.caller.id, approverIds: a.installation.approverIds });
  const mine = a.caller.id === actor.userId;
  const seesArguments = mine || decider || isTeamAdminRole(actor.role);
  const approvers =
    (await findInstallationApprovers(db, { teamId: actor.teamId, installationId: a.installation.id })) ?? [];
  return {
    id: a.id,
    tool: a.toolName,
    requested: a.requested,
    reason: a.reason,
    policyId: a.policyId,
    policyVersion: a.policyVersion,
    status: approvalState(a, new Date()),
    comment: a.comment,
    createdAt: a.createdAt,
    expiresAt: a.expiresAt,
    decidedAt: a.decidedAt,
    usedAt: a.usedAt,
    caller: person(a.caller)!,
    decidedBy: person(a.decidedBy),
    installation: { id: a.installation.id, name: a.installation.name, slug: a.installation.slug },
    arguments: seesArguments ? (a.arguments as unknown) : null,
    argumentsHash: seesArguments ? a.argumentsHash : null,
    mine,
    canDecide: decider,
    whoMayApprove: whoMayApproveSentence(approvers),
  };
}

/**
 * Approves or denies a held call, with an optional comment. Only an approver of its installation (named, or the
 * team's admins when none are named) decides, never the caller; only while it is pending and unexpired, once.
 * An approval lets the caller's retry of exactly this call through once, within core APPROVAL_USE_WINDOW_MS.
 */
export async function decide({
  db,
  actor,
  approvalId,
  decision,
  comment,
}: {
  db: Db;
  actor: Actor;
  approvalId: string;
  decision: "approved" | "denied";
  comment?: string | null;
}) {
  const a = await findApproval(db, { teamId: actor.teamId, id: approvalId });
  if (!a) throw new AppError("NOT_FOUND", "This approval request does not exist.");
  const problem = approveProblem({
    approverIds: a.installation.approverIds,
    deciderId: actor.userId,
    deciderRole: actor.role,
    callerId: a.caller.id,
  });
  if (problem) throw new AppError("FORBIDDEN", problem);
  const actorLabel = await findUserLabel(db, actor.userId);
  const decided = await db.$transaction(async (tx) => {
    const ok = await decideApproval(tx, {
      teamId: actor.teamId,
      id: approvalId,
      deciderId: actor.userId,
      decision,
      comment: comment?.trim() || null,
    });
    if (ok)
      await insertGovernanceAudit(tx, {
        teamId: actor.teamId,
        installationId: a.installation.id,
        actorId: actor.userId,
        actorLabel,
        action: decision === "approved" ? "call_approved" : "call_denied",
        target: `${a.installation.slug}/${a.toolName}`,
        detail: { approvalId, callerId: a.caller.id, argumentsHash: a.argumentsHash, comment: comment ?? null },
      });
    return ok;
  });
  if (!decided) {
    const now = await findApproval(db, { teamId: actor.teamId, id: approvalId });
    const status = now ? approvalState(now, new Date()) : "expired";
    throw new AppError(
      "CONFLICT",
      status === "expired"
        ? "This request expired before it was decided; the caller can call the tool again to ask anew."
        : `This request was already ${status === "used" ? "approved and used" : status}${now?.decidedBy ? ` by ${now.decidedBy.name || now.decidedBy.email}` : ""}.`,
    );
  }
  return getApproval({ db, actor, approvalId });
}
