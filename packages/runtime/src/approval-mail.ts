import type { Logger } from "pino";
import { approvalPath, approvalRequestMail } from "@switchboard/core/governance";
import { type Mailer } from "./mailer";

/**
 * What the approvers' mail about one held call needs: `@switchboard/db/queries/approvals` `approvalRecipients`
 * answers exactly this (the request, its team and server, and who approves it, never its caller).
 */
export interface ApprovalNotice {
  approval: {
    id: string;
    toolName: string;
    reason: string;
    expiresAt: Date;
    caller: { name: string; email: string };
    team: { slug: string };
    installation: { name: string };
  };
  recipients: ReadonlyArray<{ email: string }>;
}

/**
 * Mails each approver of a new held call a link to its page (the arguments stay on the page: they may be
 * sensitive). Only with SMTP configured (`smtpUrl`): without it the console's list and badge are the notice.
 * Never throws; a failed send is logged. Returns how many mails were handed to the SMTP server.
 */
export async function sendApprovalRequestMail({
  mailer,
  smtpUrl,
  appUrl,
  notice,
  logger,
}: {
  mailer: Mailer;
  smtpUrl: string | undefined;
  appUrl: string;
  notice: ApprovalNotice;
  logger: Logger;
}): Promise<number> {
  if (!smtpUrl) return 0;
  const { approval } = notice;
  const link = new URL(approvalPath(approval.team.slug, approval.id), appUrl).href;
  const { subject, text } = approvalRequestMail({
    link,
    caller: approval.caller,
    tool: approval.toolName,
    server: approval.installation.name,
    reason: approval.reason,
    expiresAt: approval.expiresAt,
  });
  let sent = 0;
  for (const r of notice.recipients) {
    try {
      await mailer.send({ to: r.email, subject, text, link });
      sent += 1;
    } catch (err) {
      logger.error({ err, approvalId: approval.id, to: r.email }, "could not mail an approver");
    }
  }
  return sent;
}
