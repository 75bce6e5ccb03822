import { afterAll, describe, expect, it } from "vitest";
import { disconnectDb } from "@switchboard/db/client";
import { insertCallLogs, type CallLogRow } from "@switchboard/db/queries/call-log";
import { GET } from "~/app/api/requests/export/route";
import { strangerWithTeam, teamWithInstances } from "./support/console";

afterAll(async () => {
  await disconnectDb();
});

/** The export as `headers`' browser downloads it: status and CSV lines. */
async function download(headers: Headers, query: Record<string, string>) {
  const res = await GET(new Request(`http://localhost/api/requests/export?${new URLSearchParams(query)}`, { headers }));
  return { status: res.status, lines: (await res.text()).trimEnd().split("\r\n") };
}

describe("the request log's CSV export", () => {
  it("holds every call the filters match that the caller may read: an admin everyone's, a member their own", async () => {
    const { admin, member, team, installation, adminsInstance, membersInstance, db } = await teamWithInstances();
    const row = (over: Partial<CallLogRow>): CallLogRow => ({
      teamId: team.id,
      installationId: installation.id,
      instanceId: membersInstance.id,
      userId: member.userId,
      tokenId: null,
      method: "tools/call",
      target: "echo",
      requested: "remote-echo",
      arguments: {},
      resultSummary: null,
      resultBytes: 5,
      durationMs: 4,
      attempts: 1,
      outcome: "success",
      errorMessage: null,
      ...over,
    });
    await insertCallLogs(db, [
      row({}),
      row({
        target: "purge",
        requested: "remote-purge",
        outcome: "blocked",
        errorMessage: "An admin turned purge off.",
      }),
      row({ startedAt: new Date(Date.now() - 3 * 24 * 60 * 60_000).toISOString() }),
      row({ userId: admin.userId, instanceId: adminsInstance.id, requested: "=cmd()" }),
    ]);

    const all = await download(admin.headers, { teamId: team.id });
    expect(all.status).toBe(200);
    expect(all.lines[0]).toBe(
      "time,server,member,email,client,method,called as,upstream name,outcome,duration ms,attempts,result bytes,reason",
    );
    expect(all.lines).toHaveLength(5);
    // A name a spreadsheet would run as a formula is written as text.
    expect(all.lines.some((l) => l.includes(",'=cmd(),echo,"))).toBe(true);

    const blocked = await download(admin.headers, { teamId: team.id, outcome: "blocked" });
    expect(blocked.lines.slice(1)).toEqual([
      expect.stringContaining(",tools/call,remote-purge,purge,blocked,4,1,5,An admin turned purge off."),
    ]);
    expect((await download(admin.headers, { teamId: team.id, range: "24h" })).lines).toHaveLength(4);

    const mine = await download(member.headers, { teamId: team.id, userId: admin.userId });
    expect(mine.lines).toHaveLength(4);
    expect(mine.lines.some((l) => l.includes(admin.email))).toBe(false);
  });

  it("answers 401 without a session and 404 for a team the caller is not in", async () => {
    const { team } = await teamWithInstances();
    const { stranger } = await strangerWithTeam();
    expect((await download(new Headers(), { teamId: team.id })).status).toBe(401);
    expect((await download(stranger.headers, { teamId: team.id })).status).toBe(404);
  });
});
