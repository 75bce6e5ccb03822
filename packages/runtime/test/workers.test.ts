import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { redisKeys } from "@switchboard/core/contracts";
import pino from "pino";
import { createRedis, isCluster } from "../src/redis-client";
import { WorkerRegistry } from "../src/workers";

/** Real Redis, a prefix of this file's own. Heartbeats are scored by Redis's clock: tests wait on it, not a fake. */
const redis = createRedis(process.env.REDIS_URL ?? "redis://127.0.0.1:6379", {
  name: "workers-test",
  logger: pino({ level: "silent" }),
});
const prefix = `sbtest-workers-${randomBytes(4).toString("hex")}`;
const registry = new WorkerRegistry(redis, prefix);
const lease = (instanceId: string, workerId: string) =>
  redis.set(redisKeys.stdioLease(prefix, instanceId), JSON.stringify({ workerId, url: "http://127.0.0.1:1" }));

afterAll(async () => {
  // On a cluster KEYS answers for one node, and the keys live in several slots: each master, one key at a time.
  const nodes = isCluster(redis) ? redis.nodes("master") : [redis];
  const keys = (await Promise.all(nodes.map((node) => node.keys(redisKeys.everything(prefix))))).flat();
  await Promise.all(keys.map((key) => redis.del(key)));
  await redis.quit();
});

describe("worker heartbeats", () => {
  it("count a worker while its heartbeat lasts and show it gone after, with the instances it leased", async () => {
    await registry.beat("w-live", 60_000);
    await registry.beat("w-dead", 50);
    await redis.sadd(redisKeys.workerLeases(prefix, "w-dead"), "i-1", "i-2");
    await lease("i-1", "w-dead");
    await lease("i-2", "w-live"); // taken over meanwhile

    await expect.poll(async () => (await registry.members()).gone, { timeout: 5_000 }).toEqual(["w-dead"]);
    expect((await registry.members()).live).toEqual(["w-live"]);
    expect(await registry.bridgeView("i-1")).toMatchObject({ liveWorkers: 1, lease: { workerId: "w-dead" } });

    // Two sweepers at once: one gets the instances, the other nothing.
    const claims = await Promise.all([registry.claim("w-dead"), registry.claim("w-dead")]);
    expect(claims.filter((c) => c !== null).map((c) => [...c!].sort())).toEqual([["i-1", "i-2"]]);
    expect((await registry.members()).gone).toEqual([]);
    // Only the lease the gone worker still holds is dropped.
    expect(await registry.dropLease("i-1", "w-dead")).toBe(true);
    expect(await registry.dropLease("i-2", "w-dead")).toBe(false);
    expect(await registry.bridgeView("i-2")).toMatchObject({ lease: { workerId: "w-live" } });
  });

  it("gives what a sweep could not finish to the next one, without touching a worker that beat again", async () => {
    await registry.beat("w-cut", 50);
    await redis.sadd(redisKeys.workerLeases(prefix, "w-cut"), "i-3");
    await expect.poll(async () => (await registry.members()).gone, { timeout: 5_000 }).toContain("w-cut");
    expect(await registry.claim("w-cut")).toEqual(["i-3"]);
    await registry.unclaim("w-cut", ["i-3"]);
    expect((await registry.members()).gone).toContain("w-cut");
    expect(await registry.claim("w-cut")).toEqual(["i-3"]);

    await registry.beat("w-back", 60_000);
    await registry.unclaim("w-back", ["i-4"]);
    expect((await registry.members()).live).toContain("w-back");
  });

  it("tells a worker that its heartbeat had run out and it was taken for gone", async () => {
    const revived: string[] = [];
    const stop = await registry.keepAlive("w-paused", 100, {
      onError: (error) => {
        throw error;
      },
      onRevived: () => revived.push("w-paused"),
    });
    try {
      await expect.poll(async () => (await registry.members()).live).toContain("w-paused");
      expect(revived).toEqual([]);
      // What a sweep does to a worker whose heartbeat ran out (here while it still beats: a pause).
      await redis.zrem(redisKeys.workersAlive(prefix), "w-paused");
      await expect.poll(() => revived, { timeout: 5_000 }).toEqual(["w-paused"]);
    } finally {
      stop();
    }
    await registry.leave("w-paused");
    expect((await registry.members()).live).not.toContain("w-paused");
  });

  it("answers the route with no live worker when none beats", async () => {
    const empty = new WorkerRegistry(redis, `${prefix}-none`);
    expect(await empty.bridgeView("i-1")).toEqual({ liveWorkers: 0, lease: null });
  });
});
