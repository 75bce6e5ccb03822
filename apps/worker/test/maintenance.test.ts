import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JOB_NAMES, OAUTH_FLOW_CLEANUP } from "@switchboard/core/contracts";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { uid } from "@switchboard/db/testing";
import { makeInstance } from "./support/fixtures";
import { createHarness, type Harness } from "./support/harness";

const db = getDb();
let h: Harness;
const EVERY_MS = 300;

beforeAll(async () => {
  h = await createHarness("maintenance", { tunables: { oauthFlowCleanupEveryMs: EVERY_MS } });
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
