import {
  approvalArgumentsHash,
  approvalDeniedMessage,
  approvalExpiredMessage,
  approvalPath,
  approvalPendingMessage,
  approvalRequestExpiry,
  approvalState,
  approvalUsedMessage,
  APPROVAL_MARKED_REASON,
} from "@switchboard/core/governance";
import type { ApprovalAdmission, ApprovalGate, GatedCall, PolicyDecision } from "@switchboard/core/proxy";
import { getDb } from "@switchboard/db/client";
import {
  consumeApproval,
  findOrCreatePendingApproval,
  latestApproval,
  type ApprovalBinding,
} from "@switchboard/db/queries/approvals-gate";
import { approvalRecipients } from "@switchboard/db/queries/approvals";
import { appendAudit, type AuditInput } from "@switchboard/db/queries/audit";
import { findTeamSlug } from "@switchboard/db/queries/team";
import { findUserLabel } from "@switchboard/db/queries/user";
import { sendApprovalRequestMail } from "@switchboard/runtime/approval-mail";
import { exportAuditRecord } from "@switchboard/runtime/audit-export";
import { env } from "@switchboard/runtime/env";
import { RedisEventPublisher } from "@switchboard/runtime/instance-events";
import { logger } from "@switchboard/runtime/logger";
import { createMailer, type Mailer } from "@switchboard/runtime/mailer";
import { redis } from "@switchboard/runtime/redis";

/**
 * The approval gate of one member (core governance/approvals.ts holds the rules, proxy/server.ts asks the gate).
 * A held call goes on when an approval of exactly it (caller, tool, argument hash, policy version) is granted,
 * unexpired and unused, and uses it up. Otherwise:
 * - a denial decided less than {@link APPROVAL_USE_WINDOW_MS} ago is told with the approver's comment; after it,
 *   calling again asks again;
 * - a pending request for the same call is the one the call waits on (a retry does not make another);
 * - anything else (none yet, the last one used, expired undecided or approved but not used in time) makes a new
 *   pending request, announced live to the console and audited, and the caller is told where it is decided.
 */
export function approvalGate(member: { teamId: string; userId: string }): ApprovalGate {
  return {
    async admit(call: GatedCall, decision: PolicyDecision): Promise<ApprovalAdmission> {
      const db = getDb();
      const binding: ApprovalBinding = {
        teamId: member.teamId,
        callerId: member.userId,
        installationId: call.installationId,
        toolName: call.target,
        argumentsHash: approvalArgumentsHash(call.arguments),
        policyVersion: decision.policyVersion,
      };
      const now = new Date();
      const usedId = await consumeApproval(db, binding, now);
      if (usedId) {
        await audit({ ...auditOf(member, call, binding), action: "approval.used", targetId: usedId });
        return { admitted: true, approvalId: usedId };
      }
      const latest = await latestApproval(db, binding);
      if (latest?.state === "denied" && latest.expiresAt > now)
        return { admitted: false, state: "denied", message: approvalDeniedMessage(latest.comment) };
      const { approval, created, previous } = await findOrCreatePendingApproval(
        db,
        binding,
        {
          requested: call.requested,
          arguments: call.arguments ?? {},
          reason: decision.reason ?? APPROVAL_MARKED_REASON,
          policyId: decision.policyId ?? null,
          expiresAt: approvalRequestExpiry(now),
        },
        now,
      );
      const url = await pageUrl(member.teamId, approval.id);
      if (!created) return { admitted: false, state: "pending", message: approvalPendingMessage(url), url };
      await Promise.all([
        audit({
          ...auditOf(member, call, binding),
          action: "approval.requested",
          targetId: approval.id,
          detail: { ...auditOf(member, call, binding).detail, reason: decision.reason ?? APPROVAL_MARKED_REASON },
        }),
        announce(member, call, approval.id),
      ]);
      mailApprovers(approval.id);
      const before = previous ? approvalState(previous, now) : undefined;
      if (before === "expired") return { admitted: false, state: "expired", message: approvalExpiredMessage(url), url };
      const message = before === "used" ? approvalUsedMessage(url) : approvalPendingMessage(url);
      return { admitted: false, state: "pending", message, url };
    },
  };
}

/** The approval page, on the console's public address; undefined when the team is gone. */
async function pageUrl(teamId: string, id: string): Promise<string | undefined> {
  const slug = await findTeamSlug(getDb(), teamId);
  return slug ? new URL(approvalPath(encodeURIComponent(slug), encodeURIComponent(id)), env().APP_URL).href : undefined;
}

/** What every approval record says: the caller, the tool and the binding (the arguments only by their hash). */
function auditOf(member: { teamId: string; userId: string }, call: GatedCall, binding: ApprovalBinding) {
  return {
    teamId: member.teamId,
    actorId: member.userId,
    actorLabel: member.userId,
    targetType: "tool_approval",
    targetLabel: call.requested,
    client: "mcp",
    detail: {
      installationId: call.installationId,
      tool: call.target,
      argumentsHash: binding.argumentsHash,
      policyVersion: binding.policyVersion,
    },
  } satisfies Omit<AuditInput, "action">;
}

/** Writes the record (and streams it to the SIEM when configured); a failure is logged, the call goes on. */
async function audit(input: AuditInput): Promise<void> {
  try {
    if (input.actorId) input = { ...input, actorLabel: await findUserLabel(getDb(), input.actorId) };
    const written = await appendAudit(getDb(), input);
    exportAuditRecord({ ...input, seq: written.seq, hash: written.hash });
  } catch (err) {
    logger.error({ err, action: input.action, teamId: input.teamId }, "could not write the audit record");
  }
}

let mailer: Mailer | undefined;

/**
 * Mails the approvers of a new request a link to its page when SMTP is set (never the arguments, never the
 * caller). Off the call's path: the caller's answer does not wait for the SMTP server, and a failure is logged.
 */
function mailApprovers(approvalId: string): void {
  const { SMTP_URL, MAIL_FROM, APP_URL } = env();
  if (!SMTP_URL) return;
  mailer ??= createMailer({ smtpUrl: SMTP_URL, from: MAIL_FROM, logger });
  const send = mailer;
  void approvalRecipients(getDb(), { approvalId })
    .then((notice) =>
      notice ? sendApprovalRequestMail({ mailer: send, smtpUrl: SMTP_URL, appUrl: APP_URL, notice, logger }) : 0,
    )
    .catch((err: unknown) => logger.error({ err, approvalId }, "could not mail the approvers"));
}

/** Tells the team's open console tabs that a request waits (best effort: the row is the record). */
async function announce(member: { teamId: string; userId: string }, call: GatedCall, approvalId: string) {
  const publisher = new RedisEventPublisher(redis(), env().REDIS_PREFIX, (err) =>
    logger.warn({ err, approvalId }, "could not announce an approval request; console tabs see it on refresh"),
  );
  await publisher
    .publish(
      "approval_requested",
      {
        teamId: member.teamId,
        installationId: call.installationId,
        instanceId: call.instanceId,
        userId: member.userId,
      },
      { approvalId, tool: call.target },
      new Date(),
    )
    .catch(() => undefined);
}
