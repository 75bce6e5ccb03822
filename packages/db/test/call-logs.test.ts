import { afterAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "../src/client";
import { type CallLogRow, findCallLog, insertCallLogs, listCallLogs } from "../src/queries/call-log";
import { makeInstallation, makeTeam, makeUser } from "../src/testing/factories";

afterAll(() => disconnectDb());

async function setup() {
  const db = getDb();
  const user = await makeUser(db);
  const team = await makeTeam(db, user);
  const { installation, instances } = await makeInstallation(db, team, [user]);
  const instance = instances[0]!;
  const row = (over: Partial<CallLogRow> = {}): CallLogRow => ({
    teamId: team.id,
    installationId: installation.id,
    instanceId: instance.id,
    userId: user.id,
    tokenId: null,
    method: "tools/call",
    target: "echo",
    arguments: { text: "hi", nested: { n: 1, list: [true, null, "x"] } },
    resultSummary: null,
    resultBytes: 42,
    durationMs: 7,
    attempts: 1,
    outcome: "success",
    errorMessage: null,
    ...over,
  });
  return { db, team, installation, row };
}

describe("insertCallLogs", () => {
  it("writes a batch in one statement with every field as given, stamped with the call's start", async () => {
    const { db, team, installation, row } = await setup();
    const startedAt = "2026-03-04T05:06:07.089Z";
    await insertCallLogs(db, [
      row({ startedAt }),
      row({
        target: "fail",
        arguments: null,
        outcome: "error",
        errorMessage: "Demo failed: ECONNREFUSED",
        resultSummary: "Demo failed",
        attempts: 3,
        resultBytes: 0,
      }),
      row({ target: 'quote\'s "odd" name — ünïcode', outcome: "blocked" }),
    ]);
    const { items } = await listCallLogs(db, { teamId: team.id, installationId: installation.id, limit: 10 });
    expect(items.map((i) => i.target).sort()).toEqual(["echo", "fail", 'quote\'s "odd" name — ünïcode']);

    const echo = items.find((i) => i.target === "echo")!;
    expect(echo.createdAt.toISOString()).toBe(startedAt);
    const full = await findCallLog(db, { teamId: team.id, callId: echo.id });
    expect(full).toMatchObject({
      arguments: { text: "hi", nested: { n: 1, list: [true, null, "x"] } },
      resultBytes: 42,
      outcome: "success",
      durationMs: 7,
    });

    const failed = await findCallLog(db, { teamId: team.id, callId: items.find((i) => i.target === "fail")!.id });
    expect(failed).toMatchObject({
      arguments: null,
      outcome: "error",
      errorMessage: "Demo failed: ECONNREFUSED",
      resultSummary: "Demo failed",
      attempts: 3,
    });
    // Without a start time the row gets the time of the write.
    expect(Math.abs(items.find((i) => i.target === "fail")!.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
  });

  it("does nothing for an empty batch and rejects a row that breaks a constraint, writing none of its batch", async () => {
    const { db, team, installation, row } = await setup();
    await insertCallLogs(db, []);
    await expect(insertCallLogs(db, [row(), row({ installationId: "no-such-installation" })])).rejects.toThrow();
    const { items } = await listCallLogs(db, { teamId: team.id, installationId: installation.id, limit: 10 });
    expect(items).toHaveLength(0);
  });
});
