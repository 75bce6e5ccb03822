import { randomBytes } from "node:crypto";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, type ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { bridgePath } from "../src/bridge/server";
import { ClientProcesses, processCapabilities, TooManyClientProcessesError } from "../src/client-processes";
import { makeInstance } from "./support/fixtures";
import { createHarness, JOB_NAMES, type Harness } from "./support/harness";
import { processesWith, serverProcesses } from "@switchboard/testing/processes";

const db = getDb();
const SECRET = randomBytes(24).toString("hex");
const CAPS = path.join(import.meta.dirname, "fixtures", "caps-server.mjs");
let h: Harness;
const clients: Client[] = [];

beforeAll(async () => {
  h = await createHarness("client-processes", {
    bridge: { host: "127.0.0.1", port: 0, secret: SECRET, workerId: "worker-caps" },
  });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  await h?.close();
  await disconnectDb();
});

async function onlineCapsServer() {
  const marker = `caps-${randomBytes(4).toString("hex")}`;
  const { instance } = await makeInstance(db, { stdio: { command: process.execPath, args: [CAPS, marker] } });
  await h.add(JOB_NAMES.discover, { instanceId: instance.id, reason: "provisioned" });
  await expect
    .poll(
      async () => {
        const i = await db.instance.findUniqueOrThrow({ where: { id: instance.id } });
        return `${i.status} ${i.status === "online" ? "" : (i.statusMessage ?? "")}`.trim();
      },
      { timeout: 20_000 },
    )
    .toBe("online");
  return { instance, marker, url: new URL(bridgePath(instance.id), h.app.bridgeUrl).toString() };
}

/** A bridge client declaring `capabilities`; it answers sampling with "from <name>". */
async function connect(url: string, name: string, capabilities: ClientCapabilities = {}) {
  const client = new Client({ name, version: "1" }, { capabilities });
  if (capabilities.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({
      model: "m",
      role: "assistant",
      content: { type: "text", text: `from ${name}` },
    }));
  }
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${SECRET}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return Object.assign(client, { end: () => transport.terminateSession() });
}

async function seenBy(client: Client): Promise<{ process: string; capabilities: ClientCapabilities }> {
  const result = await client.callTool({ name: "capabilities", arguments: {} });
  return JSON.parse((result.content as Array<{ text: string }>)[0]!.text);
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);

