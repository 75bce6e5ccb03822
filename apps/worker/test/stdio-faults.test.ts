import { randomBytes } from "node:crypto";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bridgeInstancePath, INSTANCE_QUEUE, JOB_NAMES } from "@switchboard/core/contracts";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { getCipher } from "@switchboard/db/crypto";
import { listInstanceEvents } from "@switchboard/db/queries/instance-events";
import { queueConnection } from "@switchboard/runtime/redis-client";
import { freePort } from "@switchboard/testing/net";
import { waitUntil } from "@switchboard/testing/wait";
import { killWorkerProcesses, startWorkerProcess, type WorkerProcess } from "@switchboard/testing/worker-process";
import { makeInstallation, makeInstance } from "./support/fixtures";
import { dropPrefix, REDIS_URL, testPrefix } from "./support/harness";
import { serverProcesses } from "@switchboard/testing/processes";

/**
 * One stdio server must not take the worker down for everyone (issue 24). The real worker process (src/main.ts,
 * sandboxed servers, the bridge) runs a server that misbehaves one way per case: after each, the bad instance is
 * in error with a sentence naming the limit, its process is gone, and the worker still serves another
 * instance's call through its bridge.
 */
const db = getDb();
const FIXTURES = path.join(import.meta.dirname, "fixtures");
const HOSTILE = path.join(FIXTURES, "hostile-server.mjs");
const CRASHY = path.join(FIXTURES, "crashy-server.mjs");
const SECRET = randomBytes(24).toString("hex");
const prefix = testPrefix("stdio-faults");
let queue: Queue;
let redis: Redis;
let worker: WorkerProcess;
let bridgeUrl: string;
let good: string;
const clients: Client[] = [];

const row = (id: string) => db.instance.findUniqueOrThrow({ where: { id } });

async function discover(instanceId: string) {
  await queue.add(JOB_NAMES.discover, { instanceId, reason: "provisioned" });
}

async function connect(instanceId: string, url = bridgeUrl, capabilities: ClientCapabilities = {}) {
  const client = new Client({ name: "stdio-faults-test", version: "1" }, { capabilities });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(bridgeInstancePath(instanceId), url), {
      requestInit: { headers: { authorization: `Bearer ${SECRET}` } },
    }),
  );
  clients.push(client);
  return client;
}

function hostile(mode: string, when: "start" | "call") {
  const marker = `hostile-${randomBytes(4).toString("hex")}`;
  return {
    marker,
    stdio: { command: process.execPath, args: [HOSTILE, marker] },
    fields: [
      { key: "HOSTILE_MODE", tier: "team" as const, kind: "env" as const },
      { key: "HOSTILE_WHEN", tier: "team" as const, kind: "env" as const },
    ],
    teamValues: { HOSTILE_MODE: { value: mode }, HOSTILE_WHEN: { value: when } },
  };
}

/** The worker lives, and another instance's tool call through its bridge is answered. */
async function expectWorkerServes(w = worker, instanceId = good, url = bridgeUrl) {
  expect(w.alive()).toBe(true);
  const client = await connect(instanceId, url);
  const result = await client.callTool({ name: "calm", arguments: {} });
  expect(JSON.stringify(result.content)).toContain("calm");
}

/**
 * The instance went to error with the sentence (the reconnect loop may bring back a server that misbehaves only
 * when called: the history says it), the worker logged it, and the stopped process is gone.
 */
async function expectStoppedWith(w: WorkerProcess, instanceId: string, marker: string, message: string) {
  const errors = async () =>
    (await listInstanceEvents(db, { instanceId, types: ["status_changed"] }))
      .map((e) => e.payload as { to?: string; message?: string })
      .filter((p) => p.to === "error")
      .map((p) => p.message);
  await expect.poll(errors, { timeout: 30_000, interval: 100 }).toContain(message);
  // The call or discovery that met the limit records the error at once; the supervisor's "faulted" (and so the
  // log line) follows once the process group is gone, which under load may be later.
  const logged = () =>
    w.logs().some((l) => l.instanceId === instanceId && l.msg === `stdio server stopped: ${message}`);
  await expect.poll(logged, { timeout: 15_000, interval: 100 }).toBe(true);
  // A fresh process may be starting by now (the reconnect loop), never more than one.
  await expect.poll(() => serverProcesses(marker).length <= 1, { timeout: 10_000 }).toBe(true);
}

