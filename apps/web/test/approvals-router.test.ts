import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { APPROVAL_USE_WINDOW_MS } from "@switchboard/core/governance";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { closeJobs } from "@switchboard/runtime/jobs";
import { signedInCaller } from "./support/caller";
import { strangerWithTeam, teamWithInstances } from "./support/console";

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

/** A team with an admin, the member who calls, a second member, and the installation's `echo` tool discovered. */
async function heldCallWorld() {
  const world = await teamWithInstances();
  const second = await signedInCaller("second");
  const inv = await world.admin.caller.team.invite({ teamId: world.team.id, email: second.email });
  await second.caller.invitation.accept({ invitationId: inv.id });
  await world.db.instanceTool.create({
    data: { instanceId: world.membersInstance.id, name: "echo", inputSchema: { type: "object" }, tokenCount: 3 },
  });
  /** A call the member made that the gateway held (as its gate writes it). */
  const held = async (overrides: { expiresAt?: Date; callerId?: string } = {}) =>
    (
      await world.db.toolApproval.create({
        data: {
          teamId: world.team.id,
          installationId: world.installation.id,
          callerId: overrides.callerId ?? world.member.userId,
          toolName: "echo",
          requested: `${world.installation.slug}-echo`,
          arguments: { text: "drop table users", nested: { n: 1 } },
          argumentsHash: randomBytes(32).toString("hex"),
          policyVersion: "default",
          reason: "An admin marked this tool as needing approval.",
          expiresAt: overrides.expiresAt ?? new Date(Date.now() + 3_600_000),
        },
      })
    ).id;
  return { ...world, second, held };
}

