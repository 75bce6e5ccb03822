import { randomBytes } from "node:crypto";
import { WORKER_NOT_ANSWERING_MESSAGE } from "@switchboard/core/status";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { reloadEnv } from "@switchboard/runtime/env";
import { subscriberConnection } from "@switchboard/runtime/redis";
import { freePort } from "@switchboard/testing/net";
import { killWorkerProcesses, startWorkerProcess } from "@switchboard/testing/worker-process";
import { afterAll, beforeAll, expect, it } from "vitest";
import { connectClient, startRoute, teardownRoute } from "./support/mcp";
import { installEverythingStdio } from "./support/stdio-everything";

/**
 * Between a worker's death (SIGKILL) and the end of its heartbeat (3 x WORKER_HEARTBEAT_MS) the gateway still
 * counts it and sends calls to its bridge, where nothing listens: the route answers with one sentence, not the
 * socket's "connect ECONNREFUSED 127.0.0.1:<port>". A long heartbeat (10 s, so 30 s before the worker counts as
 * gone) keeps the call inside that window; the test does not wait for it to run out. Real worker, route,
 * PostgreSQL and Redis.
 */
const HEARTBEAT = "10000";

beforeAll(async () => {
  const bridgePort = await freePort();
  process.env.BRIDGE_SECRET = randomBytes(24).toString("hex");
  process.env.BRIDGE_URL = `http://127.0.0.1:${bridgePort}`;
  process.env.WORKER_HEARTBEAT_MS = HEARTBEAT;
  await startRoute(); // reads the environment again
}, 60_000);

afterAll(async () => {
  await killWorkerProcesses();
  await teardownRoute();
  subscriberConnection().disconnect();
  await disconnectDb();
  delete process.env.WORKER_HEARTBEAT_MS;
  reloadEnv();
});

it("answers a call to a stdio server whose worker was just killed with the sentence, not the socket error", async () => {
  const { instanceId, token } = await installEverythingStdio("worker-bridge-down");
  const worker = await startWorkerProcess({
    bridgeSecret: process.env.BRIDGE_SECRET!,
    bridgePort: Number(new URL(process.env.BRIDGE_URL!).port),
    env: { WORKER_HEARTBEAT_MS: HEARTBEAT, WORKER_LOCK_DURATION_MS: "2000" },
  });
  const status = async () => (await getDb().instance.findUniqueOrThrow({ where: { id: instanceId } })).status;
  await expect.poll(status, { timeout: 45_000, interval: 200 }).toBe("online");
  const { client } = await connectClient(token);
  const echo = (message: string) => client.callTool({ name: "everything-echo", arguments: { message } });
  expect(JSON.stringify((await echo("before")).content)).toContain("before");

  worker.child.kill("SIGKILL");
  await worker.exited;
  // Its heartbeat is still current: the route tries the dead worker's bridge, and says so in one sentence.
  const refused = await echo("right after");
  expect(refused).toMatchObject({
    isError: true,
    content: [{ type: "text", text: `Everything failed: ${WORKER_NOT_ANSWERING_MESSAGE}` }],
  });
  expect(JSON.stringify(refused)).not.toMatch(/ECONN|127\.0\.0\.1/);
  await client.close();
}, 120_000);
