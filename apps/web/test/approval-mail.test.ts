import { afterAll, describe, expect, it } from "vitest";
import pino from "pino";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { approvalRecipients } from "@switchboard/db/queries/approvals";
import { closeJobs } from "@switchboard/runtime/jobs";
import { sendApprovalRequestMail } from "@switchboard/runtime/approval-mail";
import { createMailer } from "@switchboard/runtime/mailer";
import { signedInCaller } from "./support/caller";
import { teamWithInstances } from "./support/console";
import { linkIn, startMailSink } from "./support/mail-sink";

const sink = await startMailSink();
const logger = pino({ level: "silent" });
const mailer = createMailer({ smtpUrl: sink.url, from: "Switchboard <switchboard@example.test>", logger });

afterAll(async () => {
  await sink.close();
  await closeJobs();
  await disconnectDb();
});

async function heldCall(caller?: (world: Awaited<ReturnType<typeof teamWithInstances>>) => string) {
  const world = await teamWithInstances();
  const second = await signedInCaller("second");
  const inv = await world.admin.caller.team.invite({ teamId: world.team.id, email: second.email });
  await second.caller.invitation.accept({ invitationId: inv.id });
  const approval = await getDb().toolApproval.create({
    data: {
      teamId: world.team.id,
      installationId: world.installation.id,
      callerId: caller ? caller(world) : world.member.userId,
      toolName: "transfer",
      requested: `${world.installation.slug}-transfer`,
      arguments: { account: "secret-account-4242", amount: 10 },
      argumentsHash: "0".repeat(64),
      policyVersion: "default",
      reason: "An admin marked this tool as needing approval.",
      expiresAt: new Date(Date.now() + 3_600_000),
    },
  });
  return { ...world, second, approval };
}

const mailsFor = (approvalId: string) => sink.mails.filter((m) => m.text.includes(approvalId));

describe("mail to approvers about a held call", () => {
  it("goes to the team's admins, never the caller, with the link and without the arguments", async () => {
    const { admin, member, team, installation, approval } = await heldCall();
    const notice = (await approvalRecipients(getDb(), { approvalId: approval.id }))!;
    const sent = await sendApprovalRequestMail({
      mailer,
      smtpUrl: sink.url,
      appUrl: "https://switchboard.example.test",
      notice,
      logger,
    });
    expect(sent).toBe(1);
    const [mail] = mailsFor(approval.id);
    expect(mail!.to).toEqual([admin.email.toLowerCase()]);
    expect(mail!.subject).toBe(`Approval needed: transfer on ${installation.name}`);
    expect(linkIn(mail!)).toBe(`https://switchboard.example.test/t/${team.slug}/approvals/${approval.id}`);
    expect(mail!.text).toContain(member.email);
    expect(mail!.text).toContain("An admin marked this tool as needing approval.");
    expect(mail!.text).not.toContain("secret-account-4242");
  });

  it("never goes to the caller, even when the caller is one of the admins", async () => {
    const { admin, second, team, approval } = await heldCall((w) => w.admin.userId);
    const membership = await getDb().membership.findFirstOrThrow({ where: { teamId: team.id, userId: second.userId } });
    await admin.caller.team.changeRole({ teamId: team.id, memberId: membership.id, role: "admin" });
    const notice = (await approvalRecipients(getDb(), { approvalId: approval.id }))!;
    expect(notice.recipients.map((r) => r.email)).toEqual([second.email]);
  });

  it("goes to the named approvers only when the server names some", async () => {
    const { admin, second, member, team, installation, approval } = await heldCall();
    await admin.caller.governance.setApprovers({
      teamId: team.id,
      installationId: installation.id,
      approverIds: [second.userId, member.userId],
    });
    const notice = (await approvalRecipients(getDb(), { approvalId: approval.id }))!;
    expect(notice.recipients.map((r) => r.email)).toEqual([second.email]);
    await sendApprovalRequestMail({ mailer, smtpUrl: sink.url, appUrl: "http://localhost:3000", notice, logger });
    expect(mailsFor(approval.id).map((m) => m.to)).toEqual([[second.email.toLowerCase()]]);
  });

  it("is not sent without SMTP configured", async () => {
    const { approval } = await heldCall();
    const notice = (await approvalRecipients(getDb(), { approvalId: approval.id }))!;
    expect(
      await sendApprovalRequestMail({ mailer, smtpUrl: undefined, appUrl: "http://localhost:3000", notice, logger }),
    ).toBe(0);
    expect(mailsFor(approval.id)).toEqual([]);
  });
});
