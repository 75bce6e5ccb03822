import { afterAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { closeJobs } from "@switchboard/runtime/jobs";
import { strangerWithTeam, teamWithInstances } from "./support/console";

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

const limit = {
  installationId: null,
  toolName: null,
  subject: "member",
  window: "hour",
  max: 100,
  writeMax: null,
} as const;

describe("the quotas an admin sets", () => {
  it("replaces the team's limits and keeps a limit sent back with its id", async () => {
    const { admin, team, installation } = await teamWithInstances();
    expect(await admin.caller.governance.quotas({ teamId: team.id })).toEqual([]);

    const [kept] = await admin.caller.governance.setQuotas({ teamId: team.id, quotas: [limit] });
    const saved = await admin.caller.governance.setQuotas({
      teamId: team.id,
      quotas: [
        { ...limit, id: kept!.id, max: 50 },
        { ...limit, installationId: installation.id, toolName: "echo", subject: "tool", window: "day", writeMax: 3 },
      ],
    });
    expect(saved).toEqual([
      { ...limit, id: kept!.id, max: 50 },
      expect.objectContaining({ installationId: installation.id, toolName: "echo", subject: "tool", writeMax: 3 }),
    ]);
    expect(await admin.caller.governance.setQuotas({ teamId: team.id, quotas: [] })).toEqual([]);
  });

  it("refuses a write limit above the limit on all calls, and a tool without its server, in one sentence", async () => {
    const { admin, team } = await teamWithInstances();
    await expect(
      admin.caller.governance.setQuotas({ teamId: team.id, quotas: [{ ...limit, max: 5, writeMax: 6 }] }),
    ).rejects.toMatchObject({
      code: "BAD_REQUEST",
      message: "The limit on tools that are not read-only cannot be above the limit on all calls.",
    });
    await expect(
      admin.caller.governance.setQuotas({ teamId: team.id, quotas: [{ ...limit, toolName: "echo" }] }),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", message: "A limit on one tool names its server." });
    expect(await admin.caller.governance.quotas({ teamId: team.id })).toEqual([]);
  });

  it("records each change in the audit trail with the limits before and after", async () => {
    const { admin, team } = await teamWithInstances();
    const [kept] = await admin.caller.governance.setQuotas({ teamId: team.id, quotas: [limit] });
    await admin.caller.governance.setQuotas({ teamId: team.id, quotas: [{ ...limit, id: kept!.id, max: 2 }] });

    const trail = await getDb().auditEvent.findMany({
      where: { teamId: team.id, action: "governance.setQuotas" },
      orderBy: { seq: "asc" },
    });
    expect(trail).toHaveLength(2);
    expect(trail[0]).toMatchObject({ before: [], after: [expect.objectContaining({ max: 100 })] });
    expect(trail[1]).toMatchObject({
      before: [expect.objectContaining({ id: kept!.id, max: 100 })],
      after: [expect.objectContaining({ id: kept!.id, max: 2 })],
    });
  });

  it("answers another team's installation as not found and stores nothing", async () => {
    const { installation } = await teamWithInstances();
    const { stranger, team } = await strangerWithTeam();
    await expect(
      stranger.caller.governance.setQuotas({
        teamId: team.id,
        quotas: [{ ...limit, installationId: installation.id }],
      }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await stranger.caller.governance.quotas({ teamId: team.id })).toEqual([]);
  });
});