describe("deciding a held call", () => {
  it("lets an admin approve it once: the approval is then usable for the use-within window only", async () => {
    const { admin, member, team, held, db } = await heldCallWorld();
    const approvalId = await held();

    const decided = await admin.caller.approvals.decide({
      teamId: team.id,
      approvalId,
      decision: "approved",
      comment: "  ok for today ",
    });
    expect(decided).toMatchObject({ status: "approved", comment: "ok for today", decidedBy: { id: admin.userId } });
    const row = await db.toolApproval.findUniqueOrThrow({ where: { id: approvalId } });
    expect(row.expiresAt.getTime() - row.decidedAt!.getTime()).toBe(APPROVAL_USE_WINDOW_MS);

    // Deciding again (the same admin, or anyone) changes nothing and says who did it.
    await expect(
      admin.caller.approvals.decide({ teamId: team.id, approvalId, decision: "denied" }),
    ).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringContaining("already approved by") });
    expect((await db.toolApproval.findUniqueOrThrow({ where: { id: approvalId } })).state).toBe("approved");

    // The caller reads their own request's outcome.
    expect(await member.caller.approvals.get({ teamId: team.id, approvalId })).toMatchObject({
      status: "approved",
      mine: true,
      canDecide: false,
    });
  });

  it("never lets the caller decide their own call, even as an admin or a named approver", async () => {
    const { admin, member, team, installation, held } = await heldCallWorld();
    const membersCall = await held();
    await expect(
      member.caller.approvals.decide({ teamId: team.id, approvalId: membersCall, decision: "approved" }),
    ).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: "You cannot approve your own call; another approver has to decide it.",
    });

    const adminsCall = await held({ callerId: admin.userId });
    await expect(
      admin.caller.approvals.decide({ teamId: team.id, approvalId: adminsCall, decision: "approved" }),
    ).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: "You cannot approve your own call; another approver has to decide it.",
    });

    await admin.caller.governance.setApprovers({
      teamId: team.id,
      installationId: installation.id,
      approverIds: [member.userId],
    });
    await expect(
      member.caller.approvals.decide({ teamId: team.id, approvalId: membersCall, decision: "approved" }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("records a denial with its comment, in the audit trail and the server's governance trail", async () => {
    const { admin, member, team, installation, held, db } = await heldCallWorld();
    const approvalId = await held();
    await admin.caller.approvals.decide({ teamId: team.id, approvalId, decision: "denied", comment: "Not on prod." });

    expect(await member.caller.approvals.get({ teamId: team.id, approvalId })).toMatchObject({
      status: "denied",
      comment: "Not on prod.",
    });
    const event = await db.auditEvent.findFirstOrThrow({ where: { teamId: team.id, action: "approvals.decide" } });
    expect(event).toMatchObject({ targetType: "tool_approval", targetId: approvalId });
    expect(event.before).toMatchObject({ state: "pending" });
    expect(event.after).toMatchObject({ state: "denied", comment: "Not on prod." });
    // The audit record never holds the call's arguments.
    expect(JSON.stringify(event)).not.toContain("drop table");
    const trail = await admin.caller.governance.audit({ teamId: team.id, installationId: installation.id });
    expect(trail[0]).toMatchObject({ action: "call_denied", target: `${installation.slug}/echo` });
  });

  it("refuses a decision once the request expired, and shows it as expired", async () => {
    const { admin, team, held } = await heldCallWorld();
    const approvalId = await held({ expiresAt: new Date(Date.now() - 1000) });
    await expect(
      admin.caller.approvals.decide({ teamId: team.id, approvalId, decision: "approved" }),
    ).rejects.toMatchObject({ code: "CONFLICT", message: expect.stringContaining("expired") });
    expect(await admin.caller.approvals.get({ teamId: team.id, approvalId })).toMatchObject({ status: "expired" });
  });

  it("lets two approvers deciding at once have only one decision", async () => {
    const { admin, second, team, installation, held, db } = await heldCallWorld();
    await admin.caller.governance.setApprovers({
      teamId: team.id,
      installationId: installation.id,
      approverIds: [second.userId, admin.userId],
    });
    const approvalId = await held();
    const results = await Promise.allSettled([
      admin.caller.approvals.decide({ teamId: team.id, approvalId, decision: "approved" }),
      second.caller.approvals.decide({ teamId: team.id, approvalId, decision: "denied" }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const row = await db.toolApproval.findUniqueOrThrow({ where: { id: approvalId } });
    expect(row.state).toBe(results[0]!.status === "fulfilled" ? "approved" : "denied");
  });
});

describe("named approvers", () => {
  it("hand the decision to the members named: admins are then refused with a sentence naming who can", async () => {
    const { admin, second, team, installation, held } = await heldCallWorld();
    const approvalId = await held();
    expect(await admin.caller.approvals.waitingCount({ teamId: team.id })).toEqual({ count: 1 });
    expect(await second.caller.approvals.waitingCount({ teamId: team.id })).toEqual({ count: 0 });

    const saved = await admin.caller.governance.setApprovers({
      teamId: team.id,
      installationId: installation.id,
      approverIds: [second.userId, second.userId],
    });
    expect(saved.approvers).toEqual([{ id: second.userId, name: "second", email: second.email }]);
    expect(await admin.caller.approvals.waitingCount({ teamId: team.id })).toEqual({ count: 0 });
    expect(await second.caller.approvals.waitingCount({ teamId: team.id })).toEqual({ count: 1 });

    await expect(
      admin.caller.approvals.decide({ teamId: team.id, approvalId, decision: "approved" }),
    ).rejects.toMatchObject({
      code: "FORBIDDEN",
      message: "Only the approvers this installation names can decide its calls.",
    });
    await expect(
      second.caller.approvals.decide({ teamId: team.id, approvalId, decision: "approved" }),
    ).resolves.toMatchObject({ status: "approved", decidedBy: { id: second.userId } });
  });

  it("must be members of the team; an empty list gives the decision back to the admins", async () => {
    const { admin, team, installation } = await heldCallWorld();
    const { stranger } = await strangerWithTeam();
    await expect(
      admin.caller.governance.setApprovers({
        teamId: team.id,
        installationId: installation.id,
        approverIds: [stranger.userId],
      }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", message: "Every approver must be a member of this team." });
    expect(await admin.caller.governance.approvers({ teamId: team.id, installationId: installation.id })).toEqual({
      installationId: installation.id,
      approvers: [],
    });
    const trail = await getDb().auditEvent.findMany({ where: { teamId: team.id, action: "governance.setApprovers" } });
    expect(trail).toHaveLength(0);
  });
});

describe("what each member sees", () => {
  it("shows the arguments to the caller and approvers only; a teammate reads who can approve", async () => {
    const { admin, member, second, team, held } = await heldCallWorld();
    const approvalId = await held();
    const forAdmin = await admin.caller.approvals.get({ teamId: team.id, approvalId });
    expect(forAdmin).toMatchObject({
      canDecide: true,
      arguments: { text: "drop table users", nested: { n: 1 } },
      caller: { id: member.userId },
      reason: "An admin marked this tool as needing approval.",
    });
    const forTeammate = await second.caller.approvals.get({ teamId: team.id, approvalId });
    expect(forTeammate).toMatchObject({
      canDecide: false,
      arguments: null,
      argumentsHash: null,
      whoMayApprove: "Only the team's admins can approve calls to this server.",
    });
    // A teammate's list holds neither the member's calls nor those they may not decide.
    expect((await second.caller.approvals.list({ teamId: team.id })).items).toEqual([]);
    expect((await member.caller.approvals.list({ teamId: team.id })).items.map((a) => a.id)).toEqual([approvalId]);
  });

  it("answers another team's request as missing", async () => {
    const { team, held } = await heldCallWorld();
    const approvalId = await held();
    const { stranger, team: theirs } = await strangerWithTeam();
    await expect(stranger.caller.approvals.get({ teamId: theirs.id, approvalId })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(stranger.caller.approvals.get({ teamId: team.id, approvalId })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("filters waiting from decided and expired ones and pages through them", async () => {
    const { admin, team, held } = await heldCallWorld();
    const old = await held({ expiresAt: new Date(Date.now() - 1000) });
    const first = await held();
    const second = await held();
    await admin.caller.approvals.decide({ teamId: team.id, approvalId: first, decision: "denied" });

    const waiting = await admin.caller.approvals.list({ teamId: team.id, state: "waiting" });
    expect(waiting.items.map((a) => a.id)).toEqual([second]);
    const decided = await admin.caller.approvals.list({ teamId: team.id, state: "decided" });
    expect(decided.items.map((a) => [a.id, a.status])).toEqual([
      [first, "denied"],
      [old, "expired"],
    ]);
    expect((await admin.caller.approvals.list({ teamId: team.id, state: "expired" })).items.map((a) => a.id)).toEqual([
      old,
    ]);

    const page1 = await admin.caller.approvals.list({ teamId: team.id, limit: 2 });
    const page2 = await admin.caller.approvals.list({ teamId: team.id, limit: 2, cursor: page1.nextCursor });
    expect([...page1.items, ...page2.items].map((a) => a.id)).toEqual([second, first, old]);
    expect(page2.nextCursor).toBeNull();
  });
});

describe("marking a tool as needing approval", () => {
  it("sets and clears it on a discovered tool, refuses an unknown one, and records each change", async () => {
    const { admin, team, installation } = await heldCallWorld();
    const on = await admin.caller.governance.setToolApproval({
      teamId: team.id,
      installationId: installation.id,
      toolName: "echo",
      requiresApproval: true,
    });
    expect(on.tools.find((t) => t.name === "echo")).toMatchObject({ requiresApproval: true, enabled: true });
    const off = await admin.caller.governance.setToolApproval({
      teamId: team.id,
      installationId: installation.id,
      toolName: "echo",
      requiresApproval: false,
    });
    expect(off.tools.find((t) => t.name === "echo")).toMatchObject({ requiresApproval: false });

    await expect(
      admin.caller.governance.setToolApproval({
        teamId: team.id,
        installationId: installation.id,
        toolName: "nope",
        requiresApproval: true,
      }),
    ).rejects.toMatchObject({ code: "NOT_FOUND", message: "This server has no tool “nope”." });

    const trail = await admin.caller.governance.audit({ teamId: team.id, installationId: installation.id });
    expect(trail.map((a) => a.action)).toEqual(["approval_not_required", "approval_required"]);
    const events = await getDb().auditEvent.findMany({
      where: { teamId: team.id, action: "governance.setToolApproval" },
      orderBy: { seq: "asc" },
    });
    expect(events.map((e) => (e.after as { toolsRequiringApproval: string[] }).toolsRequiringApproval)).toEqual([
      ["echo"],
      [],
    ]);
  });
});
