import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JOB_NAMES, OAUTH_FLOW_CLEANUP } from "@switchboard/core/contracts";
import { ACTIVITY_ROLLUP } from "@switchboard/core/activity";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { uid } from "@switchboard/db/testing";
import { appendAudit, verifyAudit } from "@switchboard/db/queries/audit";
import { insertCallLogs } from "@switchboard/db/queries/call-log";
import { makeInstance } from "./support/fixtures";
import { createHarness, type Harness } from "./support/harness";

const db = getDb();
let h: Harness;
const EVERY_MS = 300;

beforeAll(async () => {
  h = await createHarness("maintenance", {
    tunables: { oauthFlowCleanupEveryMs: EVERY_MS, activityRollupEveryMs: EVERY_MS },
  });
});
afterAll(async () => {
  await h?.close();
  await disconnectDb();
});

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);

describe("OAuth pending flow cleanup", () => {
  it("deletes flows expired or used over an hour ago on its schedule, and keeps the others", async () => {
    const { instance } = await makeInstance(db, { url: "http://127.0.0.1:9/mcp" });
    const flow = (name: string, data: { expiresAt: Date; usedAt?: Date }) =>
      db.oAuthPendingFlow.create({
        data: {
          state: uid(`${name}-`),
          instanceId: instance.id,
          userId: instance.userId,
          codeVerifierEnc: "x",
          redirectUri: "http://127.0.0.1/cb",
          ...data,
        },
      });
    const pending = await flow("pending", { expiresAt: new Date(Date.now() + 10 * 60_000) });
    const justExpired = await flow("just-expired", { expiresAt: minutesAgo(5) });
    const justUsed = await flow("just-used", { expiresAt: minutesAgo(-5), usedAt: minutesAgo(1) });
    await flow("long-expired", { expiresAt: minutesAgo(120) });
    await flow("long-used", { expiresAt: minutesAgo(110), usedAt: minutesAgo(115) });

    const remaining = async () =>
      (await db.oAuthPendingFlow.findMany({ where: { instanceId: instance.id }, select: { id: true } }))
        .map((f) => f.id)
        .sort();
    await expect
      .poll(remaining, { timeout: 10_000, interval: 100 })
      .toEqual([pending.id, justExpired.id, justUsed.id].sort());
  });

  it("keeps one schedule under its fixed id however many workers start, every 15 minutes by default", async () => {
    const scheduler = await h.queue.getJobScheduler(OAUTH_FLOW_CLEANUP.schedulerId);
    expect(scheduler).toMatchObject({ name: JOB_NAMES.oauthFlowCleanup, every: EVERY_MS });

    await h.start();
    await h.start({ tunables: { oauthFlowCleanupEveryMs: OAUTH_FLOW_CLEANUP.everyMs } });
    const keys = (await h.queue.getJobSchedulers(0, -1)).map((s) => s.key);
    expect(keys.filter((k) => k === OAUTH_FLOW_CLEANUP.schedulerId)).toHaveLength(1);
    expect(await h.queue.getJobScheduler(OAUTH_FLOW_CLEANUP.schedulerId)).toMatchObject({ every: 15 * 60_000 });
  });
});

