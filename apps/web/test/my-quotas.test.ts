/**
 * A member's remaining quota on My servers: the console reads the very counts the gateway takes, made here by a
 * real RateLimiterRedis on the contract key (as apps/gateway tool-quota.ts does), in the test run's Redis.
 */
import { RateLimiterRedis } from "rate-limiter-flexible";
import { afterAll, describe, expect, it } from "vitest";
import { redisKeys } from "@switchboard/core/contracts";
import { disconnectDb } from "@switchboard/db/client";
import { env } from "@switchboard/runtime/env";
import { closeJobs } from "@switchboard/runtime/jobs";
import { redis } from "@switchboard/runtime/redis";
import { teamWithInstances } from "./support/console";

afterAll(async () => {
  await closeJobs();
  await disconnectDb();
  redis().disconnect();
});

/** Takes `n` calls from a counter the way the gateway does: its own limiter, the contract's whole key. */
async function gatewayTakes(quotaId: string, identity: string[], n: number) {
  const limiter = new RateLimiterRedis({ storeClient: redis(), keyPrefix: "", points: 2, duration: 60 });
  const key = redisKeys.toolQuota(env().REDIS_PREFIX, quotaId, "calls", identity);
  for (let i = 0; i < n; i++) await limiter.consume(key);
}

describe("a member's remaining quota", () => {
  it("shows the calls the gateway counted for them, the limit and when it resets, and nobody else's", async () => {
    const { admin, member, team, installation } = await teamWithInstances();
    const [perMember, perServer] = await admin.caller.governance.setQuotas({
      teamId: team.id,
      quotas: [
        {
          installationId: installation.id,
          toolName: null,
          subject: "member",
          window: "minute",
          max: 2,
          writeMax: null,
        },
        {
          installationId: installation.id,
          toolName: null,
          subject: "installation",
          window: "hour",
          max: 50,
          writeMax: 10,
        },
      ],
    });
    await gatewayTakes(perMember!.id, [team.id, member.userId], 2);
    await gatewayTakes(perServer!.id, [installation.id], 1);

    const before = Date.now();
    const mine = await member.caller.governance.myQuotas({ teamId: team.id });
    const calls = mine.filter((q) => q.counts === "calls");
    expect(calls).toEqual([
      expect.objectContaining({
        quotaId: perMember!.id,
        subject: "member",
        limit: 2,
        used: 2,
        installationName: installation.name,
      }),
      expect.objectContaining({ quotaId: perServer!.id, subject: "installation", limit: 50, used: 1 }),
    ]);
    const resetsIn = Date.parse(calls[0]!.resetAt!) - before;
    expect(resetsIn).toBeGreaterThan(0);
    expect(resetsIn).toBeLessThanOrEqual(60_000);
    // Writes: none counted yet, no window running.
    expect(mine.find((q) => q.quotaId === perMember!.id && q.counts === "writes")).toMatchObject({
      limit: 1,
      used: 0,
      resetAt: null,
    });

    // The admin's own count for the per-member limit is theirs, not the member's.
    const admins = await admin.caller.governance.myQuotas({ teamId: team.id });
    expect(admins.find((q) => q.quotaId === perMember!.id && q.counts === "calls")).toMatchObject({ used: 0 });
  });

  it("is empty for a team without limits", async () => {
    const { member, team } = await teamWithInstances();
    expect(await member.caller.governance.myQuotas({ teamId: team.id })).toEqual([]);
  });
});
