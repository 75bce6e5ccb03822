import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  gatewayKill,
  postgresRestart,
  redisRestart,
  upstreamFlap,
  workerKillDuringJobs,
  workerKillDuringSandboxSetup,
  type Drill,
  type DrillContext,
  type DrillResult,
} from "@switchboard/testing/chaos/drills";
import { Load } from "@switchboard/testing/chaos/load";
import { ChaosStack } from "@switchboard/testing/chaos/stack";
import { describeProcesses } from "@switchboard/testing/processes";

/**
 * `npm run chaos`'s fault drills at CI scale, on the same code: a private PostgreSQL and Redis (restarted here,
 * never the shared ones), a worker process, two gateway processes behind a balancer, two SDK clients calling an HTTP
 * and a sandboxed stdio tool through the route. Each drill's core assertion: no call hangs, the catalogue loses
 * nothing, no process is left behind, and calls succeed again with no manual step.
 */
let stack: ChaosStack;
let load: Load;
let ctx: DrillContext;

beforeAll(async () => {
  stack = await ChaosStack.start({ gateway: "route" });
  load = new Load({
    url: stack.url,
    token: stack.token,
    targets: [
      { tool: "web-echo", arguments: { text: "drill" } },
      { tool: "local-echo", arguments: { message: "drill" } },
    ],
    clients: 2,
    deadlineMs: 15_000,
    pauseMs: 50,
  });
  await load.start();
  ctx = { stack, load, holdMs: 2_000, recoverTimeoutMs: 60_000 };
}, 120_000);

afterAll(async () => {
  await load?.stop();
  await stack?.stop();
});

/** What every drill must show: no call hung, nothing lost from the catalogue, no process left behind. */
async function runs(drill: Drill): Promise<DrillResult> {
  const result = await drill(ctx);
  expect(result.notes.join(" ")).not.toMatch(/not run/);
  expect(result.hung).toBe(0);
  expect(result.catalogueLost).toEqual([]);
  expect(describeProcesses(result.orphans)).toBe("");
  return result;
}

/** ...and calls succeed again with no manual step. */
async function survives(drill: Drill): Promise<DrillResult> {
  const result = await runs(drill);
  expect(result.recoverMs, `${result.name} did not recover: ${result.messages.join("; ")}`).not.toBeNull();
  return result;
}

describe("faults of every part, under load", () => {
  it("PostgreSQL restarting: no call hangs, nothing is lost", async () => {
    await survives(postgresRestart);
  }, 120_000);

  it("Redis restarting empty: no call hangs, the instances stay online", async () => {
    await survives(redisRestart);
  }, 120_000);

  it("a gateway process SIGKILLed with live sessions: its clients continue on the other one", async () => {
    const result = await survives(gatewayKill);
    expect(result.succeeded).toBeGreaterThan(0);
  }, 120_000);

  it("an upstream flapping: every call after it is back succeeds", async () => {
    await survives(upstreamFlap(2, 300));
  }, 120_000);

  // The worker's drills last. Once the new worker has the stdio instance online again, the failures of calls
  // that started before (the dead worker's window, the restart) are stale and must not take it down once more:
  // the instance is disconnected a bounded number of times, not once per failed call (25 in 20 s before).
  async function recoversOnce(drill: Drill): Promise<void> {
    const stdio = stack.instances.stdio!;
    const since = new Date();
    await survives(drill);
    const disconnects = await stack.db!.instanceEvent.findMany({
      where: { instanceId: stdio, type: "server_disconnected", createdAt: { gte: since } },
      orderBy: { createdAt: "asc" },
    });
    // What took it down each time, in the failure's message.
    const reasons = disconnects.map((e) => `${e.createdAt.toISOString().slice(11, 23)} ${JSON.stringify(e.payload)}`);
    expect(disconnects.length, reasons.join("\n")).toBeLessThanOrEqual(2);
    expect((await stack.db!.instance.findUniqueOrThrow({ where: { id: stdio } })).status).toBe("online");
  }

  it("the worker SIGKILLed while a sandbox is set up: nothing is left, hangs or is lost, and it recovers", async () => {
    await recoversOnce(workerKillDuringSandboxSetup);
  }, 120_000);

  it("the worker SIGKILLed during jobs: nothing hangs or is lost or left, and it recovers", async () => {
    await recoversOnce(workerKillDuringJobs);
  }, 120_000);
});
