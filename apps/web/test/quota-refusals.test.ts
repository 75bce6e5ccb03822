/** Admins see who hits limits: the request log's blocked rows that are quota refusals, newest first, in pages. */
import { afterAll, describe, expect, it } from "vitest";
import { quotaRefusalMessage } from "@switchboard/core/governance";
import { disconnectDb } from "@switchboard/db/client";
import { closeJobs } from "@switchboard/runtime/jobs";
import { teamWithInstances } from "./support/console";

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
});

describe("the quota refusals an admin reads", () => {
  it("lists only calls refused by a quota, who and when, newest first, a page at a time", async () => {
    const { admin, member, team, installation, db } = await teamWithInstances();
    const resetAt = new Date(Date.now() + 60_000).toISOString();
    const refusal = (n: number) =>
      quotaRefusalMessage(
        { subject: "member", window: "minute", counts: "calls", limit: n, resetAt },
        "echo",
        Date.now(),
      );
    const row = (minutesAgo: number, errorMessage: string) => ({
      teamId: team.id,
      installationId: installation.id,
      userId: member.userId,
      method: "tools/call",
      target: "echo",
      durationMs: 0,
      outcome: "blocked" as const,
      errorMessage,
      createdAt: new Date(Date.now() - minutesAgo * 60_000),
    });
    await db.toolCallLog.createMany({
      data: [
        row(3, refusal(1)),
        row(2, "This tool is turned off for this team."),
        row(1, refusal(2)),
        { ...row(0, "ok"), outcome: "success" as const, errorMessage: null },
      ],
    });

    const first = await admin.caller.governance.quotaRefusals({ teamId: team.id, limit: 1 });
    expect(first.items).toEqual([
      expect.objectContaining({ installationName: installation.name, tool: "echo", message: refusal(2) }),
    ]);
    expect(first.items[0]!.who).toContain(member.email);
    const second = await admin.caller.governance.quotaRefusals({
      teamId: team.id,
      installationId: installation.id,
      limit: 1,
      cursor: first.nextCursor,
    });
    expect(second.items.map((r) => r.message)).toEqual([refusal(1)]);
    expect(second.nextCursor).toBeNull();
  });
});
