import { afterAll, describe, expect, it } from "vitest";
import { summarizeActivity } from "@switchboard/core/activity";
import { disconnectDb, getDb } from "../src/client";
import { listActivity } from "../src/queries/activity";
import { pruneActivity, rollUpActivity } from "../src/queries/activity-rollup";
import { type CallLogRow, insertCallLogs } from "../src/queries/call-log";
import { addMember, makeInstallation, makeTeam, makeUser } from "../src/testing/factories";

afterAll(() => disconnectDb());

const db = getDb();

async function setup() {
  const user = await makeUser(db);
  const other = await makeUser(db);
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
    arguments: null,
    resultSummary: null,
    resultBytes: 100,
    resultTokens: 25,
    durationMs: 7,
    attempts: 1,
    outcome: "success",
    errorMessage: null,
    ...over,
  });
  return { team, user, other, installation, instance, row };
}

/** Runs the roll-up until a run was not skipped (another test file's run may hold the lock for a moment). */
async function rollUp() {
  for (;;) {
    const result = await rollUpActivity(db);
    if (!result.skipped) return result;
  }
}

const MINUTE = "2026-03-04T05:06:00.000Z";
const at = (minute: string, second: number) => new Date(Date.parse(minute) + second * 1000).toISOString();

describe("activity roll-up", () => {
  it("counts calls, errors, bytes and tokens per minute and day, with p50/p95 from the latencies", async () => {
    const { team, user, row } = await setup();
    // 20 calls in one minute: latencies 1..20 x 10 ms; two of them failed.
    await insertCallLogs(
      db,
      Array.from({ length: 20 }, (_, i) =>
        row({ durationMs: (i + 1) * 10, startedAt: at(MINUTE, i), outcome: i < 2 ? "error" : "success" }),
      ),
    );
    await insertCallLogs(db, [row({ target: "add", durationMs: 3000, startedAt: at(MINUTE, 70) })]);
    await rollUp();

    const minutes = await listActivity(db, {
      teamId: team.id,
      since: new Date("2026-03-04T00:00:00Z"),
      source: "minute",
    });
    const echo = minutes.filter((m) => m.target === "echo");
    expect(echo).toHaveLength(1);
    expect(echo[0]).toMatchObject({ calls: 20, errors: 2, resultBytes: 2000, resultTokens: 500, userName: user.name });
    expect(echo[0]!.bucket.toISOString()).toBe(MINUTE);
    // 10..200 ms: the 10th call is 100 ms (slot <= 100), the 19th 190 ms (slot <= 250).
    expect(summarizeActivity(echo)).toMatchObject({ p50Ms: 100, p95Ms: 250, errorRate: 0.1 });
    const add = minutes.find((m) => m.target === "add")!;
    expect(add.bucket.toISOString()).toBe("2026-03-04T05:07:00.000Z");

    const days = await listActivity(db, { teamId: team.id, since: new Date("2026-03-04T00:00:00Z"), source: "day" });
    expect(days.map((d) => d.bucket.toISOString())).toEqual(["2026-03-04T00:00:00.000Z", "2026-03-04T00:00:00.000Z"]);
    // 21 calls: the 11th is 110 ms (slot <= 250), the 20th 200 ms.
    expect(summarizeActivity(days)).toMatchObject({ calls: 21, errors: 2, resultBytes: 2100, p50Ms: 250, p95Ms: 250 });
  });

  it("is idempotent: a second run, and rows read again, give the same roll-ups; later rows add to their minute", async () => {
    const { team, row } = await setup();
    const minute = "2026-04-05T10:20:00.000Z";
    await insertCallLogs(db, [row({ startedAt: at(minute, 1) }), row({ startedAt: at(minute, 2) })]);
    await rollUp();
    const read = () => listActivity(db, { teamId: team.id, since: new Date(minute), source: "minute" });
    const readDays = () => listActivity(db, { teamId: team.id, since: new Date(minute.slice(0, 10)), source: "day" });
    expect((await read()).map((r) => r.calls)).toEqual([2]);

    await rollUp();
    await rollUp();
    expect((await read()).map((r) => r.calls)).toEqual([2]);
    expect((await readDays()).map((r) => r.calls)).toEqual([2]);

    // A long call written after the runs above, stamped with its start in the same minute: counted there.
    await insertCallLogs(db, [row({ startedAt: at(minute, 3), durationMs: 50_000, outcome: "tool_error" })]);
    await rollUp();
    expect((await read()).map((r) => [r.calls, r.errors])).toEqual([[3, 1]]);
    expect((await readDays()).map((r) => [r.calls, r.errors])).toEqual([[3, 1]]);
  });

  it("gives the same totals when two workers run it at once (one waits its turn or skips)", async () => {
    const { team, row } = await setup();
    const minute = "2026-05-06T07:08:00.000Z";
    await insertCallLogs(
      db,
      Array.from({ length: 30 }, (_, i) => row({ startedAt: at(minute, i) })),
    );
    const results = await Promise.all([rollUpActivity(db), rollUpActivity(db), rollUpActivity(db)]);
    expect(results.some((r) => !r.skipped)).toBe(true);
    await rollUp();
    const rows = await listActivity(db, { teamId: team.id, since: new Date(minute), source: "minute" });
    expect(rows.map((r) => r.calls)).toEqual([30]);
  });

  it("shows a member only their own rows, and prunes rows older than asked", async () => {
    const { team, other, installation, row } = await setup();
    await addMember(db, team, other);
    const instance = await db.instance.create({ data: { installationId: installation.id, userId: other.id } });
    const minute = "2026-06-07T08:09:00.000Z";
    await insertCallLogs(db, [
      row({ startedAt: at(minute, 1) }),
      row({ startedAt: at(minute, 2), userId: other.id, instanceId: instance.id }),
    ]);
    await rollUp();
    const since = new Date(minute);
    expect(await listActivity(db, { teamId: team.id, since, source: "minute" })).toHaveLength(2);
    const own = await listActivity(db, { teamId: team.id, userId: other.id, since, source: "minute" });
    expect(own.map((r) => r.userId)).toEqual([other.id]);

    const pruned = await pruneActivity(db, {
      teamId: team.id,
      minutesBefore: new Date("2026-06-08T00:00:00Z"),
      daysBefore: new Date("2026-06-07T00:00:00Z"),
      batch: 1,
    });
    expect(pruned).toEqual({ minutes: 2, days: 0 });
    expect(await listActivity(db, { teamId: team.id, since, source: "minute" })).toHaveLength(0);
    expect(
      await listActivity(db, { teamId: team.id, since: new Date("2026-06-07T00:00:00Z"), source: "day" }),
    ).toHaveLength(2);
  });
});
