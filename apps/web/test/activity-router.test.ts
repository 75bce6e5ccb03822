import { afterAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { rollUpActivity } from "@switchboard/db/queries/activity-rollup";
import { type CallLogRow, insertCallLogs } from "@switchboard/db/queries/call-log";
import { teamWithInstances } from "./support/console";

afterAll(() => disconnectDb());

/** Runs the roll-up until a run was not skipped (another file's run may hold its lock for a moment). */
async function rollUp() {
  while ((await rollUpActivity(getDb())).skipped);
}

describe("activity router", () => {
  it("shows admins the team's activity and usage, and a member only their own", async () => {
    const { admin, member, team, installation, adminsInstance, membersInstance, db } = await teamWithInstances();
    const now = Date.now();
    const call = (userId: string, instanceId: string, over: Partial<CallLogRow> = {}): CallLogRow => ({
      teamId: team.id,
      installationId: installation.id,
      instanceId,
      userId,
      tokenId: null,
      method: "tools/call",
      target: "echo",
      arguments: null,
      resultSummary: null,
      resultBytes: 50,
      resultTokens: 12,
      durationMs: 20,
      attempts: 1,
      outcome: "success",
      errorMessage: null,
      startedAt: new Date(now - 60_000).toISOString(),
      ...over,
    });
    await insertCallLogs(db, [
      call(admin.userId, adminsInstance.id),
      call(admin.userId, adminsInstance.id, { target: "add", outcome: "error", durationMs: 3000 }),
      call(member.userId, membersInstance.id),
      call(member.userId, membersInstance.id),
      call(member.userId, membersInstance.id, { outcome: "tool_error" }),
    ]);
    await rollUp();

    const teamView = await admin.caller.activity.dashboard({ teamId: team.id, range: "hour" });
    expect(teamView.scope).toBe("team");
    expect(teamView.total).toMatchObject({ calls: 5, errors: 2 });
    expect(teamView.members.map((m) => [m.userId, m.calls]).sort()).toEqual(
      [
        [admin.userId, 2],
        [member.userId, 3],
      ].sort(),
    );
    expect(teamView.series.reduce((sum, p) => sum + p.calls, 0)).toBe(5);
    expect(teamView.slowestTools[0]).toMatchObject({ target: "add", p95Ms: 5000 });
    expect(teamView.failing.map((f) => [f.userId, f.errors]).sort()).toEqual(
      [
        [admin.userId, 1],
        [member.userId, 1],
      ].sort(),
    );

    const own = await member.caller.activity.dashboard({ teamId: team.id, range: "day" });
    expect(own.scope).toBe("own");
    expect(own.total).toMatchObject({ calls: 3, errors: 1 });
    expect(own.members.map((m) => m.userId)).toEqual([member.userId]);
    expect(own.tools.map((t) => t.target)).toEqual(["echo"]);
    expect(own.failing.map((f) => f.userId)).toEqual([member.userId]);

    const usage = await admin.caller.activity.usage({ teamId: team.id, days: 7 });
    expect(
      usage.rows.map((r) => [r.userId, r.target, r.calls, r.errors, r.resultBytes, r.resultTokens]).sort(),
    ).toEqual(
      [
        [admin.userId, "add", 1, 1, 50, 12],
        [admin.userId, "echo", 1, 0, 50, 12],
        [member.userId, "echo", 3, 1, 150, 36],
      ].sort(),
    );
    const ownUsage = await member.caller.activity.usage({ teamId: team.id, days: 7 });
    expect(ownUsage.rows.map((r) => r.userId)).toEqual([member.userId]);
    expect(ownUsage.rows[0]).toMatchObject({ calls: 3, resultTokens: 36 });
  });
});