beforeAll(async () => {
  queue = new Queue(INSTANCE_QUEUE, { connection: queueConnection(REDIS_URL, "producer", "worker-test"), prefix });
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
  const port = await freePort();
  worker = await startWorkerProcess({ prefix, bridgeSecret: SECRET, bridgePort: port, readOnlyPaths: [FIXTURES] });
  bridgeUrl = `http://127.0.0.1:${port}`;
  const { instance } = await makeInstance(db, { stdio: { command: process.execPath, args: [CRASHY, "calm-one"] } });
  good = instance.id;
  await discover(good);
  await waitUntil(async () => (await row(good)).status === "online", "the good instance online", 30_000, 100);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await killWorkerProcesses();
  await dropPrefix(queue, redis, prefix);
  await disconnectDb();
});

describe("a stdio server that misbehaves", () => {
  it.each([
    ["line", "The server wrote a line over 10 MiB without a newline; it was stopped."],
    ["flood", "The server wrote more than 10,000 messages in 10 seconds; it was stopped."],
    ["garbage", "The server wrote more than 1,000 lines that are not MCP messages in 10 seconds; it was stopped."],
  ])(
    "as it starts (%s): is stopped and in error with the limit named, and the worker serves on",
    async (mode, message) => {
      const { marker, ...opts } = hostile(mode, "start");
      const { instance } = await makeInstance(db, opts);
      await discover(instance.id);
      await expectStoppedWith(worker, instance.id, marker, message);
      await expectWorkerServes();
    },
  );

  it("during a call (11 MiB without a newline): the call fails with the sentence, the instance goes to error", async () => {
    const { marker, ...opts } = hostile("line", "call");
    const { instance } = await makeInstance(db, opts);
    await discover(instance.id);
    await expect.poll(async () => (await row(instance.id)).status, { timeout: 30_000, interval: 100 }).toBe("online");
    const client = await connect(instance.id);
    const failure = await client.callTool({ name: "misbehave", arguments: {} }).catch((error: unknown) => error);
    const message = "The server wrote a line over 10 MiB without a newline; it was stopped.";
    expect(String(failure)).toContain(message);
    await expectStoppedWith(worker, instance.id, marker, message);
    await expectWorkerServes();
  });

  it("during a call with others in flight on two sessions: every call answers with the sentence, none hangs", async () => {
    const { marker, ...opts } = hostile("line", "call");
    const { instance } = await makeInstance(db, opts);
    await discover(instance.id);
    await expect.poll(async () => (await row(instance.id)).status, { timeout: 30_000, interval: 100 }).toBe("online");
    const [first, second] = [await connect(instance.id), await connect(instance.id)];
    // Under the worker's own request timeout (30 s): a call left hanging ends here with "Request timed out".
    const timeout = 20_000;
    const outcome = (call: Promise<unknown>) =>
      call.then(
        (result) => `answered: ${JSON.stringify(result)}`,
        (error: unknown) => `failed: ${String(error)}`,
      );
    const inFlight: Promise<void>[] = [];
    const hanging = [first!, first!, second!, second!].map((client) => {
      let started!: () => void;
      inFlight.push(new Promise<void>((resolve) => (started = resolve)));
      return outcome(
        client.callTool({ name: "hang", arguments: {} }, undefined, { timeout, onprogress: () => started() }),
      );
    });
    // Every hanging call reached the server (it reported progress) before another makes it break the limit.
    await Promise.all(inFlight);
    const failing = outcome(first!.callTool({ name: "misbehave", arguments: {} }, undefined, { timeout }));
    const message = "The server wrote a line over 10 MiB without a newline; it was stopped.";
    // Meanwhile calls one after the other on the second session: one reaches the bridge between the fault and the
    // end of the old process, while a replacement is set up, and was left without an answer when the bridge ended
    // the session. Until a call is answered after the fault, or fails for another reason (the session is gone).
    const steady = (async () => {
      const seen: string[] = [];
      for (;;) {
        const next = await outcome(
          second!.callTool({ name: "echo", arguments: { text: "x" } }, undefined, { timeout }),
        );
        seen.push(next);
        const afterFault = seen.some((o) => o.includes(message));
        if ((next.startsWith("failed") && !next.includes(message)) || (next.startsWith("answered") && afterFault))
          return seen;
      }
    })();
    const outcomes = [await failing, ...(await Promise.all(hanging))];
    expect(outcomes).toEqual(outcomes.map(() => `failed: McpError: MCP error -32603: ${message}`));
    // The steady calls: answered, or failed with the sentence, or told their session is over, or (in flight on the
    // process the fault stopped) told to try again; never timed out.
    for (const s of await steady)
      expect(s).toMatch(
        /^answered|10 MiB without a newline|Session not found|stopped on the worker before it answered/,
      );
    await expectStoppedWith(worker, instance.id, marker, message);
    await expectWorkerServes();
  });

  it("that stops reading its input: what waits for it is bounded, then it is stopped", async () => {
    const { marker, ...opts } = hostile("no-read", "call");
    const { instance } = await makeInstance(db, opts);
    await discover(instance.id);
    await expect.poll(async () => (await row(instance.id)).status, { timeout: 30_000, interval: 100 }).toBe("online");
    const client = await connect(instance.id);
    // Never answered: the server stops reading its input in it (its stream ends with the session).
    void client.callTool({ name: "misbehave", arguments: {} }).catch(() => {});
    // Eight calls of 3 MiB each; the server reads none of them once it stopped reading.
    const text = "x".repeat(3 * 1024 * 1024);
    const settled: string[] = [];
    for (let i = 0; i < 8; i++)
      void client
        .callTool({ name: "echo", arguments: { text } })
        .catch((error: unknown) => error)
        .then((outcome) => void settled.push(String(outcome)));
    const message = "The server stopped reading its input (over 16 MiB waiting); it was stopped.";
    await expect.poll(() => settled.some((s) => s.includes(message)), { timeout: 30_000 }).toBe(true);
    await expectStoppedWith(worker, instance.id, marker, message);
    await expectWorkerServes();
  });

  it.each([
    ["line", "The server wrote a line over 10 MiB without a newline; it was stopped."],
    ["flood", "The server wrote more than 10,000 messages in 10 seconds; it was stopped."],
    ["garbage", "The server wrote more than 1,000 lines that are not MCP messages in 10 seconds; it was stopped."],
  ])(
    "in a connection test (%s): the test answers with the limit's sentence, the worker serves on",
    async (mode, message) => {
      const { marker, ...opts } = hostile(mode, "start");
      const { team } = await makeInstallation(db, opts);
      const launch = {
        transport: "stdio",
        command: opts.stdio.command,
        args: opts.stdio.args,
        env: { HOSTILE_MODE: mode, HOSTILE_WHEN: "start" },
      };
      const job = await queue.add(JOB_NAMES.connectionTest, {
        teamId: team.id,
        sealedLaunch: getCipher().encrypt(JSON.stringify(launch)),
        envKeys: ["HOSTILE_MODE", "HOSTILE_WHEN"],
      });
      await expect.poll(async () => (await queue.getJob(job.id!))?.isCompleted(), { timeout: 30_000 }).toBe(true);
      const result = (await queue.getJob(job.id!))!.returnvalue as { ok: boolean; message: string };
      expect(result).toMatchObject({ ok: false, message });
      await expect.poll(() => serverProcesses(marker), { timeout: 10_000 }).toEqual([]);
      await expectWorkerServes();
    },
  );

  it("that closes its stdout and keeps running (sandboxed): is stopped and in error, the worker serves on", async () => {
    // bwrap's own processes (its monitor, the init of the PID namespace) keep their stdout for their lifetime: the
    // sandbox hands the server its output through another fd, which they close, so the close is seen here too.
    const { marker, ...opts } = hostile("close-stdout", "start");
    const { instance } = await makeInstance(db, opts);
    await discover(instance.id);
    await expectStoppedWith(
      worker,
      instance.id,
      marker,
      "The server closed its output but kept running; it was stopped.",
    );
    await expectWorkerServes();
  });
});
