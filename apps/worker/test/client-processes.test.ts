import { randomBytes } from "node:crypto";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, type ClientCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { disconnectDb, getDb } from "@switchboard/db/client";
import { bridgePath } from "../src/bridge/server";
import {
  capabilityProcessId,
  ClientProcesses,
  processCapabilities,
  TooManyClientProcessesError,
} from "../src/client-processes";
import { makeInstance } from "./support/fixtures";
import { createHarness, JOB_NAMES, type Harness } from "./support/harness";
import { processesWith, serverProcesses } from "./support/processes";

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
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${SECRET}` } },
    }),
  );
  clients.push(client);
  return client;
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

  it("gives a client that declared sampling a process offered exactly that, which asks it and nobody else", async () => {
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

    // The same capability set shares that process; another set gets its own; the plain client is unchanged.
    const second = await connect(url, "second", { sampling: {} });
    expect((await seenBy(second)).process).toBe(seen.process);
    const rooted = await connect(url, "rooted", { roots: { listChanged: true } });
    expect(await seenBy(rooted)).toMatchObject({ capabilities: { roots: { listChanged: true } } });
    expect(await names(rooted)).toEqual(["capabilities"]);
    expect(serverProcesses(marker)).toHaveLength(3);
    expect(await names(plain)).toEqual(["capabilities"]);
    const refused = await plain.callTool({ name: "ask", arguments: {} });
    expect(refused.isError).toBe(true);
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

  it("stops a capable client's process when idle, keeps the instance online, and starts it again on the next call", async () => {
    const { instance, marker, url } = await onlineCapsServer();
    const sampler = await connect(url, "sampler", { sampling: {} });
    const first = await seenBy(sampler);
    expect(serverProcesses(marker)).toHaveLength(2);

    // Three minutes later without a call (the supervisors normally do this on their timers).
    const stopped = await h.app.sweepIdle(Date.now() + 181_000);
    expect(stopped).toEqual(expect.arrayContaining([instance.id, capabilityProcessId(instance.id, { sampling: {} })]));
    await expect.poll(() => processesWith(marker), { timeout: 5_000 }).toEqual([]);
    expect((await db.instance.findUniqueOrThrow({ where: { id: instance.id } })).status).toBe("online");

    const again = await connect(url, "sampler-again", { sampling: {} });
    expect(await again.callTool({ name: "ask", arguments: {} })).toMatchObject({
      content: [{ type: "text", text: "sampled: from sampler-again" }],
    });
    expect((await seenBy(again)).process).not.toBe(first.process);

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
  it("reduces what a client declared to the flags the protocol defines, so nothing else makes a process of its own", () => {
    const odd = {
      sampling: { context: {}, extra: { n: 1 } },
      elicitation: {},
      roots: {},
      experimental: { x: {} },
    } as ClientCapabilities;
    expect(processCapabilities(odd)).toEqual({ sampling: { context: {} }, elicitation: {}, roots: {} });
    expect(capabilityProcessId("i", processCapabilities(odd)!)).toBe(
      capabilityProcessId("i", processCapabilities({ roots: {}, elicitation: {}, sampling: { context: {} } })!),
    );
    expect(processCapabilities({ experimental: {} })).toBeUndefined();
    expect(processCapabilities({ elicitation: { url: {}, form: {} }, roots: { listChanged: true } })).toEqual({
      elicitation: { form: {}, url: {} },
      roots: { listChanged: true },
    });
  });

  it("refuses a process beyond the per-instance bound with a readable error, and starts it once one stopped", async () => {
    const marker = `bound-${randomBytes(4).toString("hex")}`;
    const processes = new ClientProcesses({
      resolveLaunch: async () => ({ transport: "stdio", command: process.execPath, args: [CAPS, marker], env: {} }),
      target: async () => ({ connector: () => Promise.reject(new Error("replaced by the supervisor's connector")) }),
      serverRequests: () => Promise.reject(new Error("nobody to ask")),
      onEvent: () => {},
      maxPerInstance: 2,
    });
    try {
      await processes.get("inst", { sampling: {} });
      await processes.get("inst", { roots: {} });
      await expect(processes.get("inst", { elicitation: {} })).rejects.toBeInstanceOf(TooManyClientProcessesError);
      // Another instance has a bound of its own; a set already running is served.
      await processes.get("other", { elicitation: {} });
      await processes.get("inst", { sampling: {} });
      expect(serverProcesses(marker)).toHaveLength(3);
      await processes.stop("inst", { roots: {} });
      const connection = await processes.get("inst", { elicitation: {} });
      expect(await connection!.callTool({ name: "capabilities", arguments: {} })).toMatchObject({
        content: [{ type: "text", text: expect.stringContaining('"capabilities":{"elicitation":') }],
      });
    } finally {
      await processes.closeAll();
    }
    await expect.poll(() => processesWith(marker), { timeout: 5_000 }).toEqual([]);
  });
});
