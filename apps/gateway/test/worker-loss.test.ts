import { randomBytes } from "node:crypto";
import { redisKeys, stdioLeaseSchema } from "@switchboard/core/contracts";
import { NO_WORKER_MESSAGE, WORKER_LOST_MESSAGE } from "@switchboard/core/status";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { listInstanceEvents } from "@switchboard/db/queries/instance-events";
import { env, reloadEnv } from "@switchboard/runtime/env";
import { redis, subscriberConnection } from "@switchboard/runtime/redis";
import { freePort } from "@switchboard/testing/net";
import { killWorkerProcesses, startWorkerProcess, type WorkerProcess } from "@switchboard/testing/worker-process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorkerSweep } from "../src/mcp/worker-sweep";
import { connectClient, startRoute, teardownRoute } from "./support/mcp";
import { installEverythingStdio } from "./support/stdio-everything";

/**
 * A worker that dies without leaving (SIGKILL) cannot say so: the gateway reads the heartbeats, takes its stdio
 * instances out of online and answers their calls in one sentence; the next worker brings them back by itself.
 * Real processes: the worker (its stdio server sandboxed), the route, PostgreSQL and Redis. A short heartbeat
 * (1 s, so a worker is gone 3 s after its last beat) keeps the test short.
 */
const HEARTBEAT = "1000";
let bridgePort: number;
let bridgeSecret: string;
let stopSweep: () => void;
let token: string;
let instanceId: string;

const startWorker = (port = bridgePort) =>
  startWorkerProcess({
    bridgeSecret,
    bridgePort: port,
    env: { WORKER_HEARTBEAT_MS: HEARTBEAT, WORKER_LOCK_DURATION_MS: "2000" },
  });
const instance = () => getDb().instance.findUniqueOrThrow({ where: { id: instanceId } });
const statusOf = async () => (await instance()).status;
const echo = async (client: Awaited<ReturnType<typeof connectClient>>["client"], message: string) =>
  client.callTool({ name: "everything-echo", arguments: { message } });
const leaseHolder = async () => {
  const raw = await redis().get(redisKeys.stdioLease(env().REDIS_PREFIX, instanceId));
  return raw ? stdioLeaseSchema.parse(JSON.parse(raw)).workerId : null;
};

beforeAll(async () => {
  bridgePort = await freePort();
  bridgeSecret = randomBytes(24).toString("hex");
  process.env.BRIDGE_SECRET = bridgeSecret;
  process.env.BRIDGE_URL = `http://127.0.0.1:${bridgePort}`;
  process.env.WORKER_HEARTBEAT_MS = HEARTBEAT;
  await startRoute(); // reads the environment again
  stopSweep = startWorkerSweep();

  ({ instanceId, token } = await installEverythingStdio("worker-loss"));
}, 60_000);

afterAll(async () => {
  stopSweep?.();
  await killWorkerProcesses();
  await teardownRoute();
  subscriberConnection().disconnect();
  await disconnectDb();
  delete process.env.WORKER_HEARTBEAT_MS;
  reloadEnv();
});

describe("a worker killed while it runs a stdio server", () => {
  // The worker that starts after the first one died, and the one left after the second test.
  let survivor: WorkerProcess;
  let last: WorkerProcess;

  it("leaves online when it was the only worker, answers calls in one sentence, and comes back on the next worker", async () => {
    const first = await startWorker();
    await expect.poll(statusOf, { timeout: 45_000, interval: 200 }).toBe("online");
    const { client } = await connectClient(token);
    expect(JSON.stringify((await echo(client, "before")).content)).toContain("before");

    first.child.kill("SIGKILL");
    await first.exited;
    // Nobody calls: the gateway finds the heartbeat gone and writes the truth itself.
    await expect.poll(statusOf, { timeout: 10_000, interval: 100 }).toBe("offline");
    expect((await instance()).statusMessage).toBe(WORKER_LOST_MESSAGE);

    // Known without trying a socket: the tool's answer is the sentence, not "connect ECONNREFUSED".
    const refused = await echo(client, "while down");
    expect(refused).toMatchObject({
      isError: true,
      content: [{ type: "text", text: `Everything: ${NO_WORKER_MESSAGE}` }],
    });

    // A new worker reconciles and its reconnect loop starts the server again, nobody pressing anything.
    survivor = await startWorker();
    await expect.poll(statusOf, { timeout: 45_000, interval: 200 }).toBe("online");
    expect(JSON.stringify((await echo(client, "after")).content)).toContain("after");
    await client.close();
  }, 120_000);

  it("is started again on another live worker at once when the worker holding it dies", async () => {
    expect(await statusOf()).toBe("online");
    const other = await startWorker(await freePort()); // a bridge of its own
    const holder = await leaseHolder();
    expect(holder).not.toBeNull();
    const [dying, living] = survivor.logs().some((l) => l.workerId === holder) ? [survivor, other] : [other, survivor];
    const since = new Date();

    dying.child.kill("SIGKILL");
    await dying.exited;
    // Taken down with the sentence (by the live worker, from the gateway's report), then up again on that worker.
    await expect
      .poll(
        async () =>
          (await listInstanceEvents(getDb(), { instanceId, types: ["status_changed"] }))
            .filter((e) => e.createdAt >= since)
            .map((e) => e.payload as { to: string; message?: string }),
        { timeout: 45_000, interval: 200 },
      )
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({ to: "offline", message: WORKER_LOST_MESSAGE }),
          expect.objectContaining({ to: "online" }),
        ]),
      );
    await expect.poll(statusOf, { timeout: 45_000, interval: 200 }).toBe("online");
    await expect.poll(leaseHolder, { timeout: 10_000 }).not.toBe(holder);
    const { client } = await connectClient(token);
    expect(JSON.stringify((await echo(client, "moved")).content)).toContain("moved");
    await client.close();
    expect(living.alive()).toBe(true);
    last = living;
  }, 120_000);

  it("is taken back when the only worker pauses longer than its heartbeat, and restarted when it resumes", async () => {
    await expect.poll(statusOf, { timeout: 45_000, interval: 200 }).toBe("online");
    last.child.kill("SIGSTOP"); // a frozen VM, a stop-the-world pause: alive, but silent
    try {
      await expect.poll(statusOf, { timeout: 10_000, interval: 100 }).toBe("offline");
    } finally {
      last.child.kill("SIGCONT");
    }
    // Its next beat finds it no longer counted: it reconciles, and its reconnect loop starts the server again.
    await expect.poll(statusOf, { timeout: 45_000, interval: 200 }).toBe("online");
    expect(last.logs().some((l) => String(l.msg).includes("heartbeat had run out"))).toBe(true);
    const { client } = await connectClient(token);
    expect(JSON.stringify((await echo(client, "resumed")).content)).toContain("resumed");
    await client.close();
  }, 120_000);
});