describe("hosted stdio processes per client capability set", () => {
  it("offers the main process nothing, while the catalogue still holds the tools only capable clients see", async () => {
    const { instance, marker, url } = await onlineCapsServer();
    // Discovery listed on a process offered everything, then stopped it: one process is left, the main one.
    const tools = await db.instanceTool.findMany({ where: { instanceId: instance.id }, orderBy: { position: "asc" } });
    expect(tools.map((t) => [t.name, t.needsClientCapabilities])).toEqual([
      ["capabilities", false],
      ["ask", true],
    ]);
    await expect.poll(() => serverProcesses(marker), { timeout: 5_000 }).toHaveLength(1);

    const plain = await connect(url, "plain");
    expect(await names(plain)).toEqual(["capabilities"]);
    const seen = await seenBy(plain);
    expect(seen.capabilities).toEqual({});
    expect(serverProcesses(marker)).toHaveLength(1);
  });

  it("gives a client that declared sampling a process of its own offered exactly that, which asks it and nobody else", async () => {
    const { marker, url } = await onlineCapsServer();
    const plain = await connect(url, "plain");
    const sampler = await connect(url, "sampler", { sampling: {} });
    expect(await names(sampler)).toEqual(["capabilities", "ask"]);
    const seen = await seenBy(sampler);
    expect(seen.capabilities).toEqual({ sampling: {} });
    expect(seen.process).not.toBe((await seenBy(plain)).process);
    expect(await sampler.callTool({ name: "ask", arguments: {} })).toMatchObject({
      content: [{ type: "text", text: "sampled: from sampler" }],
    });
    expect(serverProcesses(marker)).toHaveLength(2);

    // Another session of the same capabilities gets a process of its own too: a stdio server's request names no
    // call, so only a process nobody else uses can tell whom to ask. The plain client is unchanged.
    const second = await connect(url, "second", { sampling: {} });
    expect((await seenBy(second)).process).not.toBe(seen.process);
    const rooted = await connect(url, "rooted", { roots: { listChanged: true } });
    expect(await seenBy(rooted)).toMatchObject({ capabilities: { roots: { listChanged: true } } });
    expect(await names(rooted)).toEqual(["capabilities"]);
    expect(serverProcesses(marker)).toHaveLength(4);
    const [fromFirst, fromSecond] = await Promise.all([
      sampler.callTool({ name: "ask", arguments: {} }),
      second.callTool({ name: "ask", arguments: {} }),
    ]);
    expect([fromFirst, fromSecond]).toMatchObject([
      { content: [{ type: "text", text: "sampled: from sampler" }] },
      { content: [{ type: "text", text: "sampled: from second" }] },
    ]);
    expect(await names(plain)).toEqual(["capabilities"]);
    const refused = await plain.callTool({ name: "ask", arguments: {} });
    expect(refused.isError).toBe(true);

    // A session its client ends takes its process with it.
    await second.end();
    await expect.poll(() => serverProcesses(marker), { timeout: 5_000 }).toHaveLength(3);
  });

  it("never shares a process between two members' instances of the same server", async () => {
    const one = await onlineCapsServer();
    const two = await onlineCapsServer();
    const a = await connect(one.url, "member-a", { sampling: {} });
    const b = await connect(two.url, "member-b", { sampling: {} });
    const [seenA, seenB] = [await seenBy(a), await seenBy(b)];
    expect(seenA.process).not.toBe(seenB.process);
    // Each instance runs its own main process and its own process for sampling clients.
    expect(serverProcesses(one.marker)).toHaveLength(2);
    expect(serverProcesses(two.marker)).toHaveLength(2);
    expect(await a.callTool({ name: "ask", arguments: {} })).toMatchObject({
      content: [{ type: "text", text: "sampled: from member-a" }],
    });
    expect(await b.callTool({ name: "ask", arguments: {} })).toMatchObject({
      content: [{ type: "text", text: "sampled: from member-b" }],
    });
  });

  it("ends a capable client's idle session with its process, keeps the instance online, and serves a new session", async () => {
    const { instance, marker, url } = await onlineCapsServer();
    const sampler = await connect(url, "sampler", { sampling: {} });
    const first = await seenBy(sampler);
    expect(serverProcesses(marker)).toHaveLength(2);

    // Three minutes later without a call (the bridge normally does this on its timer): the idle bridge session is
    // over, and its process with it, while the main process still runs (a route process that died leaves nothing).
    await h.app.bridge!.sweepIdle(Date.now() + 181_000);
    await expect.poll(() => serverProcesses(marker), { timeout: 5_000 }).toHaveLength(1);
    // And the supervisors stop the idle main process.
    await h.app.sweepIdle(Date.now() + 181_000);
    await expect.poll(() => processesWith(marker), { timeout: 5_000 }).toEqual([]);
    expect((await db.instance.findUniqueOrThrow({ where: { id: instance.id } })).status).toBe("online");

    const again = await connect(url, "sampler-again", { sampling: {} });
    expect(await again.callTool({ name: "ask", arguments: {} })).toMatchObject({
      content: [{ type: "text", text: "sampled: from sampler-again" }],
    });
    expect((await seenBy(again)).process).not.toBe(first.process);
    // The ended session's client is told so (404) and starts a new session, as the route's connections do.
    await expect(sampler.callTool({ name: "ask", arguments: {} })).rejects.toThrow(/Session not found/);

    // Removing the instance stops every process it has.
    await h.add(JOB_NAMES.installationRemoved, {
      installationId: instance.installationId,
      teamId: instance.teamId,
      instanceIds: [instance.id],
    });
    await expect.poll(() => processesWith(marker), { timeout: 5_000 }).toEqual([]);
  });
});

