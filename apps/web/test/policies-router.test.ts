import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_TEAM_POLICIES } from "@switchboard/core/team-policies";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { closeJobs } from "@switchboard/runtime/jobs";
import { teamWithMember } from "./support/console";

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

const PERMIT_ALL = `@id("all")\npermit(principal, action, resource);\n`;

describe("a team's policies in the console", () => {
  it("shows the defaults until the team saves its own, then each version in the history and the audit trail", async () => {
    const { admin, team } = await teamWithMember();
    expect(await admin.caller.policies.current({ teamId: team.id })).toMatchObject({
      version: null,
      text: null,
      defaults: DEFAULT_TEAM_POLICIES,
    });

    expect(await admin.caller.policies.save({ teamId: team.id, text: PERMIT_ALL, expectedVersion: null })).toEqual({
      version: 1,
    });
    await admin.caller.policies.save({ teamId: team.id, text: null, expectedVersion: 1 });
    const current = await admin.caller.policies.current({ teamId: team.id });
    expect(current).toMatchObject({ version: 2, text: null });
    const history = await admin.caller.policies.history({ teamId: team.id });
    expect(history.map((v) => [v.version, v.text])).toEqual([
      [2, null],
      [1, PERMIT_ALL],
    ]);

    const audit = await getDb().auditEvent.findMany({
      where: { teamId: team.id, action: "policies.save" },
      orderBy: { seq: "asc" },
    });
    expect(audit.map((a) => [a.before, a.after])).toEqual([
      [null, expect.objectContaining({ version: 1, text: PERMIT_ALL })],
      [expect.objectContaining({ version: 1 }), expect.objectContaining({ version: 2, text: null })],
    ]);
  });

  it("refuses a save over a version someone else saved, and a text with a problem, naming its line", async () => {
    const { admin, team } = await teamWithMember();
    await admin.caller.policies.save({ teamId: team.id, text: PERMIT_ALL, expectedVersion: null });
    await expect(
      admin.caller.policies.save({ teamId: team.id, text: PERMIT_ALL, expectedVersion: null }),
    ).rejects.toMatchObject({ code: "CONFLICT" });

    const broken = `${PERMIT_ALL}forbid(principal, action, resource) when { resource.nope };\n`;
    expect((await admin.caller.policies.check({ teamId: team.id, text: broken })).problems[0]).toMatchObject({
      line: 3,
    });
    await expect(
      admin.caller.policies.save({ teamId: team.id, text: broken, expectedVersion: 1 }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", message: expect.stringMatching(/^Line 3: /) });
    expect((await admin.caller.policies.current({ teamId: team.id })).version).toBe(1);
  });

  it("refuses members: the policies are for admins", async () => {
    const { member, team } = await teamWithMember();
    await expect(member.caller.policies.current({ teamId: team.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });
});