describe("activity roll-up job", () => {
  it("rolls the request log up on its schedule: calls a gateway logs appear in the minute and day rows", async () => {
    const { instance } = await makeInstance(db, { url: "http://127.0.0.1:9/mcp" });
    const installation = await db.installation.findUniqueOrThrow({ where: { id: instance.installationId } });
    const startedAt = new Date().toISOString();
    await insertCallLogs(
      db,
      [5, 40, 900].map((durationMs, i) => ({
        teamId: installation.teamId,
        installationId: installation.id,
        instanceId: instance.id,
        userId: instance.userId,
        tokenId: null,
        method: "tools/call",
        target: "echo",
        arguments: null,
        resultSummary: null,
        resultBytes: 10,
        resultTokens: 4,
        durationMs,
        attempts: 1,
        outcome: i === 2 ? ("error" as const) : ("success" as const),
        errorMessage: null,
        startedAt,
      })),
    );
    const totals = async () => {
      const [minute, day] = await Promise.all([
        db.activityMinute.aggregate({ where: { teamId: installation.teamId }, _sum: { calls: true, errors: true } }),
        db.activityDay.aggregate({ where: { teamId: installation.teamId }, _sum: { calls: true, resultTokens: true } }),
      ]);
      return { minute: minute._sum, day: day._sum };
    };
    await expect
      .poll(totals, { timeout: 15_000, interval: 100 })
      .toEqual({ minute: { calls: 3, errors: 1 }, day: { calls: 3, resultTokens: 12n } });
  });

  it("keeps one roll-up schedule, every minute by default", async () => {
    await h.start({ tunables: { activityRollupEveryMs: ACTIVITY_ROLLUP.everyMs } });
    const keys = (await h.queue.getJobSchedulers(0, -1)).map((s) => s.key);
    expect(keys.filter((k) => k === ACTIVITY_ROLLUP.schedulerId)).toHaveLength(1);
    expect(await h.queue.getJobScheduler(ACTIVITY_ROLLUP.schedulerId)).toMatchObject({
      name: JOB_NAMES.activityRollup,
      every: 60_000,
    });
  });
});

describe("retention", () => {
  it("prunes each team's request log and audit trail past its settings in batches, and the chain still verifies", async () => {
    // The worker's clock runs three days ahead, so records written now are "three days old" to it.
    const ahead = await createHarness("retention", { clock: () => new Date(Date.now() + 3 * 86_400_000) });
    try {
      const { instance, installation } = await makeInstance(db, { url: "http://127.0.0.1:9/mcp" });
      const teamId = installation.teamId;
      const keepingTeam = await makeInstance(db, { url: "http://127.0.0.1:9/mcp" });
      const row = (tid: string, inst: typeof instance, instId: string) => ({
        teamId: tid,
        installationId: instId,
        instanceId: inst.id,
        userId: inst.userId,
        tokenId: null,
        method: "tools/call",
        target: "echo",
        arguments: {},
        resultSummary: null,
        resultBytes: 1,
        durationMs: 1,
        attempts: 1,
        outcome: "success" as const,
        errorMessage: null,
      });
      await insertCallLogs(db, [row(teamId, instance, installation.id), row(teamId, instance, installation.id)]);
      await insertCallLogs(db, [
        row(keepingTeam.installation.teamId, keepingTeam.instance, keepingTeam.installation.id),
      ]);
      for (let i = 0; i < 3; i++)
        await appendAudit(db, { teamId, actorLabel: "test", action: `retention.${i}`, targetLabel: `t${i}` });
      await appendAudit(db, { teamId: keepingTeam.installation.teamId, actorLabel: "test", action: "kept" });
      await db.team.update({ where: { id: teamId }, data: { requestLogRetentionDays: 2, auditRetentionDays: 2 } });
      // The other team keeps everything for the default 30 / 365 days.

      await ahead.queue.add(JOB_NAMES.retentionPrune, {});
      await expect.poll(() => db.toolCallLog.count({ where: { teamId } }), { timeout: 15_000, interval: 100 }).toBe(0);
      await expect.poll(() => db.auditEvent.count({ where: { teamId } }), { timeout: 15_000 }).toBe(1);
      // The newest record stays so the chain's next record links to it; the anchor holds the last pruned hash.
      const anchor = await db.auditAnchor.findUniqueOrThrow({ where: { chain: `team:${teamId}` } });
      expect(anchor).toMatchObject({ seq: 2, prunedCount: 2 });
      expect(await verifyAudit(db, teamId)).toMatchObject({ broken: null, checked: 1, pruned: 2 });
      expect(await db.toolCallLog.count({ where: { teamId: keepingTeam.installation.teamId } })).toBe(1);
      expect(await db.auditEvent.count({ where: { teamId: keepingTeam.installation.teamId } })).toBe(1);
    } finally {
      await ahead.close();
    }
  });
});