describe("capability sets", () => {
  it("reduces what a client declared to the flags the protocol defines, so nothing else reaches the server", () => {
    const odd = {
      sampling: { context: {}, extra: { n: 1 } },
      elicitation: {},
      roots: {},
      experimental: { x: {} },
    } as ClientCapabilities;
    expect(processCapabilities(odd)).toEqual({ sampling: { context: {} }, elicitation: {}, roots: {} });
    expect(processCapabilities({ experimental: {} })).toBeUndefined();
    expect(processCapabilities({ elicitation: { url: {}, form: {} }, roots: { listChanged: true } })).toEqual({
      elicitation: { form: {}, url: {} },
      roots: { listChanged: true },
    });
  });

  it("past the per-instance bound stops the least recently used idle process, and refuses when all are busy", async () => {
    const marker = `bound-${randomBytes(4).toString("hex")}`;
    const asked: Array<() => void> = [];
    const processes = new ClientProcesses({
      resolveLaunch: async () => ({ transport: "stdio", command: process.execPath, args: [CAPS, marker], env: {} }),
      target: async () => ({ connector: () => Promise.reject(new Error("replaced by the supervisor's connector")) }),
      // Nobody answers until the test says so: an `ask` keeps its process busy.
      serverRequests: () =>
        new Promise((resolve) =>
          asked.push(() => resolve({ model: "m", role: "assistant", content: { type: "text", text: "late" } })),
        ),
      onEvent: () => {},
      maxPerInstance: 2,
    });
    const whose = async (connection: Awaited<ReturnType<ClientProcesses["get"]>>) =>
      JSON.parse(
        ((await connection!.callTool({ name: "capabilities", arguments: {} })).content as Array<{ text: string }>)[0]!
          .text,
      ) as { process: string };
    try {
      const a = await processes.get("inst", { sampling: {} }, "a");
      const b = await processes.get("inst", { sampling: {} }, "b");
      const first = await whose(a);
      // Another instance has a bound of its own.
      await processes.get("other", { sampling: {} }, "a");
      expect(serverProcesses(marker)).toHaveLength(3);

      // A third owner: a, used least recently and idle, is stopped for it.
      await whose(b);
      const c = await processes.get("inst", { sampling: {} }, "c");
      await whose(c);
      await expect.poll(() => serverProcesses(marker), { timeout: 5_000 }).toHaveLength(3);
      expect(processes.isRunning("inst", "a")).toBe(false);
      expect(processes.isRunning("inst", "b")).toBe(true);

      // b and c both busy (each waits for its client's answer): a cannot come back, and is told why.
      const busy = [b, c].map((connection) => connection!.callTool({ name: "ask", arguments: {} }));
      await expect.poll(() => asked.length, { timeout: 5_000 }).toBe(2);
      await expect(processes.get("inst", { sampling: {} }, "a")).rejects.toBeInstanceOf(TooManyClientProcessesError);
      for (const answer of asked) answer();
      await Promise.all(busy);
      // Once they are done, a starts again (a fresh process) in the room its next use makes.
      const again = await processes.get("inst", { sampling: {} }, "a");
      expect((await whose(again)).process).not.toBe(first.process);
      expect(serverProcesses(marker)).toHaveLength(3);

      // An owner that is gone takes its process with it.
      await processes.release("inst", "a");
      await expect.poll(() => serverProcesses(marker), { timeout: 5_000 }).toHaveLength(2);
      expect(processes.ofInstance("inst")).toHaveLength(2);
    } finally {
      await processes.closeAll();
    }
    await expect.poll(() => processesWith(marker), { timeout: 5_000 }).toEqual([]);
  });
});
